import { describe, expect, spyOn, test } from "../helpers/test_api.ts";
import { createHash } from "node:crypto";
import { sha512 } from "@oslojs/crypto/sha2";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import { at_hash, c_hash } from "../../src/oidc/crypto/hashes.ts";
import { argon2_impl, hash_password, verify_password, verify_password_or_dummy } from "../../src/platform/passwords.ts";
import { constant_time_equal, grant_id, random_id, random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { setTimeout as sleep } from "node:timers/promises";

describe("secrets", () => {
  test("random_token is 256-bit base64url without padding by default", () => {
    const token = random_token();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(random_token(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(Array.from({ length: 100 }, () => random_token())).size).toBe(100);
  });

  test("random_token refuses sizes too small to be a secret", () => {
    expect(() => random_token(8)).toThrow(RangeError);
    expect(() => random_token(1.5)).toThrow(RangeError);
  });

  test("sha256 is base64url of SHA-256 (FIPS 180-2 'abc' vector)", () => {
    // ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad
    expect(sha256("abc")).toBe("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    expect(sha256("")).toBe("47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  });

  test("sha256 hashes the UTF-8 bytes, as node:crypto does (stored hashes stay valid)", () => {
    // Non-ASCII and lone surrogates (encoded as U+FFFD): a client secret or cookie could hold either.
    for (const value of ["é€𝄞", "\ud800x", "x\udfff", "a\u0000b", "a".repeat(300)]) {
      expect(sha256(value)).toBe(createHash("sha256").update(value, "utf8").digest("base64url"));
    }
  });

  test("random_token encodes like base64url without padding", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => 255 - i * 7);
    const spy = spyOn(crypto, "getRandomValues").mockImplementation(((target: Uint8Array) => (target.set(bytes), target)) as typeof crypto.getRandomValues);
    try {
      expect(random_token(32)).toBe(encodeBase64urlNoPadding(bytes));
    } finally {
      spy.mockRestore();
    }
  });

  test("constant_time_equal", () => {
    expect(constant_time_equal("secret", "secret")).toBe(true);
    expect(constant_time_equal("", "")).toBe(true);
    expect(constant_time_equal("secret", "secreT")).toBe(false);
    expect(constant_time_equal("secret", "secret2")).toBe(false);
    expect(constant_time_equal("secret", "")).toBe(false);
    expect(constant_time_equal("é", "e\u0301")).toBe(false);
    expect(constant_time_equal("é", "é")).toBe(true);
    // Compared as UTF-8 bytes: "é" (2 bytes) and "ab" (2 bytes) have the same length, not the same bytes.
    expect(constant_time_equal("é", "ab")).toBe(false);
    const token = random_token();
    expect(constant_time_equal(sha256(token), sha256(token))).toBe(true);
  });

  test("grant_id is a v7 UUID: unique, and later ids sort after earlier ones (index locality)", async () => {
    const first = grant_id();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // RFC 9562 §5.7: the first 48 bits are the Unix time in milliseconds.
    expect(Math.abs(Number.parseInt(first.replace("-", "").slice(0, 12), 16) - Date.now())).toBeLessThan(5_000);
    const ids = Array.from({ length: 1000 }, () => grant_id());
    expect(new Set(ids).size).toBe(1000);
    await sleep(2);
    const later = grant_id();
    for (const id of ids) expect(id < later).toBe(true);
  });

  test("random_id is a v4 UUID", () => {
    expect(random_id()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("at_hash / c_hash (OIDC Core §3.1.3.6, §3.3.2.11)", () => {
  test("known answers from the OIDC Core Appendix A examples (RS256)", () => {
    expect(at_hash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", "RS256")).toBe("77QmUPtjPfzWtF2AnpK9RQ");
    expect(c_hash("Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk", "RS256")).toBe("LDktKdoQak3Pk0cnXxCltA");
  });

  test("PS256 and ES256 use SHA-256 like RS256", () => {
    const token = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y";
    expect(at_hash(token, "PS256")).toBe("77QmUPtjPfzWtF2AnpK9RQ");
    expect(at_hash(token, "ES256")).toBe("77QmUPtjPfzWtF2AnpK9RQ");
  });

  test("EdDSA (Ed25519) uses the left half of SHA-512, checked against @oslojs/crypto", () => {
    const token = random_token();
    const reference = encodeBase64urlNoPadding(sha512(new TextEncoder().encode(token)).slice(0, 32));
    expect(at_hash(token, "EdDSA")).toBe(reference);
    expect(at_hash(token, "EdDSA")).toHaveLength(43);
  });
});

describe("passwords (argon2id)", () => {
  // Small parameters keep the suite fast; production uses the config defaults (19456 KiB, t=2).
  const params = { memory_kib: 1024, time_cost: 1 };

  test("hash is argon2id with the configured parameters and verifies", async () => {
    const hash = await hash_password("correct horse", params);
    expect(hash).toStartWith("$argon2id$v=19$m=1024,t=1,");
    expect(await verify_password("correct horse", hash)).toBe(true);
    expect(await verify_password("wrong horse", hash)).toBe(false);
  });

  test("two hashes of one password differ (random salt)", async () => {
    expect(await hash_password("pw", params)).not.toBe(await hash_password("pw", params));
  });

  test("a malformed stored hash is a failed verification, not an exception", async () => {
    expect(await verify_password("pw", "not-a-hash")).toBe(false);
  });

  test("unknown user: verify_password_or_dummy returns false after a real argon2id verification", async () => {
    const verify = spyOn(argon2_impl, "verify");
    try {
      expect(await verify_password_or_dummy("anything", null, params)).toBe(false);
      expect(await verify_password_or_dummy("", null, params)).toBe(false);
      // The same work as a known user: one argon2id verification with the same parameters.
      expect(verify).toHaveBeenCalledTimes(2);
      expect(String(verify.mock.calls[0]?.[1])).toStartWith("$argon2id$v=19$m=1024,t=1,p=1$");
    } finally {
      verify.mockRestore();
    }
  });

  test("known user: verify_password_or_dummy checks the stored hash", async () => {
    const hash = await hash_password("pw", params);
    expect(await verify_password_or_dummy("pw", hash, params)).toBe(true);
    expect(await verify_password_or_dummy("nope", hash, params)).toBe(false);
  });
});
