import { afterEach, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, calculateJwkThumbprint } from "jose";
import { ALGS } from "../../src/oidc/keys/algs.ts";
import { KeyRing, type KeyRingOptions } from "../../src/oidc/keys/keyring.ts";
import { open_store } from "../../src/store/open.ts";
import type { JsonObject, Store } from "../../src/store/types.ts";
import { rejection } from "../helpers/settle.ts";
import { setTimeout as sleep } from "node:timers/promises";

let clock = 1_800_000_000;
const now = () => clock;
const options: KeyRingOptions = { algs: ["RS256", "ES256"], retire_after_seconds: 3600, retire_grace_seconds: 60, now };
const opened: Store[] = [];
const dirs: string[] = [];

async function memory_store(): Promise<Store> {
  const store = await open_store("sqlite::memory:");
  opened.push(store);
  return store;
}

/** Two connections to one SQLite file: two instances sharing a database. */
async function shared_stores(): Promise<[Store, Store]> {
  const dir = mkdtempSync(join(tmpdir(), "idp-keys-"));
  dirs.push(dir);
  const url = `sqlite:${join(dir, "idp.sqlite")}`;
  const a = await open_store(url);
  const b = await open_store(url);
  opened.push(a, b);
  return [a, b];
}

function published_kids(ring: KeyRing): string[] {
  return (JSON.parse(new TextDecoder().decode(ring.jwks().body)) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

afterEach(async () => {
  clock = 1_800_000_000;
  for (const store of opened.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("rotate", () => {
  test("the published next key signs; the old key's tokens still verify until retire_at", async () => {
    const ring = await KeyRing.load(await memory_store(), options);
    const old_kid = ring.active_kid("RS256");
    const next_kid = ring.list().find((key) => key.alg === "RS256" && key.status === "next")!.kid;
    expect(published_kids(ring)).toContain(next_kid); // published before it signs
    const old_token = await ring.sign({ sub: "u1", exp: clock + 3600 });

    const rotated = await ring.rotate("RS256");
    expect(rotated.get("RS256")).toBe(next_kid);
    expect(ring.active_kid("RS256")).toBe(next_kid);
    expect(JSON.parse(atob((await ring.sign({ sub: "u1" })).split(".")[0]!)).kid).toBe(next_kid);
    const retired = ring.list().find((key) => key.kid === old_kid)!;
    expect(retired).toMatchObject({ status: "retired", retire_at: clock + 3600 + 60 });
    // a fresh next key is published for the following rotation
    expect(ring.list().filter((key) => key.alg === "RS256" && key.status === "next")).toHaveLength(1);

    expect((await ring.verify(old_token)).sub).toBe("u1");
    expect(published_kids(ring)).toContain(old_kid);

    clock += 3600 + 59; // the old token is expired, the key still published within the grace
    expect(published_kids(ring)).toContain(old_kid);
    expect((await ring.verify(old_token, { allow_expired: true })).sub).toBe("u1");

    clock += 1; // retire_at reached: gone from the JWKS, deleted on refresh, no longer trusted
    expect(published_kids(ring)).not.toContain(old_kid);
    expect(await ring.refresh()).toBe(true);
    expect(ring.list().map((key) => key.kid)).not.toContain(old_kid);
    expect(await rejection(ring.verify(old_token, { allow_expired: true }))).toMatchObject({ reason: "unknown_key" });
  });

  test("rotate() without alg rotates every configured alg; ES256 rotation leaves RS256 alone", async () => {
    const ring = await KeyRing.load(await memory_store(), options);
    const rs = ring.active_kid("RS256");
    const es = ring.active_kid("ES256");
    await ring.rotate("ES256");
    expect(ring.active_kid("RS256")).toBe(rs);
    expect(ring.active_kid("ES256")).not.toBe(es);
    const all = await ring.rotate();
    expect([...all.keys()]).toEqual(["RS256", "ES256"]);
    expect(ring.active_kid("RS256")).not.toBe(rs);
  });

  test("without publish_next, rotation still leaves the ring able to sign", async () => {
    const ring = await KeyRing.load(await memory_store(), { ...options, algs: ["ES256"], publish_next: false });
    expect(ring.list().map((key) => key.status)).toEqual(["active"]);
    const before = ring.active_kid("ES256");
    const token = await ring.sign({ sub: "u1", exp: clock + 60 });
    await ring.rotate();
    expect(ring.active_kid("ES256")).not.toBe(before);
    expect((await ring.verify(token)).sub).toBe("u1");
    expect((await ring.verify(await ring.sign({ sub: "u2", exp: clock + 60 }, { alg: "ES256" }))).sub).toBe("u2");
  });

  test("rotating an alg that is not configured is refused", async () => {
    const ring = await KeyRing.load(await memory_store(), options);
    expect((await rejection(ring.rotate("EdDSA"))).message).toContain("not configured");
  });
});

describe("several instances", () => {
  test("rotation on one is seen by the other after refresh()", async () => {
    const [store_a, store_b] = await shared_stores();
    const a = await KeyRing.load(store_a, options);
    const b = await KeyRing.load(store_b, options);
    expect(b.active_kid("RS256")).toBe(a.active_kid("RS256"));
    expect(await b.refresh()).toBe(false);

    const old_token = await b.sign({ sub: "u1", exp: clock + 60 });
    await a.rotate("RS256");
    expect(b.active_kid("RS256")).not.toBe(a.active_kid("RS256"));
    expect(await b.refresh()).toBe(true);
    expect(b.active_kid("RS256")).toBe(a.active_kid("RS256"));
    expect(b.jwks().etag).toBe(a.jwks().etag);
    expect((await a.verify(old_token)).sub).toBe("u1");
  });

  test("a token from a key another instance just activated verifies before the next poll", async () => {
    const [store_a, store_b] = await shared_stores();
    const a = await KeyRing.load(store_a, { ...options, publish_next: false });
    const b = await KeyRing.load(store_b, { ...options, publish_next: false });
    await a.rotate("ES256"); // a brand-new key b has never seen
    const token = await a.sign({ sub: "u1", exp: clock + 60 }, { alg: "ES256" });
    expect((await b.verify(token)).sub).toBe("u1"); // unknown kid → one refresh
    expect(b.active_kid("ES256")).toBe(a.active_kid("ES256"));
  });

  test("start_polling notices rotation without an explicit refresh", async () => {
    const [store_a, store_b] = await shared_stores();
    const a = await KeyRing.load(store_a, options);
    const b = await KeyRing.load(store_b, options);
    b.start_polling(10);
    try {
      await a.rotate("RS256");
      const deadline = Date.now() + 2000;
      while (b.active_kid("RS256") !== a.active_kid("RS256") && Date.now() < deadline) await sleep(10);
      expect(b.active_kid("RS256")).toBe(a.active_kid("RS256"));
    } finally {
      b.stop_polling();
    }
  });

  test("concurrent load on an empty database leaves one active (and one next) key per alg", async () => {
    const [store_a, store_b] = await shared_stores();
    const algs = { ...options, algs: [...ALGS] };
    const rings = await Promise.all([KeyRing.load(store_a, algs), KeyRing.load(store_b, algs), KeyRing.load(store_a, algs)]);
    for (const ring of rings) await ring.refresh();
    const keys = rings[0]!.list();
    for (const alg of ALGS) {
      expect(keys.filter((key) => key.alg === alg && key.status === "active")).toHaveLength(1);
      expect(keys.filter((key) => key.alg === alg && key.status === "next")).toHaveLength(1);
      for (const ring of rings) expect(ring.active_kid(alg)).toBe(rings[0]!.active_kid(alg));
    }
  });

  test("two active keys for one alg: every instance keeps the newest and retires the other", async () => {
    const store = await memory_store();
    const make = async (created_at: number) => {
      const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
      const public_jwk = (await exportJWK(publicKey)) as JsonObject;
      const kid = await calculateJwkThumbprint(public_jwk as Parameters<typeof calculateJwkThumbprint>[0]);
      await store.insert_key({ kid, alg: "ES256", status: "active", created_at, activated_at: created_at, private_jwk: (await exportJWK(privateKey)) as JsonObject, public_jwk });
      return kid;
    };
    const older = await make(clock - 10);
    const newer = await make(clock - 5);
    const ring = await KeyRing.load(store, { ...options, algs: ["ES256"] });
    expect(ring.active_kid("ES256")).toBe(newer);
    expect(ring.list().find((key) => key.kid === older)).toMatchObject({ status: "retired", retire_at: clock + 3660 });
    expect(published_kids(ring)).toContain(older); // what it signed still verifies
  });
});

describe("rotation on schedule (IDP_KEY_ROTATION_DAYS)", () => {
  const DAY = 86400;

  test("nothing is due before the period ends; then each alg's next key takes over, once", async () => {
    const ring = await KeyRing.load(await memory_store(), { ...options, rotate_after_seconds: 30 * DAY });
    const rs = ring.active_kid("RS256");
    const es = ring.active_kid("ES256");
    const rs_next = ring.list().find((key) => key.alg === "RS256" && key.status === "next")!.kid;
    expect(ring.next_rotation("RS256")).toBe(clock + 30 * DAY);

    clock += 30 * DAY - 1;
    expect((await ring.rotate_due()).size).toBe(0);
    expect(ring.active_kid("RS256")).toBe(rs);

    clock += 1;
    const rotated = await ring.rotate_due();
    expect([...rotated.keys()].sort()).toEqual(["ES256", "RS256"]);
    expect(ring.active_kid("RS256")).toBe(rs_next);
    expect(ring.active_kid("ES256")).not.toBe(es);
    expect(ring.next_rotation("RS256")).toBe(clock + 30 * DAY);
    // Due again only a full period later.
    expect((await ring.rotate_due()).size).toBe(0);
  });

  test("a rotation by hand restarts that alg's period only", async () => {
    const ring = await KeyRing.load(await memory_store(), { ...options, rotate_after_seconds: 10 * DAY });
    clock += 4 * DAY;
    await ring.rotate("ES256");
    expect(ring.next_rotation("ES256")).toBe(clock + 10 * DAY);
    clock += 6 * DAY;
    expect([...(await ring.rotate_due()).keys()]).toEqual(["RS256"]);
  });

  test("two instances on one database: the first to notice rotates, the other follows without rotating again", async () => {
    const [a_store, b_store] = await shared_stores();
    const a = await KeyRing.load(a_store, { ...options, algs: ["RS256"], rotate_after_seconds: DAY });
    const b = await KeyRing.load(b_store, { ...options, algs: ["RS256"], rotate_after_seconds: DAY });
    clock += DAY;
    const by_a = await a.rotate_due();
    expect(by_a.size).toBe(1);
    expect((await b.rotate_due()).size).toBe(0);
    expect(b.active_kid("RS256")).toBe(by_a.get("RS256")!);
  });

  test("0 or no period: keys rotate only by hand", async () => {
    const ring = await KeyRing.load(await memory_store(), { ...options, rotate_after_seconds: 0 });
    expect(ring.next_rotation("RS256")).toBeNull();
    clock += 3650 * DAY;
    expect((await ring.rotate_due()).size).toBe(0);
  });
});

test("start_polling rotates the keys that are due and says which", async () => {
  const ring = await KeyRing.load(await memory_store(), { ...options, algs: ["RS256"], rotate_after_seconds: 86400 });
  const before = ring.active_kid("RS256");
  clock += 86400;
  const told = new Promise<Map<string, string>>((resolve) => ring.start_polling(20, (error) => resolve(new Map([["error", String(error)]])), resolve));
  const rotated = await told;
  ring.stop_polling();
  expect(rotated.get("RS256")).toBe(ring.active_kid("RS256"));
  expect(ring.active_kid("RS256")).not.toBe(before);
});
