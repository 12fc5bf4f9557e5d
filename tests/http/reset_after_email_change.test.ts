/**
 * Password reset links do not outlive a change of e-mail address, through real HTTP with the mail
 * delivered to a real SMTP server (tests/helpers/smtp.ts): a link mailed to the old address stops
 * working once the owner confirms a new address on the account page, or an administrator changes
 * it over the admin API (which also voids pending verification and change links); and a link
 * whose address is no longer the account's is refused even when the form was already open.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { settle_password_reset_requests } from "../../src/oidc/accounts/password_reset.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { RESEND_VERIFICATION_PATH } from "../../src/http/pages/account_status.ts";
import type { UserRow } from "../../src/store/types.ts";
import { type Browser, account_login, browser_from, account_page, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

const NEW_PASSWORD = "a brand new passphrase 7";
const INVALID = "This password reset link does not work";

let t: TestProvider;
let smtp: TestSmtp;
let admin_token: string;

beforeAll(async () => {
  smtp = await start_smtp();
  // trust_proxy: each browser speaks from its own address (X-Forwarded-For), so per-address limits stay apart.
  t = await start_provider({ config: { smtp_url: smtp.url, mail_from: "idp@example.com", trust_proxy: true } });
  const { client, secret } = await t.add_client({
    client_name: "ops",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "admin",
    admin: true,
  });
  const issued = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", scope: "admin" }),
  });
  admin_token = ((await issued.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await t.stop();
  await smtp.stop();
});

let next_user = 1;
async function new_user(): Promise<UserRow> {
  const n = next_user++;
  return t.add_user({ username: `mover${n}`, email: `mover${n}@example.com`, email_verified: true, name: `Mover ${n}` });
}

/** Asks for a reset link for `user` and returns the link from the mail to their (current) address. */
async function reset_link(user: UserRow): Promise<string> {
  const browser = browser_from();
  const html = await (await browser.get(`${t.url}/password/forgot`)).text();
  expect((await browser.post(`${t.url}/password/forgot`, { csrf: hidden_field(html, "csrf")!, identifier: user.username })).status).toBe(200);
  await settle_password_reset_requests();
  const mail = await smtp.wait_for(user.email!, (m) => m.subject.startsWith("Reset your password"));
  return smtp.link(mail, `${t.issuer}/password/reset?`).replace(t.issuer, t.url);
}

/** Opens a reset link in a new browser: the page's status and body, and the form's fields when it showed one. */
async function open_reset(link: string): Promise<{ browser: Browser; status: number; html: string }> {
  const browser = browser_from();
  const page = await browser.get(link);
  return { browser, status: page.status, html: await page.text() };
}

/** Posts an opened reset form with a new password. */
async function post_reset(opened: { browser: Browser; html: string }): Promise<{ status: number; html: string }> {
  const answer = await opened.browser.post(`${t.url}/password/reset`, {
    csrf: hidden_field(opened.html, "csrf")!,
    token: hidden_field(opened.html, "token")!,
    new_password: NEW_PASSWORD,
    confirm_password: NEW_PASSWORD,
  });
  return { status: answer.status, html: await answer.text() };
}

/** Signs in at the account page and asks to change the address; returns the confirmation link mailed to `new_email`. */
async function request_change(user: UserRow, new_email: string): Promise<string> {
  const browser = browser_from();
  expect((await account_login(t, browser, user.username, t.password)).status).toBe(303);
  const { csrf } = await account_page(t, browser);
  const asked = await browser.post(`${t.url}/account/email`, { csrf, new_email, current_password: t.password });
  expect(asked.status).toBe(303);
  const mail = await smtp.wait_for(new_email, (m) => m.subject.includes("Confirm your new e-mail"));
  return smtp.link(mail, `${t.issuer}/email/confirm`).replace(t.issuer, t.url);
}

/** PATCH /admin/api/v1/users/:id with the item's current ETag. */
async function admin_patch(user: UserRow, body: Record<string, unknown>): Promise<Response> {
  const read = await fetch(`${t.url}/admin/api/v1/users/${user.id}`, { headers: { authorization: `Bearer ${admin_token}` } });
  expect(read.status).toBe(200);
  return fetch(`${t.url}/admin/api/v1/users/${user.id}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${admin_token}`, "content-type": "application/json", "if-match": read.headers.get("etag")! },
    body: JSON.stringify(body),
  });
}

async function password_unchanged(user: UserRow): Promise<void> {
  expect((await t.store.get_user_by_id(user.id))!.password_hash).toBe(user.password_hash);
}

describe("password reset links and e-mail changes", () => {
  test("a reset link mailed to the old address stops working once the owner confirms a new address", async () => {
    const user = await new_user();
    const link = await reset_link(user);
    expect((await open_reset(link)).status).toBe(200);

    const confirm = await request_change(user, `moved${user.id.slice(-6)}@example.org`);
    const browser = browser_from();
    const page = await (await browser.get(confirm)).text();
    const confirmed = await browser.post(`${t.url}/email/confirm`, { csrf: hidden_field(page, "csrf")!, token: hidden_field(page, "token")! });
    expect(confirmed.status).toBe(200);
    expect((await t.store.get_user_by_id(user.id))!.email).toBe(`moved${user.id.slice(-6)}@example.org`);

    const after = await open_reset(link);
    expect(after.status).toBe(400);
    expect(after.html).toContain(INVALID);
    expect(await t.store.find_user_token(sha256(new URL(link).searchParams.get("token")!), "password_reset", t.clock.now())).toBeNull();
    await password_unchanged(user);
    // A link asked for now goes to the new address, and works.
    const fresh = await reset_link((await t.store.get_user_by_id(user.id))!);
    const reset = await post_reset(await open_reset(fresh));
    expect(reset.status).toBe(200);
    expect(reset.html).toContain("Your password was changed");
  });

  test("an administrator's change of address voids the reset, verification and change links; another spelling keeps them", async () => {
    const user = await new_user();
    const link = await reset_link(user);
    // The reset form is already open in the old mailbox's browser when the address changes.
    const opened = await open_reset(link);
    expect(opened.status).toBe(200);
    const change = await request_change(user, `pending${user.id.slice(-6)}@example.org`);

    // Another spelling of the same address (case) reaches the same mailbox: the links stay. The
    // spelling is not verified any more, so the owner asks for a verification link too.
    expect((await admin_patch(user, { email: user.email!.toUpperCase() })).status).toBe(200);
    expect((await open_reset(link)).status).toBe(200);
    const owner = browser_from();
    expect((await account_login(t, owner, user.username, t.password)).status).toBe(303);
    const { html: account, csrf } = await account_page(t, owner);
    expect(account).toContain(`action="${t.issuer}${RESEND_VERIFICATION_PATH}"`);
    expect((await owner.post(`${t.url}${RESEND_VERIFICATION_PATH}`, { csrf })).status).toBe(303);
    const verification = smtp.link(await smtp.wait_for(user.email!, (m) => m.subject.startsWith("Confirm your e-mail address")), `${t.issuer}/`);
    const verification_hash = sha256(new URL(verification).searchParams.get("token")!);
    expect(await t.store.find_user_token(verification_hash, "email_verification", t.clock.now())).not.toBeNull();

    expect((await admin_patch(user, { email: `admin-set${user.id.slice(-6)}@example.net` })).status).toBe(200);
    const posted = await post_reset(opened);
    expect(posted.status).toBe(400);
    expect(posted.html).toContain(INVALID);
    expect((await open_reset(link)).html).toContain(INVALID);
    await password_unchanged(user);
    // The pending change to another address is voided too: it would undo the administrator's change.
    const pending = await browser_from().get(change);
    expect(pending.status).toBe(400);
    expect(await pending.text()).toContain("This confirmation link does not work");
    expect(await t.store.find_user_token(sha256(new URL(link).searchParams.get("token")!), "password_reset", t.clock.now())).toBeNull();
    expect(await t.store.find_user_token(sha256(new URL(change).searchParams.get("token")!), "email_change", t.clock.now())).toBeNull();
    expect(await t.store.find_user_token(verification_hash, "email_verification", t.clock.now())).toBeNull();
    expect((await t.store.get_user_by_id(user.id))!.email).toBe(`admin-set${user.id.slice(-6)}@example.net`);
  });

  test("a reset link whose address is no longer the account's is refused, even with the form already open", async () => {
    const user = await new_user();
    const link = await reset_link(user);
    const opened = await open_reset(link);
    expect(opened.status).toBe(200);
    // Changed outside the rules that void links (an operator's SQL): the link's own address still decides.
    await t.store.update_user(user.id, { email: `elsewhere${user.id.slice(-6)}@example.com` });
    const posted = await post_reset(opened);
    expect(posted.status).toBe(400);
    expect(posted.html).toContain(INVALID);
    expect((await open_reset(link)).html).toContain(INVALID);
    await password_unchanged(user);
  });
});
