/**
 * CSRF (RFC 9700 §4.4.1.8 for the authorization flow, OWASP CSRF Prevention Cheat Sheet): every
 * state-changing form carries a token bound to the browser (an HMAC keyed by an HttpOnly cookie
 * value, interactions.ts, oidc/browser/account_guard.ts, logout/confirmation.ts). For each form, a POST
 * without the token and a POST with a FOREIGN token — a valid token of the same form in the
 * attacker's own browser — get a 403 page and change nothing; the browser's own token works.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { new_totp_secret } from "../../src/oidc/signin/totp.ts";
import { Browser, account_login, account_page, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, get_code, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
const BYE = "https://rp.example.com/bye";
beforeAll(async () => {
  t = await start_provider();
  await t.store.update_client(t.client.client_id, { metadata: { ...t.client.metadata, post_logout_redirect_uris: [BYE] } });
  await t.add_user({ username: "otto", totp_secret: new_totp_secret(), totp_enabled_at: 1 });
  // One user per case: a case's own (accepted) form must not change what the next one checks.
  for (const name of ["consenting", "account-password", "account-totp", "account-grants", "cookies"]) await t.add_user({ username: name });
});
afterAll(() => t.stop());

/** A form as a browser sees it: where it posts, its token, its other fields. */
type Form = { browser: Browser; action: string; csrf: string; fields: Record<string, string> };

async function read_form(browser: Browser, response: Response, fields: Record<string, string>): Promise<Form> {
  if (response.status !== 200) throw new Error(`form page answered ${response.status}`);
  const html = await response.text();
  return { browser, action: form_action(html)!, csrf: hidden_field(html, "csrf")!, fields };
}

/** Follows redirects (GET) from `response` until a page answers 200. */
async function follow(browser: Browser, response: Response): Promise<Response> {
  while (response.status === 302 || response.status === 303) response = await browser.get(new URL(response.headers.get("location")!, t.url).href);
  return response;
}

async function login_form(username = "alice"): Promise<Form> {
  const browser = new Browser();
  const p = pkce();
  const page = await follow(browser, await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256", scope: "openid profile" })));
  return read_form(browser, page, { username, password: t.password });
}

async function two_factor_form(): Promise<Form> {
  const login = await login_form("otto");
  const answer = await login.browser.post(login.action, { ...login.fields, csrf: login.csrf });
  return read_form(login.browser, await follow(login.browser, answer), { code: "123456" });
}

async function consent_form(): Promise<Form> {
  const login = await login_form("consenting");
  const answer = await login.browser.post(login.action, { ...login.fields, csrf: login.csrf });
  return read_form(login.browser, await follow(login.browser, answer), { decision: "allow" });
}

async function logout_form(): Promise<Form> {
  const { browser } = await get_code(t);
  const page = await browser.get(`${t.url}/logout?${new URLSearchParams({ client_id: t.client.client_id, post_logout_redirect_uri: BYE, state: "s" })}`);
  const form = await read_form(browser, page, { client_id: t.client.client_id, post_logout_redirect_uri: BYE, state: "s", decision: "logout" });
  return form;
}

async function account_login_form(): Promise<Form> {
  const browser = new Browser();
  return read_form(browser, await browser.get(`${t.url}/account/login`), { username: "alice", password: t.password });
}

async function signed_in_account(username: string): Promise<Browser> {
  const browser = new Browser();
  expect((await account_login(t, browser, username, t.password)).status).toBe(303);
  return browser;
}

async function account_form(username: string, path: string, fields: Record<string, string>): Promise<Form> {
  const browser = await signed_in_account(username);
  const { csrf } = await account_page(t, browser);
  return { browser, action: `${t.url}${path}`, csrf, fields };
}

/** Whether the browser holds a sign-in session cookie. */
const signed_in = (browser: Browser) => browser.cookies.has("idp_session");

type Case = { name: string; form: () => Promise<Form>; unchanged: (form: Form) => Promise<void> };

const CASES: Case[] = [
  { name: "sign-in for an application", form: () => login_form(), unchanged: async (f) => expect(signed_in(f.browser)).toBe(false) },
  { name: "two-step verification code", form: two_factor_form, unchanged: async (f) => expect(signed_in(f.browser)).toBe(false) },
  {
    name: "consent",
    form: consent_form,
    unchanged: async () => {
      const user = await t.store.get_user_by_username("consenting");
      expect(await t.store.get_grant(user!.id, t.client.client_id)).toBeNull();
    },
  },
  { name: "logout confirmation", form: logout_form, unchanged: async (f) => expect((await f.browser.get(`${t.url}/account`)).status).toBe(200) },
  { name: "account sign-in", form: account_login_form, unchanged: async (f) => expect(signed_in(f.browser)).toBe(false) },
  {
    name: "account password change",
    form: () =>
      account_form("account-password", "/account/password", { current_password: t.password, new_password: "a whole new password", confirm_password: "a whole new password" }),
    unchanged: async () => expect((await account_login(t, new Browser(), "account-password", t.password)).status).toBe(303),
  },
  {
    name: "account two-step set-up",
    form: () => account_form("account-totp", "/account/totp", { action: "enable", code: "123456" }),
    unchanged: async () => expect((await t.store.get_user_by_username("account-totp"))!.totp_enabled_at).toBeNull(),
  },
  {
    name: "account: removing an application's access",
    form: async () => {
      const user = await t.store.get_user_by_username("account-grants");
      await t.store.upsert_grant({ user_id: user!.id, client_id: t.client.client_id, scopes: ["openid"] });
      return account_form("account-grants", "/account/grants", { client_id: t.client.client_id });
    },
    unchanged: async () => {
      const user = await t.store.get_user_by_username("account-grants");
      expect(await t.store.get_grant(user!.id, t.client.client_id)).not.toBeNull();
    },
  },
];

describe("every state-changing form refuses a missing or foreign token", () => {
  for (const { name, form, unchanged } of CASES) {
    test(name, async () => {
      const victim = await form();
      const attacker = await form();
      expect(attacker.csrf).not.toBe(victim.csrf);
      for (const csrf of [undefined, "", attacker.csrf]) {
        const fields = csrf === undefined ? victim.fields : { ...victim.fields, csrf };
        const response = await victim.browser.post(victim.action, fields);
        expect(response.status).toBe(403);
        expect(response.headers.get("location")).toBeNull();
        expect(response.headers.get("content-type")).toStartWith("text/html");
        expect(await response.text()).toContain("This form has expired");
        await unchanged(victim);
      }
      // The browser's own token is accepted: the refusal above is the token's doing.
      const own = await victim.browser.post(victim.action, { ...victim.fields, csrf: victim.csrf });
      expect([200, 303]).toContain(own.status);
    });
  }
});

test("the cookies the tokens are bound to are HttpOnly and SameSite=Lax (a second line against cross-site POSTs)", async () => {
  const p = pkce();
  const response = await fetch(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }), { redirect: "manual" });
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith("idp_interaction="))!;
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/SameSite=Lax/i);
  const login = await account_login(t, new Browser(), "cookies", t.password);
  const session = login.headers.getSetCookie().find((line) => line.startsWith("idp_session="))!;
  expect(session).toMatch(/HttpOnly/i);
  expect(session).toMatch(/SameSite=Lax/i);
});
