/**
 * Password resets and the ways in an account has besides its password, through real HTTP with
 * real mail (tests/helpers/smtp.ts) and a software passkey (tests/helpers/webauthn.ts):
 * - a reset that proves an address never verified hands the account to the address's owner: the
 *   passkeys, authenticator app, recovery codes, linked upstream accounts and pending links of
 *   whoever made the account go (account pre-hijacking; oidc/accounts/reclaim.ts);
 * - a reset of a verified account with a passkey must prove it (oidc/accounts/password_reset.ts
 *   `reset_needs_second_factor`), with the options of /password/reset/passkey/options.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { settle_password_reset_requests } from "../../src/oidc/accounts/password_reset.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { new_totp_secret, totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { verify_password } from "../../src/platform/passwords.ts";
import type { UserRow } from "../../src/store/types.ts";
import { account_page, browser_from, form_action, hidden_field, type Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";
import { SoftAuthenticator } from "../helpers/webauthn.ts";

let t: TestProvider;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await start_smtp();
  // Open sign-up without verification: anyone can make an account with anyone's address.
  // "localhost": a WebAuthn RP ID cannot be an IP address. trust_proxy: each browser speaks from its own address.
  t = await start_provider({
    issuer_host: "localhost",
    config: { smtp_url: smtp.url, mail_from: "idp@example.com", trust_proxy: true, signup: { mode: "open", require_verification: false } },
  });
});
afterAll(async () => {
  await t.stop();
  await smtp.stop();
});

const local = (url: string) => url.replace(t.issuer, t.url);
const NEW_PASSWORD = "the rightful owner's phrase";

/** Forgot password for `identifier`, then the reset page of the link mailed to `to`: its HTML and form fields. */
async function reset_page(browser: Browser, identifier: string, to: string): Promise<{ html: string; csrf: string; token: string; status: number; csp: string | null }> {
  const forgot = await (await browser.get(`${t.url}/password/forgot`)).text();
  expect((await browser.post(`${t.url}/password/forgot`, { csrf: hidden_field(forgot, "csrf")!, identifier })).status).toBe(200);
  await settle_password_reset_requests();
  const mail = await smtp.wait_for(to, (m) => m.subject.startsWith("Reset your password"));
  const page = await browser.get(local(smtp.link(mail, `${t.issuer}/password/reset?`)));
  const html = await page.text();
  return { html, csrf: hidden_field(html, "csrf")!, token: hidden_field(html, "token")!, status: page.status, csp: page.headers.get("content-security-policy") };
}

/** Posts the reset form with the new password and `fields`. */
function post_reset(browser: Browser, page: { csrf: string; token: string }, fields: Record<string, string> = {}): Promise<Response> {
  return browser.post(`${t.url}/password/reset`, { csrf: page.csrf, token: page.token, new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD, ...fields });
}

/** The options of a reset's passkey ceremony, as the page's script asks for them. */
async function reset_passkey_options(browser: Browser, page: { csrf: string; token: string }): Promise<Response> {
  return browser.post(`${t.url}/password/reset/passkey/options`, { csrf: page.csrf, token: page.token });
}

/** Signs in to the account page with `key` alone (no password), as the sign-in page's script does. */
async function passkey_sign_in(key: SoftAuthenticator, user_id: string): Promise<Response> {
  const browser = browser_from();
  const login = await (await browser.get(`${t.url}/account/login`)).text();
  const csrf = hidden_field(login, "csrf")!;
  const options = (await (await browser.post(`${t.url}/account/login/passkey/options`, { csrf })).json()) as { challenge: string };
  return browser.post(`${t.url}/account/login/passkey`, { csrf, response: key.assert(options, user_id) });
}

async function password_is(user: UserRow, password: string): Promise<boolean> {
  return verify_password(password, (await t.store.get_user_by_id(user.id))!.password_hash);
}

describe("a reset that proves an address never verified hands the account over", () => {
  test("the earlier holder's passkey, app, recovery codes, linked account and pending e-mail change go; page, mail and audit say so", async () => {
    // The squatter signs up with the victim's address (unverified: nothing checks it) ...
    const squatter = browser_from();
    const signup = await (await squatter.get(`${t.url}/signup`)).text();
    const password = "a phrase of the first holder";
    const made = await squatter.post(local(form_action(signup)!), {
      csrf: hidden_field(signup, "csrf")!,
      username: "squatter",
      email: "victim@example.net",
      name: "",
      password,
      confirm_password: password,
    });
    expect(made.status).toBe(303);
    const user = (await t.store.get_user_by_username("squatter"))!;
    expect(user).toMatchObject({ status: "active", email_verified: false });

    // ... adds a passkey on the account page (which signs in without the password) ...
    const key = new SoftAuthenticator(t.issuer);
    const { csrf } = await account_page(t, squatter);
    const creation = (await (await squatter.post(`${t.url}/account/passkeys/options`, { csrf, password })).json()) as { challenge: string };
    const added = await squatter.post(`${t.url}/account/passkeys`, { csrf, action: "register", name: "Squatter's key", response: key.register(creation) });
    expect(added.status).toBe(303);
    expect(await t.store.count_passkeys_for_user(user.id)).toBe(1);
    // ... an authenticator app with recovery codes, a linked upstream account ...
    const secret = new_totp_secret();
    await t.store.update_user(user.id, { totp_secret: secret, totp_enabled_at: t.clock.now() });
    await t.store.set_recovery_codes(user.id, [sha256("abcde-fghij"), sha256("klmno-pqrst")]);
    await t.store.create_upstream(new_upstream(t.config, { name: "corp", issuer: "https://sso.example.com", client_id: "our-idp" }));
    await t.store.link_identity({
      upstream: "corp",
      subject: "squatter-at-corp",
      user_id: user.id,
      email: "squatter@evil.example",
      issuer: "https://sso.example.com",
      subject_claim: "sub",
    });
    // ... and asks to move the account to their own address (the link waits in their mailbox).
    const moved = await squatter.post(`${t.url}/account/email`, { csrf, new_email: "squatter@evil.example", current_password: password });
    expect(moved.status).toBe(303);
    const change_mail = await smtp.wait_for("squatter@evil.example", (m) => m.subject.includes("Confirm"));
    const change_link = local(smtp.link(change_mail, `${t.issuer}/email/confirm?`));

    // The owner of victim@example.net uses "Forgot password?": no second factor is asked for.
    const owner = browser_from();
    const page = await reset_page(owner, "victim@example.net", "victim@example.net");
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('name="code"');
    expect(page.html).not.toContain("data-passkey-start");
    const done = await post_reset(owner, page);
    expect(done.status).toBe(200);
    const html = await done.text();
    expect(html).toContain("Your password was changed");
    expect(html).toContain(
      "This reset confirmed your e-mail address for the first time, so the passkeys, authenticator app and linked accounts added to the account before it were removed",
    );

    const after = (await t.store.get_user_by_id(user.id))!;
    expect(after).toMatchObject({ email_verified: true, totp_secret: null, totp_enabled_at: null, email: "victim@example.net" });
    expect(await password_is(user, NEW_PASSWORD)).toBe(true);
    expect(await t.store.count_passkeys_for_user(user.id)).toBe(0);
    expect(await t.store.count_recovery_codes(user.id)).toBe(0);
    expect(await t.store.list_identities_for_user(user.id)).toEqual([]);

    // None of the squatter's ways in works any more: the passkey, the session, the e-mail change.
    const refused = await passkey_sign_in(key, user.id);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("This passkey is not registered for an account here");
    expect((await squatter.get(`${t.url}/account`)).status).toBe(302);
    const change_page = await squatter.get(change_link);
    expect(change_page.status).toBe(400);
    expect((await t.store.get_user_by_id(user.id))!.email).toBe("victim@example.net");

    const notice = await smtp.wait_for("victim@example.net", (m) => m.subject.includes("was changed"));
    expect(notice.text).toContain("This reset also confirmed your e-mail address for the first time.");
    expect(notice.html).toContain("its passkeys, authenticator app, recovery codes and linked accounts were removed");
    // Two links voided: the e-mail change, and the confirmation link the sign-up mailed.
    const [event] = await t.store.list_audit_events({ user_id: user.id, type: "account_reclaimed" });
    expect(event).toMatchObject({
      outcome: "success",
      details: { reason: "address_proven_by_reset", totp_removed: true, recovery_codes_removed: 2, passkeys_removed: 1, identities_removed: 1, links_voided: 2 },
    });
    expect((await t.store.list_audit_events({ user_id: user.id, type: "password_reset" }))[0]!.details).toMatchObject({ reclaimed: true });
  });

  test("an account whose address was verified keeps its app and passkeys through a reset; nothing is said about them", async () => {
    const user = await t.add_user({ username: "keeper", email: "keeper@example.net", email_verified: true });
    const secret = new_totp_secret();
    await t.store.update_user(user.id, { totp_secret: secret, totp_enabled_at: t.clock.now() });
    const key = new SoftAuthenticator(t.issuer);
    await t.store.create_passkey(key.passkey(user.id));
    const browser = browser_from();
    const page = await reset_page(browser, "keeper", "keeper@example.net");
    const done = await post_reset(browser, page, { code: totp_code(secret, totp_step(t.clock.now())) });
    expect(done.status).toBe(200);
    expect(await done.text()).not.toContain("were removed");
    expect((await t.store.get_user_by_id(user.id))!.totp_secret).toBe(secret);
    expect(await t.store.count_passkeys_for_user(user.id)).toBe(1);
    expect(await t.store.list_audit_events({ user_id: user.id, type: "account_reclaimed" })).toEqual([]);
    const notice = await smtp.wait_for("keeper@example.net", (m) => m.subject.includes("was changed"));
    expect(notice.text).not.toContain("confirmed your e-mail address");
  });
});

describe("a verified account with a passkey proves it to reset its password", () => {
  test("without the passkey, or with another account's, the reset is refused; with its own it goes through", async () => {
    const user = await t.add_user({ username: "keyholder", email: "keyholder@example.net", email_verified: true });
    const key = new SoftAuthenticator(t.issuer);
    await t.store.create_passkey(key.passkey(user.id));
    const stranger = await t.add_user({ username: "stranger", email: "stranger@example.net", email_verified: true });
    const other_key = new SoftAuthenticator(t.issuer);
    await t.store.create_passkey(other_key.passkey(stranger.id));

    const browser = browser_from();
    const page = await reset_page(browser, "keyholder", "keyholder@example.net");
    expect(page.status).toBe(200);
    // The page runs the passkey ceremony (our scripts, allowed by its CSP); no code is asked for.
    expect(page.html).toContain(`id="passkey-form" data-options="${t.issuer}/password/reset/passkey/options"`);
    expect(page.html).toContain("Change password with a passkey");
    expect(page.html).toContain(`<script src="${t.issuer}/static/passkeys.js" defer></script>`);
    expect(page.csp).toContain("script-src 'self'");
    expect(page.html).not.toContain('name="code"');

    // The link alone is not enough.
    const bare = await post_reset(browser, page);
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain("Confirm the change with your passkey.");
    expect(await password_is(user, NEW_PASSWORD)).toBe(false);

    // The options need this page's form token; they list the account's passkey.
    expect((await browser.post(`${t.url}/password/reset/passkey/options`, { csrf: "forged", token: page.token })).status).toBe(403);
    const answer = await reset_passkey_options(browser, page);
    expect(answer.status).toBe(200);
    const options = (await answer.json()) as { challenge: string; rpId: string; allowCredentials: { id: string }[]; userVerification: string };
    expect(options.rpId).toBe("localhost");
    expect(options.allowCredentials.map((c) => c.id)).toEqual([key.credential_id]);

    // Another account's passkey does not prove this one.
    const wrong = await post_reset(browser, page, { response: other_key.assert(options, stranger.id) });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("This passkey is not registered for an account here");
    expect(await password_is(user, NEW_PASSWORD)).toBe(false);

    // Its own passkey does, once: the challenge was for this link and is used up.
    const fresh = (await (await reset_passkey_options(browser, page)).json()) as { challenge: string };
    const response = key.assert(fresh, user.id);
    const done = await post_reset(browser, page, { response });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Your password was changed");
    expect(await password_is(user, NEW_PASSWORD)).toBe(true);
    expect(await t.store.count_passkeys_for_user(user.id)).toBe(1);
    const factor = await t.store.list_audit_events({ user_id: user.id, type: "two_factor" });
    expect(factor[0]).toMatchObject({ outcome: "success", details: { method: "passkey", for: "password_reset" } });
  });

  test("with an app and a passkey, the page offers both and a code still does", async () => {
    const user = await t.add_user({ username: "both", email: "both@example.net", email_verified: true });
    const secret = new_totp_secret();
    await t.store.update_user(user.id, { totp_secret: secret, totp_enabled_at: t.clock.now() });
    await t.store.create_passkey(new SoftAuthenticator(t.issuer).passkey(user.id));
    const browser = browser_from();
    const page = await reset_page(browser, "both", "both@example.net");
    expect(page.html).toContain('name="code"');
    expect(page.html).toContain("data-passkey-start");
    const missing = await post_reset(browser, page);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("Enter the code from your authenticator app or a recovery code, or use your passkey.");
    expect((await post_reset(browser, page, { code: totp_code(secret, totp_step(t.clock.now())) })).status).toBe(200);
    expect(await password_is(user, NEW_PASSWORD)).toBe(true);
  });
});
