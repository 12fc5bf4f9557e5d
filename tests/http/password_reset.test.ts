/**
 * Forgot password, password reset, e-mail verification and the account status at sign-in,
 * through real HTTP against a real server, with the mail delivered to a real SMTP server
 * (tests/helpers/smtp.ts) and the links taken from the received messages.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { settle_password_reset_requests } from "../../src/oidc/accounts/password_reset.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { new_totp_secret, totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { verify_password } from "../../src/platform/passwords.ts";
import type { UserRow } from "../../src/store/types.ts";
import { type Browser, account_login, browser_from, account_page, authorize, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce, token_request } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type ReceivedMail, type TestSmtp } from "../helpers/smtp.ts";
import { setTimeout as sleep } from "node:timers/promises";

let t: TestProvider;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await start_smtp();
  // trust_proxy: each test speaks from its own address (X-Forwarded-For), so the per-address limits of one test do not reach another.
  t = await start_provider({ config: { smtp_url: smtp.url, mail_from: "idp@example.com", trust_proxy: true } });
});
afterAll(async () => {
  await t.stop();
  await smtp.stop();
});

let next_user = 1;
async function new_user(fields: Partial<UserRow> = {}): Promise<UserRow> {
  const n = next_user++;
  return t.add_user({ username: `reset${n}`, email: `reset${n}@example.com`, email_verified: true, name: `Reset ${n}`, ...fields });
}

/** Posts the forgot-password form from `browser`; returns the answer's status and body. */
async function forgot(browser: Browser, identifier: string, query = ""): Promise<{ status: number; body: string }> {
  const page = await browser.get(`${t.url}/password/forgot${query}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const form: Record<string, string> = { csrf: hidden_field(html, "csrf")!, identifier };
  const interaction = hidden_field(html, "interaction");
  if (interaction !== null) form.interaction = interaction;
  const answer = await browser.post(`${t.url}/password/forgot`, form);
  return { status: answer.status, body: await answer.text() };
}

/** The reset link in the next reset mail to `to`. */
async function reset_mail(to: string): Promise<{ mail: ReceivedMail; link: string }> {
  const mail = await smtp.wait_for(to, (m) => m.subject.startsWith("Reset your password"));
  return { mail, link: smtp.link(mail, `${t.issuer}/password/reset?`) };
}

/** Opens a reset link and posts the form with `fields`; returns the answer. */
async function reset(browser: Browser, link: string, fields: Record<string, string>): Promise<Response> {
  const page = await browser.get(link.replace(t.issuer, t.url));
  expect(page.status).toBe(200);
  const html = await page.text();
  return browser.post(`${t.url}/password/reset`, { csrf: hidden_field(html, "csrf")!, token: hidden_field(html, "token")!, ...fields });
}

async function can_sign_in(username: string, password: string): Promise<boolean> {
  const answer = await account_login(t, browser_from(), username, password);
  return answer.status === 303;
}

describe("forgot password", () => {
  test("the sign-in pages link to it; it asks for a username or e-mail address", async () => {
    const browser = browser_from();
    const login = await (await browser.get(`${t.url}/account/login`)).text();
    expect(login).toContain(`href="${t.issuer}/password/forgot">Forgot password?</a>`);
    const page = await browser.get(`${t.url}/password/forgot`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<label for="identifier">Username or e-mail address</label>');
    expect(hidden_field(html, "csrf")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("an unknown account and a known one get the same answer; only the known one gets a mail", async () => {
    const user = await new_user();
    const browser = browser_from();
    const unknown = await forgot(browser, "nobody-at-all@example.com");
    const known = await forgot(browser, user.username);
    expect(known).toEqual(unknown);
    expect(known.status).toBe(200);
    expect(known.body).toContain("Check your e-mail.");
    await settle_password_reset_requests();
    const { mail, link } = await reset_mail(user.email!);
    expect(mail.text).toContain("expires in 30 minutes");
    expect(link).toMatch(new RegExp(`^${t.issuer}/password/reset\\?token=[A-Za-z0-9_-]{43}$`));
    expect(smtp.messages.filter((m) => m.to === user.email || m.to === "nobody-at-all@example.com").length).toBe(1);
    // The token is stored hashed: the link's token is nowhere in the store, its SHA-256 is.
    const token = new URL(link).searchParams.get("token")!;
    expect(await t.store.find_user_token(token, "password_reset", t.clock.now())).toBeNull();
    expect((await t.store.find_user_token(sha256(token), "password_reset", t.clock.now()))?.user_id).toBe(user.id);
    const events = await t.store.list_audit_events({ type: "password_reset_requested" });
    expect(events.some((e) => e.user_id === user.id && e.outcome === "success")).toBe(true);
    expect(events.some((e) => e.user_id === null && e.outcome === "failure" && e.details?.reason === "unknown_account")).toBe(true);
  });

  test("by e-mail address (any case); an empty answer names the field", async () => {
    const user = await new_user();
    const browser = browser_from();
    expect((await forgot(browser, user.email!.toUpperCase())).status).toBe(200);
    await settle_password_reset_requests();
    await reset_mail(user.email!);
    const empty = await forgot(browser, "   ");
    expect(empty.status).toBe(400);
    expect(empty.body).toContain("Username or e-mail address: enter one of them.");
  });

  test("a form without this browser's token is refused", async () => {
    const browser = browser_from();
    await browser.get(`${t.url}/password/forgot`);
    const forged = await browser.post(`${t.url}/password/forgot`, { csrf: "forged", identifier: "alice" });
    expect(forged.status).toBe(403);
  });

  test("the link sets a new password once; the old one and the used link stop working; everything is signed out", async () => {
    const user = await new_user();
    // Signed in to an application in another browser, with a refresh token (offline_access,
    // which outlives the session): a reset ends the session and revokes the token.
    const { client, secret } = await t.add_client({
      client_name: "Offline App",
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
    });
    const auth = { method: "basic" as const, client_id: client.client_id, secret: secret! };
    const elsewhere = browser_from();
    const p = pkce();
    const url = authorization_url(t, { scope: "openid offline_access", prompt: "consent", code_challenge: p.challenge, code_challenge_method: "S256" }, client.client_id);
    const { callback } = await authorize(elsewhere, url, { username: user.username, password: t.password, callback_prefix: REDIRECT_URI });
    const issued = await token_request(
      t,
      { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: p.verifier },
      auth,
    );
    const { refresh_token } = (await issued.json()) as { refresh_token: string };
    expect(refresh_token).toBeString();

    const browser = browser_from();
    await forgot(browser, user.username);
    await settle_password_reset_requests();
    const { link } = await reset_mail(user.email!);
    // Opening the page uses nothing: it can be opened again.
    expect((await browser.get(link.replace(t.issuer, t.url))).status).toBe(200);
    const page = await (await browser.get(link.replace(t.issuer, t.url))).text();
    expect(page).toContain(`for <strong>${user.username}</strong>`);

    const done = await reset(browser, link, { new_password: "a brand new passphrase", confirm_password: "a brand new passphrase" });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Your password was changed");
    expect(await can_sign_in(user.username, "a brand new passphrase")).toBe(true);
    expect(await can_sign_in(user.username, t.password)).toBe(false);

    // Signed out everywhere: the other browser's session ended, the refresh token is refused.
    expect((await elsewhere.get(`${t.url}/account`)).headers.get("location")).toBe(`${t.issuer}/account/login`);
    const refreshed = await token_request(t, { grant_type: "refresh_token", refresh_token }, auth);
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant");
    const changed = await smtp.wait_for(user.email!, (m) => m.subject.includes("was changed"));
    expect(changed.text).toContain("was just changed");
    const audit = await t.store.list_audit_events({ user_id: user.id, type: "password_reset" });
    expect(audit[0]).toMatchObject({ outcome: "success", details: { sessions_ended: 1 } });
    expect(audit[0]!.details!.tokens_revoked).toBeGreaterThanOrEqual(1);

    // The link was used: a second use is refused and changes nothing.
    const again = await browser.get(link.replace(t.issuer, t.url));
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("This password reset link does not work");
    const stored = (await t.store.get_user_by_id(user.id))!;
    expect(await verify_password("a brand new passphrase", stored.password_hash)).toBe(true);
  });

  test("a forged, an expired and an older link give a clear page and change nothing", async () => {
    const user = await new_user();
    const browser = browser_from();
    const forged = await browser.get(`${t.url}/password/reset?token=${"A".repeat(43)}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("The link was already used, has expired, or a newer one was sent since.");
    expect((await browser.get(`${t.url}/password/reset?token=%3Cscript%3E`)).status).toBe(400);
    expect((await browser.get(`${t.url}/password/reset`)).status).toBe(400);

    await forgot(browser, user.username);
    await settle_password_reset_requests();
    const older = (await reset_mail(user.email!)).link;
    await forgot(browser, user.email!);
    await settle_password_reset_requests();
    const newer = (await reset_mail(user.email!)).link;
    expect(newer).not.toBe(older);
    // The newer request voided the older link.
    expect((await browser.get(older.replace(t.issuer, t.url))).status).toBe(400);
    // A form posted with the older token (page opened before the newer request) is refused too.
    const page = await (await browser.get(newer.replace(t.issuer, t.url))).text();
    const stale = await browser.post(`${t.url}/password/reset`, {
      csrf: hidden_field(page, "csrf")!,
      token: new URL(older).searchParams.get("token")!,
      new_password: "another long passphrase",
      confirm_password: "another long passphrase",
    });
    expect(stale.status).toBe(400);

    // Past its lifetime (30 minutes) the newer one is refused as well.
    t.clock.advance(30 * 60 + 1);
    try {
      const expired = await browser.get(newer.replace(t.issuer, t.url));
      expect(expired.status).toBe(400);
      expect(await expired.text()).toContain("has expired");
    } finally {
      t.clock.advance(-(30 * 60 + 1));
    }
    expect(await can_sign_in(user.username, t.password)).toBe(true);
  });

  test("the password policy: too short, common, containing the username, not repeated; the link stays usable", async () => {
    const user = await new_user({ username: "marguerite" });
    const browser = browser_from();
    await forgot(browser, user.username);
    await settle_password_reset_requests();
    const { link } = await reset_mail(user.email!);
    const refused = async (password: string, confirm = password) => {
      const answer = await reset(browser, link, { new_password: password, confirm_password: confirm });
      expect(answer.status).toBe(400);
      return answer.text();
    };
    expect(await refused("short one")).toContain("The password is too short: use at least 10 characters.");
    expect(await refused("Password123")).toContain("one of the most common passwords");
    expect(await refused("I am Marguerite, 1902")).toContain("The password must not be or contain your username.");
    expect(await refused("reset-reset5@example-mail")).not.toContain("Your password was changed");
    expect(await refused("a fine long passphrase", "a fine long passphrase!")).toContain("The two passwords are not the same.");
    // None of these used the link.
    expect((await reset(browser, link, { new_password: "a fine long passphrase", confirm_password: "a fine long passphrase" })).status).toBe(200);
  });

  test("with two-step verification the reset also needs a code or a recovery code", async () => {
    const secret = new_totp_secret();
    const user = await new_user({ totp_secret: secret, totp_enabled_at: t.clock.now() });
    await t.store.set_recovery_codes(user.id, [sha256("abcde-fghij")]);
    const browser = browser_from();
    await forgot(browser, user.username);
    await settle_password_reset_requests();
    const { link } = await reset_mail(user.email!);
    const page = await (await browser.get(link.replace(t.issuer, t.url))).text();
    expect(page).toContain('<label for="code">6-digit code</label>');
    const fields = { new_password: "a totp protected phrase", confirm_password: "a totp protected phrase" };
    const missing = await reset(browser, link, fields);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("Enter the code from your authenticator app, or a recovery code.");
    const wrong = await reset(browser, link, { ...fields, code: "000000" === totp_code(secret, totp_step(t.clock.now())) ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("That code is not right.");
    expect(await can_sign_in(user.username, "a totp protected phrase")).toBe(false);
    const right = await reset(browser, link, { ...fields, code: totp_code(secret, totp_step(t.clock.now())) });
    expect(right.status).toBe(200);
    const stored = (await t.store.get_user_by_id(user.id))!;
    expect(await verify_password("a totp protected phrase", stored.password_hash)).toBe(true);
  });

  test("a password changed on the account page voids the reset links mailed before", async () => {
    const user = await new_user();
    const browser = browser_from();
    await forgot(browser, user.username);
    await settle_password_reset_requests();
    const { link } = await reset_mail(user.email!);
    const account = browser_from();
    expect((await account_login(t, account, user.username, t.password)).status).toBe(303);
    const { csrf } = await account_page(t, account);
    const changed = await account.post(`${t.url}/account/password`, {
      csrf,
      current_password: t.password,
      new_password: "changed on the page",
      confirm_password: "changed on the page",
    });
    expect(changed.status).toBe(303);
    expect((await browser.get(link.replace(t.issuer, t.url))).status).toBe(400);
    await smtp.wait_for(user.email!, (m) => m.subject.includes("was changed"));
  });

  test("requests and reset attempts are limited per address (429); an account gets at most 3 mails per window, silently", async () => {
    const user = await new_user();
    const browser = browser_from();
    const before = smtp.messages.filter((m) => m.to === user.email).length;
    for (let i = 0; i < 5; i++) expect((await forgot(browser, user.username)).status).toBe(200);
    await settle_password_reset_requests();
    for (let i = 0; i < 3; i++) await reset_mail(user.email!);
    await sleep(300);
    expect(smtp.messages.filter((m) => m.to === user.email).length).toBe(before + 3);
    const throttled = await t.store.list_audit_events({ user_id: user.id, type: "password_reset_requested" });
    expect(throttled.filter((e) => e.details?.reason === "throttled").length).toBe(2);

    // 20 requests per address per hour: the 21st is 429 with Retry-After, whoever it names.
    for (let i = 5; i < 20; i++) expect((await forgot(browser, `nobody${i}`)).status).toBe(200);
    const over = await forgot(browser, "nobody-else");
    expect(over.status).toBe(429);
    expect(over.body).toContain("<h1>Too many attempts</h1>");
    expect(over.body).toMatch(/Try again in (60 minutes|1 hour)\./);
    // Another address is not affected.
    expect((await forgot(browser_from(), "nobody")).status).toBe(200);

    // Reset attempts from one address: the link's page answers 429 past the limit too.
    const attempts = browser_from();
    const forged = { csrf: "x", token: "A".repeat(43), new_password: "x", confirm_password: "x" };
    let last = 0;
    for (let i = 0; i < 21; i++) last = (await attempts.post(`${t.url}/password/reset`, forged)).status;
    expect(last).toBe(429);
    await settle_password_reset_requests();
  });
});

describe("accounts that are not active", () => {
  test("a user without a password never signs in with one, and the page is the wrong-password one", async () => {
    await t.store.create_user({ username: "nopass", password_hash: "", status: "invited", email: "nopass@example.com" });
    const browser = browser_from();
    for (const password of ["", "anything at all"]) {
      const answer = await account_login(t, browser, "nopass", password);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain("Wrong username or password.");
    }
  });

  test("invited and disabled accounts are told what to do after the right password (403), and get no session", async () => {
    await new_user({ username: "invitee", status: "invited" });
    await new_user({ username: "gone", status: "disabled" });
    const browser = browser_from();
    const invited = await account_login(t, browser, "invitee", t.password);
    expect(invited.status).toBe(403);
    expect(await invited.text()).toContain("Use your invitation link");
    const disabled = await account_login(t, browser, "gone", t.password);
    expect(disabled.status).toBe(403);
    expect(await disabled.text()).toContain("This account is disabled");
    expect((await browser.get(`${t.url}/account`)).status).toBe(302);
    // A wrong password still gets the ordinary answer: the status is shown only to the owner.
    expect(await (await account_login(t, browser, "gone", "not the password")).text()).toContain("Wrong username or password.");
  });

  test("an unverified account: confirm first, resend (limited), the link confirms and activates, then sign-in works", async () => {
    const user = await new_user({ username: "newbie", email: "newbie@example.com", email_verified: false, status: "unverified" });
    const browser = browser_from();
    const refused = await account_login(t, browser, "newbie", t.password);
    expect(refused.status).toBe(403);
    const html = await refused.text();
    expect(html).toContain("Confirm your e-mail address first");
    const ticket = hidden_field(html, "ticket")!;
    const csrf = hidden_field(html, "csrf")!;
    const sent = await browser.post(`${t.url}/email/verify/resend`, { ticket, csrf });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain("We sent a new confirmation link to newbie@example.com.");
    const mail = await smtp.wait_for("newbie@example.com", (m) => m.subject.startsWith("Confirm your e-mail address"));
    const link = smtp.link(mail, `${t.issuer}/email/verify?`);

    // The ticket is bound to this browser.
    expect((await browser_from().post(`${t.url}/email/verify/resend`, { ticket, csrf })).status).toBe(403);

    // Opening the link confirms nothing (mail scanners); the button does.
    const page = await browser.get(link.replace(t.issuer, t.url));
    expect(page.status).toBe(200);
    const confirm = await page.text();
    expect(confirm).toContain("Confirm that newbie@example.com is the e-mail address of the account newbie.");
    expect((await t.store.get_user_by_id(user.id))?.status).toBe("unverified");
    const done = await browser.post(`${t.url}/email/verify`, { csrf: hidden_field(confirm, "csrf")!, token: hidden_field(confirm, "token")! });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Your e-mail address is confirmed");
    expect(await t.store.get_user_by_id(user.id)).toMatchObject({ status: "active", email_verified: true });
    expect(await can_sign_in("newbie", t.password)).toBe(true);
    // Used once.
    expect((await browser.get(link.replace(t.issuer, t.url))).status).toBe(400);

    // Resending is limited per account: 5 mails per hour, then 429.
    const other = await new_user({ email_verified: false, status: "unverified" });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const b = browser_from();
      const p = await (await account_login(t, b, other.username, t.password)).text();
      statuses.push((await b.post(`${t.url}/email/verify/resend`, { ticket: hidden_field(p, "ticket")!, csrf: hidden_field(p, "csrf")! })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  test("the account page offers a confirmation link for an unverified address; a changed address makes an old link useless", async () => {
    const user = await new_user({ email_verified: false });
    const browser = browser_from();
    expect((await account_login(t, browser, user.username, t.password)).status).toBe(303);
    const { html, csrf } = await account_page(t, browser);
    expect(html).toContain("(not verified)");
    expect(html).toContain("Send a confirmation link");
    const sent = await browser.post(`${t.url}/email/verify/resend`, { csrf });
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe(`${t.issuer}/account?done=verification_sent`);
    const mail = await smtp.wait_for(user.email!, (m) => m.subject.startsWith("Confirm your e-mail address"));
    const link = smtp.link(mail, `${t.issuer}/email/verify?`);

    // The address changes before the link is used: the link proves nothing about the new one.
    await t.store.update_user(user.id, { email: "moved@example.com" });
    const page = await (await browser.get(link.replace(t.issuer, t.url))).text();
    const refused = await browser.post(`${t.url}/email/verify`, { csrf: hidden_field(page, "csrf")!, token: hidden_field(page, "token")! });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("This link is for another address");
    expect((await t.store.get_user_by_id(user.id))?.email_verified).toBe(false);
  });
});
