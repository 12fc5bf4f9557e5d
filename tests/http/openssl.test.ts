/**
 * RS256/PS256 through the system's OpenSSL 3 (src/platform/openssl.ts): what it signs verifies
 * with jose and matches node:crypto byte for byte (RS256 is deterministic), it falls back to
 * WebCrypto when turned off or when libcrypto cannot be loaded, it keeps nothing per call, and
 * many async callers can share one signer.
 *
 * The signer's tests are about Bun's FFI (bun:ffi) and run on Bun only; the fallback runs on both.
 */
import { describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { existsSync } from "node:fs";
import { createPrivateKey, sign as node_sign, verify as node_verify } from "node:crypto";
import fc from "fast-check";
import { compactVerify, exportJWK, generateKeyPair, jwtVerify, type CryptoKey as JoseKey } from "jose";
import { openssl_rsa_signer } from "../../src/platform/openssl.ts";
import { make_signer } from "../../src/oidc/keys/jws.ts";
import type { JsonObject } from "../../src/store/types.ts";
import { load_config } from "../../src/app/config.ts";

async function libcrypto_available(): Promise<boolean> {
  if (RUNTIME !== "bun") return false;
  // Not a static import: Deno cannot resolve "bun:ffi".
  const { dlopen } = await import("bun:ffi");
  try {
    dlopen("libcrypto.so.3", { OPENSSL_version_major: { args: [], returns: "u32" } }).close();
    return true;
  } catch {
    return false;
  }
}
const available = await libcrypto_available();
if (!available && RUNTIME === "bun") console.warn("tests/http/openssl.test.ts: libcrypto.so.3 (OpenSSL 3) cannot be loaded; skipping the OpenSSL signer tests");

type Rsa = { jwk: JsonObject; publicKey: JoseKey };
async function rsa_key(alg: "RS256" | "PS256"): Promise<Rsa> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  return { jwk: (await exportJWK(privateKey)) as JsonObject, publicKey };
}

function b64(value: string | Uint8Array): string {
  return Buffer.from(value).toString("base64url");
}

/** A compact JWS over `payload` signed by `sign`. */
function jws(alg: string, payload: Uint8Array, sign: (data: Uint8Array) => Uint8Array): string {
  const input = `${b64(JSON.stringify({ alg }))}.${b64(payload)}`;
  return `${input}.${b64(sign(Buffer.from(input, "latin1")))}`;
}

describe.skipIf(!available)("OpenSSL RSA signer (Bun only: bun:ffi)", () => {
  for (const alg of ["RS256", "PS256"] as const) {
    test(`${alg}: jose verifies signatures over a few hundred random payloads`, async () => {
      const { jwk, publicKey } = await rsa_key(alg);
      const sign = openssl_rsa_signer(jwk, alg);
      expect(sign).not.toBeNull();
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 4096 }), async (payload) => {
          const token = jws(alg, payload, sign!);
          const { payload: verified, protectedHeader } = await compactVerify(token, publicKey, { algorithms: [alg] });
          expect(protectedHeader.alg).toBe(alg);
          expect(Buffer.from(verified).equals(Buffer.from(payload))).toBe(true);
        }),
        { numRuns: 300 },
      );
    });
  }

  test("RS256 equals node:crypto's PKCS#1 v1.5 signature byte for byte", async () => {
    const { jwk } = await rsa_key("RS256");
    const sign = openssl_rsa_signer(jwk, "RS256")!;
    const key = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (data) => {
        expect(Buffer.from(sign(data)).equals(node_sign("sha256", data, key))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  test("PS256 is RSASSA-PSS with a 32-octet salt (node:crypto verifies with saltLength 32, not with another)", async () => {
    const { jwk } = await rsa_key("PS256");
    const sign = openssl_rsa_signer(jwk, "PS256")!;
    const key = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
    const data = Buffer.from("eyJhbGciOiJQUzI1NiJ9.eyJzdWIiOiIxIn0");
    const signature = sign(data);
    expect(signature.length).toBe(256);
    expect(Buffer.from(sign(data)).equals(Buffer.from(signature))).toBe(false); // salted
    expect(node_verify("sha256", data, { key, padding: 6, saltLength: 32 }, signature)).toBe(true);
    expect(node_verify("sha256", data, { key, padding: 6, saltLength: 20 }, signature)).toBe(false);
  });

  test("each call returns its own bytes (the shared buffer is never handed out)", async () => {
    const { jwk } = await rsa_key("RS256");
    const sign = openssl_rsa_signer(jwk, "RS256")!;
    const first = sign(Buffer.from("a"));
    const copy = Buffer.from(first);
    sign(Buffer.from("b"));
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });

  test("make_signer uses it for RS256 and PS256 (synchronous), and jose verifies the JWTs", async () => {
    for (const alg of ["RS256", "PS256"] as const) {
      const { jwk, publicKey } = await rsa_key(alg);
      const signer = await make_signer(alg, "kid-1", { ...jwk, kid: "kid-1", alg, use: "sig" });
      const token = signer({ sub: "alice", n: "é✓" }, "JWT");
      expect(typeof token).toBe("string");
      const { payload, protectedHeader } = await jwtVerify(token as string, publicKey, { algorithms: [alg] });
      expect(protectedHeader).toEqual({ alg, kid: "kid-1", typ: "JWT" });
      expect(payload.n).toBe("é✓");
    }
  });

  test("many concurrent async callers sharing one signer all get valid signatures", async () => {
    const rs = await rsa_key("RS256");
    const ps = await rsa_key("PS256");
    const signers = { RS256: await make_signer("RS256", "rs", rs.jwk), PS256: await make_signer("PS256", "ps", ps.jwk) };
    const tokens = await Promise.all(
      Array.from({ length: 256 }, async (_, i) => {
        const alg = i % 2 === 0 ? "RS256" : "PS256";
        await new Promise((resolve) => setTimeout(resolve, i % 7));
        return { alg, i, token: await signers[alg]({ i }, "JWT") } as const;
      }),
    );
    for (const { alg, i, token } of tokens) {
      const { payload } = await jwtVerify(token, alg === "RS256" ? rs.publicKey : ps.publicKey, { algorithms: [alg] });
      expect(payload.i).toBe(i);
    }
  });

  test("signing 50,000 times keeps RSS bounded (nothing is kept per call)", async () => {
    const { jwk } = await rsa_key("RS256");
    const sign = openssl_rsa_signer(jwk, "PS256")!;
    const data = Buffer.from(`${b64('{"alg":"PS256"}')}.${b64(JSON.stringify({ sub: "x".repeat(300) }))}`);
    for (let i = 0; i < 2_000; i++) sign(data);
    Bun.gc(true);
    const before = process.memoryUsage.rss();
    for (let i = 0; i < 50_000; i++) sign(data);
    Bun.gc(true);
    const growth = process.memoryUsage.rss() - before;
    // A leaked EVP_MD_CTX + EVP_PKEY_CTX per call would be > 1 KiB a call, i.e. > 50 MiB here.
    expect(growth).toBeLessThan(24 * 1024 * 1024);
  }, 180_000);
});

describe("falls back to WebCrypto", () => {
  test("IDP_OPENSSL=off: config `openssl` is false, openssl_rsa_signer returns null and make_signer signs through WebCrypto (a Promise)", async () => {
    expect(load_config({}).openssl).toBe(true);
    const { openssl } = load_config({ IDP_OPENSSL: "off" });
    expect(openssl).toBe(false);
    const { jwk, publicKey } = await rsa_key("RS256");
    expect(openssl_rsa_signer(jwk, "RS256", { enabled: openssl })).toBeNull();
    const signer = await make_signer("RS256", "kid-off", jwk, { openssl });
    const result = signer({ sub: "alice" }, "JWT");
    expect(result).toBeInstanceOf(Promise);
    expect((await jwtVerify(await result, publicKey, { algorithms: ["RS256"] })).payload.sub).toBe("alice");
  });

  test("a missing library, or a library that is not OpenSSL 3, gives null", async () => {
    const { jwk } = await rsa_key("PS256");
    expect(openssl_rsa_signer(jwk, "PS256", { library: ["libcrypto-missing.so.99"] })).toBeNull();
    const libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"].filter(existsSync);
    if (libc.length > 0) expect(openssl_rsa_signer(jwk, "PS256", { library: libc })).toBeNull();
  });

  test.skipIf(!available)("a key that is not RSA, or not a private key, gives null", async () => {
    const ec = await generateKeyPair("ES256", { extractable: true });
    expect(openssl_rsa_signer((await exportJWK(ec.privateKey)) as JsonObject, "RS256")).toBeNull();
    const { publicKey } = await rsa_key("RS256");
    expect(openssl_rsa_signer((await exportJWK(publicKey)) as JsonObject, "RS256")).toBeNull();
  });
});
