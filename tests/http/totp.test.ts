/**
 * Two-step verification primitives: RFC 6238 codes (the RFC's own test vectors), ±1 step drift,
 * no second use of a code (RFC 6238 §5.2), recovery codes used once, the otpauth URI and its QR
 * code, and which acr_values require two factors.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { acr_claim, needs_second_factor, requires_two_factors } from "../../src/oidc/signin/methods.ts";
import { load_config } from "../../src/app/config.ts";
import type { Provider } from "../../src/oidc/provider.ts";
import { qr_data_url } from "../../src/http/pages/qr.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store, UserRow } from "../../src/store/types.ts";
import {
  grouped_secret,
  issue_recovery_codes,
  match_totp,
  new_recovery_codes,
  new_totp_secret,
  totp_code,
  totp_key_uri,
  totp_step,
  use_recovery_code,
  verify_totp,
} from "../../src/oidc/signin/totp.ts";

// RFC 6238 Appendix B: the SHA-1 seed is the ASCII "12345678901234567890".
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

let store: Store;
let now = 1_700_000_000;
let idp: Provider;
let user: UserRow;
let other: UserRow;

beforeAll(async () => {
  store = await open_store("sqlite::memory:", { migrate: true });
  const config = load_config({}, { issuer: "http://127.0.0.1:1", database_url: "sqlite::memory:" });
  idp = { store, config, now: () => now } as unknown as Provider;
  user = await store.create_user({ username: "tia", password_hash: "x", totp_secret: RFC_SECRET, totp_enabled_at: now });
  other = await store.create_user({ username: "uma", password_hash: "x" });
});
afterAll(() => store.close());

describe("RFC 6238 codes", () => {
  test("Appendix B test vectors (SHA-1), six digits: the last six of the RFC's eight", () => {
    const vectors: [number, string][] = [
      [59, "94287082"],
      [1111111109, "07081804"],
      [1111111111, "14050471"],
      [1234567890, "89005924"],
      [2000000000, "69279037"],
      [20000000000, "65353130"],
    ];
    for (const [time, eight] of vectors) expect(totp_code(RFC_SECRET, totp_step(time))).toBe(eight.slice(2));
  });

  test("a new secret is 160 bits of base32; shown in groups of four", () => {
    const secret = new_totp_secret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(new_totp_secret()).not.toBe(secret);
    expect(grouped_secret("ABCDEFGHIJ")).toBe("ABCD EFGH IJ");
  });

  test("the key URI names the issuer and account and carries the secret, period 30 and 6 digits", () => {
    const uri = new URL(totp_key_uri("id.example.com", "tia", RFC_SECRET));
    expect(uri.protocol).toBe("otpauth:");
    expect(decodeURIComponent(uri.pathname)).toContain("id.example.com:tia");
    expect(uri.searchParams.get("secret")).toBe(RFC_SECRET);
    expect(uri.searchParams.get("issuer")).toBe("id.example.com");
    expect(uri.searchParams.get("period")).toBe("30");
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(uri.searchParams.get("algorithm")).toBe("SHA1");
  });

  test("the QR code is a local SVG image in a data: URL", () => {
    const url = qr_data_url(totp_key_uri("id.example.com", "tia", RFC_SECRET));
    expect(url.startsWith("data:image/svg+xml;base64,")).toBe(true);
    const svg = Buffer.from(url.slice(url.indexOf(",") + 1), "base64").toString("utf8");
    expect(svg).toStartWith("<svg");
    expect(svg).toContain("<path");
  });
});

describe("checking a code", () => {
  test("±1 step of drift is accepted (RFC 6238 §5.2), two steps are not", () => {
    const step = totp_step(now);
    for (const offset of [-1, 0, 1]) expect(match_totp(RFC_SECRET, totp_code(RFC_SECRET, step + offset), now)).toBe(step + offset);
    for (const offset of [-2, 2]) expect(match_totp(RFC_SECRET, totp_code(RFC_SECRET, step + offset), now)).toBeNull();
  });

  test("spaces and dashes are ignored; anything but six digits is wrong", () => {
    const code = totp_code(RFC_SECRET, totp_step(now));
    expect(match_totp(RFC_SECRET, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toBe(totp_step(now));
    expect(match_totp(RFC_SECRET, `${code.slice(0, 3)}-${code.slice(3)}`, now)).toBe(totp_step(now));
    for (const bad of ["", "12345", "1234567", "abcdef", `${code}0`]) expect(match_totp(RFC_SECRET, bad, now)).toBeNull();
  });

  test("a wrong code is wrong", async () => {
    const right = totp_code(RFC_SECRET, totp_step(now));
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    expect(await verify_totp(idp, user.id, RFC_SECRET, wrong)).toBe("wrong");
  });

  test("a code is accepted once: the same code again, even a step later, is refused (RFC 6238 §5.2)", async () => {
    now += 300;
    const code = totp_code(RFC_SECRET, totp_step(now));
    expect(await verify_totp(idp, user.id, RFC_SECRET, code)).toBe("ok");
    expect(await verify_totp(idp, user.id, RFC_SECRET, code)).toBe("reused");
    now += 30;
    expect(await verify_totp(idp, user.id, RFC_SECRET, code)).toBe("reused");
    // The next step's code is a new one.
    expect(await verify_totp(idp, user.id, RFC_SECRET, totp_code(RFC_SECRET, totp_step(now)))).toBe("ok");
    // Another user with the same secret is not affected by this user's claims.
    expect(await verify_totp(idp, other.id, RFC_SECRET, code)).toBe("ok");
  });
});

describe("recovery codes", () => {
  test("ten codes of ten characters, all different", () => {
    const codes = new_recovery_codes();
    expect(codes.length).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(new Set(codes).size).toBe(10);
  });

  test("each works once, typed in any case with or without the dash; stored only hashed", async () => {
    const codes = await issue_recovery_codes(idp, user.id);
    expect(await store.count_recovery_codes(user.id)).toBe(10);
    expect(await use_recovery_code(idp, user.id, codes[0]!)).toBe(true);
    expect(await use_recovery_code(idp, user.id, codes[0]!)).toBe(false);
    expect(await use_recovery_code(idp, user.id, ` ${codes[1]!.toUpperCase().replace("-", " ")} `)).toBe(true);
    expect(await store.count_recovery_codes(user.id)).toBe(8);
    // Not another user's, not garbage.
    expect(await use_recovery_code(idp, other.id, codes[2]!)).toBe(false);
    expect(await use_recovery_code(idp, user.id, "aaaaa-aaaaa")).toBe(false);
    expect(await use_recovery_code(idp, user.id, "")).toBe(false);
  });

  test("new codes replace the old ones", async () => {
    const old = await issue_recovery_codes(idp, user.id);
    const fresh = await issue_recovery_codes(idp, user.id);
    expect(await use_recovery_code(idp, user.id, old[0]!)).toBe(false);
    expect(await use_recovery_code(idp, user.id, fresh[0]!)).toBe(true);
  });
});

describe("acr_values", () => {
  test("two factors are required only when every known value asks for them", () => {
    expect(requires_two_factors(["mfa"])).toBe(true);
    expect(requires_two_factors(["urn:other", "mfa"])).toBe(true);
    expect(requires_two_factors(["mfa", "pwd"])).toBe(false);
    expect(requires_two_factors(["pwd"])).toBe(false);
    expect(requires_two_factors(["urn:other"])).toBe(false);
    expect(requires_two_factors([])).toBe(false);
  });

  test("a password session must step up for mfa; acr is only claimed when asked for", () => {
    expect(needs_second_factor(["mfa"], ["pwd"])).toBe(true);
    expect(needs_second_factor(["mfa"], ["pwd", "otp"])).toBe(false);
    expect(needs_second_factor([], ["pwd"])).toBe(false);
    expect(acr_claim([], ["pwd", "otp"])).toBeNull();
    expect(acr_claim(["mfa", "pwd"], ["pwd"])).toBe("pwd");
    expect(acr_claim(["mfa"], ["pwd", "otp"])).toBe("mfa");
  });
});
