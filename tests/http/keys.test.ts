import { afterEach, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT, calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, generateKeyPair, jwtVerify, type JSONWebKeySet } from "jose";
import { ALGS, type Alg } from "../../src/oidc/keys/algs.ts";
import { TokenVerifyError } from "../../src/oidc/keys/errors.ts";
import { KeyRing } from "../../src/oidc/keys/keyring.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { rejection } from "../helpers/settle.ts";

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
let clock = 1_800_000_000;
const now = () => clock;
const opened: Store[] = [];

async function memory_store(): Promise<Store> {
  const store = await open_store("sqlite::memory:");
  opened.push(store);
  return store;
}

function jwks_of(ring: KeyRing): JSONWebKeySet {
  return JSON.parse(new TextDecoder().decode(ring.jwks().body)) as JSONWebKeySet;
}

afterEach(async () => {
  clock = 1_800_000_000;
  for (const store of opened.splice(0)) await store.close();
});

describe("KeyRing.load", () => {
  test("creates one active and one published next key per configured alg", async () => {
    const store = await memory_store();
    const ring = await KeyRing.load(store, { algs: [...ALGS], retire_after_seconds: 3600, now });
    expect(ring.signing_algs()).toEqual([...ALGS]);
    for (const alg of ALGS) {
      const keys = ring.list().filter((key) => key.alg === alg);
      expect(keys.filter((key) => key.status === "active")).toHaveLength(1);
      expect(keys.filter((key) => key.status === "next")).toHaveLength(1);
      expect(ring.active_kid(alg)).toBe(keys.find((key) => key.status === "active")!.kid);
    }
  });

  test("the kid is the RFC 7638 thumbprint of the public key", async () => {
    const ring = await KeyRing.load(await memory_store(), { algs: ["RS256", "ES256"], retire_after_seconds: 3600, now });
    for (const jwk of jwks_of(ring).keys) expect(jwk.kid).toBe(await calculateJwkThumbprint(jwk, "sha256"));
  });

  test("a second load on the same store reuses the keys", async () => {
    const store = await memory_store();
    const first = await KeyRing.load(store, { algs: ["RS256", "EdDSA"], retire_after_seconds: 3600, now });
    const second = await KeyRing.load(store, { algs: ["RS256", "EdDSA"], retire_after_seconds: 3600, now });
    expect(second.list()).toEqual(first.list());
    expect(second.active_kid("RS256")).toBe(first.active_kid("RS256"));
  });
});

describe("JWKS", () => {
  test("has no private member, and every key has kid, use and alg", async () => {
    const ring = await KeyRing.load(await memory_store(), { algs: [...ALGS], retire_after_seconds: 3600, now });
    await ring.rotate(); // include retired keys too
    const { keys } = jwks_of(ring);
    expect(keys).toHaveLength(ALGS.length * 3);
    for (const key of keys) {
      for (const member of PRIVATE_MEMBERS) expect(key).not.toHaveProperty(member);
      expect(key.kid).toBeString();
      expect(key.use).toBe("sig");
      expect(ALGS).toContain(key.alg as Alg);
    }
    expect(new TextDecoder().decode(ring.jwks().body)).not.toMatch(/"(d|p|q|dp|dq|qi|k)":/);
  });

  test("list() carries no key material", async () => {
    const ring = await KeyRing.load(await memory_store(), { algs: ["RS256"], retire_after_seconds: 3600, now });
    for (const key of ring.list()) expect(Object.keys(key).sort()).toEqual(["activated_at", "alg", "created_at", "kid", "retire_at", "status"]);
  });

  test("body and strong ETag are reused until the keys change", async () => {
    const ring = await KeyRing.load(await memory_store(), { algs: ["ES256"], retire_after_seconds: 3600, now });
    const first = ring.jwks();
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(ring.jwks().body).toBe(first.body);
    expect(await ring.refresh()).toBe(false);
    expect(ring.jwks().etag).toBe(first.etag);
    await ring.rotate();
    expect(ring.jwks().etag).not.toBe(first.etag);
  });
});

describe("sign", () => {
  for (const alg of ALGS) {
    test(`${alg}: jose verifies the token against the published JWKS`, async () => {
      const ring = await KeyRing.load(await memory_store(), { algs: [alg], retire_after_seconds: 3600, now });
      const jwt = await ring.sign({ iss: "https://id.example", sub: "u1", aud: "c1", iat: clock, exp: clock + 60 }, { alg });
      const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(jwks_of(ring)), {
        algorithms: [alg],
        issuer: "https://id.example",
        audience: "c1",
        currentDate: new Date(clock * 1000),
      });
      expect(protectedHeader).toEqual({ alg, kid: ring.active_kid(alg), typ: "JWT" });
      expect(payload.sub).toBe("u1");
    });
  }

  test("typ can be set (RFC 9068 at+jwt, logout+jwt)", async () => {
    const ring = await KeyRing.load(await memory_store(), { algs: ["RS256"], retire_after_seconds: 3600, now });
    expect(decodeProtectedHeader(await ring.sign({ sub: "u" }, { typ: "at+jwt" })).typ).toBe("at+jwt");
    expect(decodeProtectedHeader(await ring.sign({ sub: "u" })).typ).toBe("JWT");
  });

  test("defaults to RS256 and refuses an alg that is not configured", async () => {
    const ring = await KeyRing.load(await memory_store(), { algs: ["ES256", "RS256"], retire_after_seconds: 3600, now });
    expect(decodeProtectedHeader(await ring.sign({ sub: "u" })).alg).toBe("RS256");
    expect((await rejection(ring.sign({ sub: "u" }, { alg: "EdDSA" }))).message).toContain("No active signing key for alg EdDSA");
  });
});

describe("verify", () => {
  async function ring_with_token(claims: Record<string, unknown> = {}) {
    const ring = await KeyRing.load(await memory_store(), { algs: ["RS256", "ES256"], retire_after_seconds: 3600, now });
    const jwt = await ring.sign({ iss: "https://id.example", sub: "u1", aud: "c1", iat: clock, exp: clock + 60, ...claims });
    return { ring, jwt };
  }

  async function failure(promise: Promise<unknown>): Promise<TokenVerifyError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof TokenVerifyError) return error;
      throw error;
    }
    throw new Error("expected verify to fail");
  }

  test("returns the claims of our own token", async () => {
    const { ring, jwt } = await ring_with_token();
    expect((await ring.verify(jwt, { issuer: "https://id.example", audience: "c1" })).sub).toBe("u1");
  });

  test("expired: refused, unless allow_expired (id_token_hint at logout)", async () => {
    const { ring, jwt } = await ring_with_token();
    clock += 3600;
    expect((await failure(ring.verify(jwt))).reason).toBe("expired");
    expect((await ring.verify(jwt, { allow_expired: true })).sub).toBe("u1");
    // allow_expired does not relax the other checks
    expect((await failure(ring.verify(jwt, { allow_expired: true, audience: "other" }))).reason).toBe("invalid_claims");
  });

  test("a tampered payload or signature is bad_signature", async () => {
    const { ring, jwt } = await ring_with_token();
    const [header, , signature] = jwt.split(".");
    const forged = Buffer.from(JSON.stringify({ sub: "admin", exp: clock + 60 })).toString("base64url");
    expect((await failure(ring.verify(`${header}.${forged}.${signature}`))).reason).toBe("bad_signature");
  });

  test("a token from a key that is not ours is unknown_key, even with one of our kids' algs", async () => {
    const { ring } = await ring_with_token();
    const { privateKey } = await generateKeyPair("ES256");
    const foreign = await new SignJWT({ sub: "u1" }).setProtectedHeader({ alg: "ES256", kid: "not-ours" }).sign(privateKey);
    expect((await failure(ring.verify(foreign))).reason).toBe("unknown_key");
    const reusing_kid = await new SignJWT({ sub: "u1" }).setProtectedHeader({ alg: "ES256", kid: ring.active_kid("ES256") }).sign(privateKey);
    expect((await failure(ring.verify(reusing_kid))).reason).toBe("bad_signature");
  });

  test("the alg comes from our key, not the token (RFC 8725 §3.1)", async () => {
    const { ring } = await ring_with_token();
    const { privateKey } = await generateKeyPair("ES256");
    const confused = await new SignJWT({ sub: "u1" }).setProtectedHeader({ alg: "ES256", kid: ring.active_kid("RS256") }).sign(privateKey);
    expect((await failure(ring.verify(confused))).reason).toBe("bad_signature");
    const unsigned = `${Buffer.from(JSON.stringify({ alg: "none", kid: ring.active_kid("RS256") })).toString("base64url")}.${Buffer.from("{}").toString("base64url")}.`;
    expect(["malformed", "bad_signature"]).toContain((await failure(ring.verify(unsigned))).reason);
  });

  test("garbage and tokens without kid are malformed", async () => {
    const { ring } = await ring_with_token();
    expect((await failure(ring.verify("not.a.jwt"))).reason).toBe("malformed");
    const { privateKey } = await generateKeyPair("ES256");
    const no_kid = await new SignJWT({ sub: "u1" }).setProtectedHeader({ alg: "ES256" }).sign(privateKey);
    expect((await failure(ring.verify(no_kid))).reason).toBe("malformed");
  });
});

describe("persistence", () => {
  test("keys survive reopening the same SQLite file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "idp-keys-"));
    try {
      const url = `sqlite:${join(dir, "idp.sqlite")}`;
      const first_store = await open_store(url);
      const first = await KeyRing.load(first_store, { algs: ["RS256", "EdDSA"], retire_after_seconds: 3600, now });
      const jwt = await first.sign({ sub: "u1", exp: clock + 60 });
      const kids = first.list();
      const etag = first.jwks().etag;
      await first_store.close();

      const second_store = await open_store(url);
      try {
        const second = await KeyRing.load(second_store, { algs: ["RS256", "EdDSA"], retire_after_seconds: 3600, now });
        expect(second.list()).toEqual(kids);
        expect(second.jwks().etag).toBe(etag);
        expect((await second.verify(jwt)).sub).toBe("u1");
      } finally {
        await second_store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
