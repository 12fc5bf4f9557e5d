/**
 * The format of codes and tokens (crypto/secrets.ts ordered_secret, secret_key): 12 hex digits
 * of the issue time, then 32 random bytes in base64url, stored under the time prefix and the
 * SHA-256 of the whole value. Codes and tokens issued before that format (43 characters, stored
 * as their plain SHA-256) keep working until they expire.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { is_issued_secret, ordered_secret, random_token, secret_key, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { redeem, userinfo } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { ISSUED_SECRET } from "../helpers/shapes.ts";
import { setTimeout as sleep } from "node:timers/promises";

describe("ordered_secret and secret_key", () => {
  test("a secret is the issue time in hex and 43 random base64url characters", () => {
    const before = Date.now();
    const secret = ordered_secret();
    expect(secret).toMatch(ISSUED_SECRET);
    const issued = Number.parseInt(secret.slice(0, 12), 16);
    expect(issued).toBeGreaterThanOrEqual(before);
    expect(issued).toBeLessThanOrEqual(Date.now());
    expect(new Set(Array.from({ length: 1000 }, ordered_secret)).size).toBe(1000);
  });

  test("its key starts with the time prefix, so keys sort in issue order; the rest is the SHA-256 of the whole", async () => {
    const first = ordered_secret();
    await sleep(2);
    const later = ordered_secret();
    expect(secret_key(first)).toBe(`${first.slice(0, 12)}${sha256(first)}`);
    expect(secret_key(first) < secret_key(later)).toBe(true);
    // The random part is not in the key: only its hash is.
    expect(secret_key(first)).not.toContain(first.slice(12));
  });

  test("a value of any other shape, such as a 43-character secret of the earlier format, is keyed by its plain SHA-256", () => {
    const legacy = random_token(32);
    expect(secret_key(legacy)).toBe(sha256(legacy));
    expect(secret_key("not ours")).toBe(sha256("not ours"));
    // 12 hex digits in front of something that is not 43 base64url characters: no prefix.
    expect(secret_key("0123456789ab" + "x".repeat(42))).toBe(sha256("0123456789ab" + "x".repeat(42)));
  });

  test("is_issued_secret accepts both formats and nothing else (lookups skip the rest unhashed)", () => {
    expect(is_issued_secret(ordered_secret())).toBe(true);
    expect(is_issued_secret(random_token(32))).toBe(true);
    for (const other of ["", "not ours", random_token(16), `${ordered_secret()}x`, `ABCDEF012345${random_token(32)}`]) expect(is_issued_secret(other)).toBe(false);
  });
});

describe("codes and tokens of the earlier format still work after an upgrade", () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider();
  });
  afterAll(() => t.stop());

  test("a 43-character access token stored as its SHA-256 is accepted at /userinfo", async () => {
    const legacy = random_token(32);
    await t.store.insert_token({
      token_hash: sha256(legacy),
      kind: "access",
      client_id: t.client.client_id,
      user_id: t.user.id,
      scope: "openid",
      grant_id: "legacy-grant",
      expires_at: t.clock.now() + 3600,
    });
    const response = await userinfo(t, legacy);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { sub: string }).sub).toBe(t.user.id);
  });

  test("a 43-character code stored as its SHA-256 is redeemed once, for tokens of the new format", async () => {
    const legacy = random_token(32);
    const now = t.clock.now();
    await t.store.insert_code({
      code_hash: sha256(legacy),
      client_id: t.client.client_id,
      user_id: t.user.id,
      redirect_uri: REDIRECT_URI,
      scope: "openid",
      auth_time: now,
      amr: ["pwd"],
      grant_id: "legacy-code-grant",
      created_at: now,
      expires_at: now + 60,
    });
    const response = await redeem(t, legacy, null);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { access_token: string; id_token?: string };
    expect(body.access_token).toMatch(ISSUED_SECRET);
    expect(typeof body.id_token).toBe("string");
    expect((await userinfo(t, body.access_token)).status).toBe(200);
    // Single use, as any code.
    expect((await redeem(t, legacy, null)).status).toBe(400);
  });
});
