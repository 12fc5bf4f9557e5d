/**
 * The account page asks for the current password before a change; for a user whose hash was
 * imported from another provider (crypto/foreign_hashes.ts) and who has not signed in with a
 * password since, that question takes the same check as signing in (signin/password.ts
 * confirm_password): a wrong password is refused and changes nothing, the right one passes and
 * the hash becomes argon2id, audited once.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, account_login, account_page } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

// python3: hashlib.pbkdf2_hmac("sha256", b"correct horse", b"saltsaltsaltsalt", 27500, 64).
const PBKDF2_SHA256 = "$pbkdf2-sha256$i=27500$c2FsdHNhbHRzYWx0c2FsdA$eAA4hxO3phBzs5xL0cbw/QNMYgcXgmgYB5i1VB4SaJoX2bCyrIxrozK24K+x+NAS18K0E9YZ150biARaSSoFZQ";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { account_self_delete: true } });
});
afterAll(() => t.stop());

/** A signed-in browser of a user whose stored hash is then the imported one (as if they had signed in with a passkey or an upstream). */
async function imported_user(username: string): Promise<{ browser: Browser; id: string }> {
  const user = await t.add_user({ username }, "temporary password 1");
  const browser = new Browser();
  expect((await account_login(t, browser, username, "temporary password 1")).status).toBe(303);
  await t.store.update_user(user.id, { password_hash: PBKDF2_SHA256 });
  return { browser, id: user.id };
}

describe("account page with an imported password hash", () => {
  test("password change: a wrong current password is refused and keeps the hash; the imported one is accepted", async () => {
    const { browser, id } = await imported_user("imported1");
    const change = async (current_password: string) => {
      const { csrf } = await account_page(t, browser);
      return browser.post(`${t.url}/account/password`, { csrf, current_password, new_password: "brand new password 2", confirm_password: "brand new password 2" });
    };
    const wrong = await change("correct horsf");
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Your current password is not right.");
    expect((await t.store.get_user_by_id(id))!.password_hash).toBe(PBKDF2_SHA256);

    const right = await change("correct horse");
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe(`${t.issuer}/account?done=password`);
    expect((await t.store.get_user_by_id(id))!.password_hash).toStartWith("$argon2id$");
    expect((await account_login(t, new Browser(), "imported1", "brand new password 2")).status).toBe(303);
    const rehashed = await t.store.list_audit_events({ type: "password_rehashed", user_id: id });
    expect(rehashed.map((e) => e.details?.from)).toEqual(["pbkdf2-sha256"]);
  });

  test("account deletion confirms the imported password the same way", async () => {
    const { browser, id } = await imported_user("imported2");
    const { csrf } = await account_page(t, browser);
    const wrong = await browser.post(`${t.url}/account/delete`, { csrf, current_password: "nope", understood: "yes" });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Your password is not right.");
    expect(await t.store.get_user_by_id(id)).not.toBeNull();
    const done = await browser.post(`${t.url}/account/delete`, { csrf, current_password: "correct horse", understood: "yes" });
    expect(done.status).toBe(200);
    expect(await t.store.get_user_by_id(id)).toBeNull();
  });
});
