/**
 * Passkeys over HTTP (the ceremonies themselves run in Chromium: tests/e2e/passkeys.test.ts):
 * acr and amr rules, discovery, the options endpoints (CSRF, binding, re-authentication), a
 * challenge taken by another interaction, a second factor required by a client (enrolment),
 * acr_values=phr without a passkey, and the account's passkey forms (rename, the last way to sign
 * in is never removed).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { acr_claim, acr_of, needs_second_factor, requires_passkey, requires_two_factors, satisfies } from "../../src/oidc/signin/methods.ts";
import { account_csrf } from "../../src/oidc/browser/account_guard.ts";
import { second_factor_required } from "../../src/oidc/signin/second_factor.ts";
import type { Provider } from "../../src/oidc/provider.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { passkey_amr } from "../../src/oidc/signin/methods.ts";
import type { PasskeyRow, UserRow } from "../../src/store/types.ts";
import { Browser, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;

beforeAll(async () => {
  t = await start_provider({ issuer_host: "localhost" });
});

afterAll(async () => {
  await t.stop();
});

const local = (url: string) => url.replace(t.issuer, t.url);

async function add_passkey(user: UserRow, name = "Key"): Promise<PasskeyRow> {
  return t.store.create_passkey({
    credential_id: `cred-${random_token(16)}`,
    user_id: user.id,
    public_key: "AA",
    counter: 0,
    transports: ["internal"],
    backup_eligible: false,
    backup_state: false,
    aaguid: null,
    name,
  });
}

/** A browser signed in as `user` by a session made in the store (auth_time `ago` seconds back). */
async function signed_in(user: UserRow, ago = 0): Promise<{ browser: Browser; csrf: string }> {
  const value = random_token(32);
  const now = t.clock.now();
  await t.store.create_session({ id_hash: sha256(value), user_id: user.id, auth_time: now - ago, amr: ["hwk", "user"], expires_at: now + 3600 });
  const browser = new Browser();
  browser.cookies.set("idp_session", value);
  return { browser, csrf: account_csrf(value) };
}

/** An authorization request's sign-in page: the interaction id and its form token. */
async function login_page(browser: Browser, client_id = t.client.client_id, params: Record<string, string> = {}): Promise<{ id: string; csrf: string; html: string }> {
  const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256", ...params }, client_id));
  const location = start.headers.get("location")!;
  const page = await browser.get(local(location));
  const html = await page.text();
  return { id: /\/interaction\/([^/]+)\/login$/.exec(location)![1]!, csrf: hidden_field(html, "csrf")!, html };
}

/** A response whose client data names `challenge` (enough to reach the challenge check). */
function response_for(challenge: string): string {
  const client_data = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin: t.issuer })).toString("base64url");
  return JSON.stringify({
    id: "cred-x",
    rawId: "cred-x",
    type: "public-key",
    response: { clientDataJSON: client_data, authenticatorData: "AA", signature: "AA" },
    clientExtensionResults: {},
  });
}

describe("acr and amr (RFC 8176)", () => {
  test("passkey amr: hwk or swk by the backup-eligible flag; after a password, mfa", () => {
    const row = { backup_eligible: false } as PasskeyRow;
    expect(passkey_amr(row.backup_eligible, false)).toEqual(["hwk", "user"]);
    expect(passkey_amr(true, false)).toEqual(["swk", "user"]);
    expect(passkey_amr(row.backup_eligible, true)).toEqual(["pwd", "hwk", "mfa"]);
  });

  test("which classes each sign-in satisfies; phr only with a passkey", () => {
    expect(satisfies("phr", ["swk", "user"])).toBe(true);
    expect(satisfies("phr", ["pwd", "otp"])).toBe(false);
    expect(satisfies("phrh", ["swk", "user"])).toBe(false);
    expect(satisfies("phrh", ["hwk", "user"])).toBe(true);
    expect(satisfies("mfa", ["hwk", "user"])).toBe(true);
    expect(satisfies("mfa", ["pwd", "swk", "mfa"])).toBe(true);
    expect(acr_of(["pwd"])).toBe("pwd");
    expect(acr_of(["pwd", "otp"])).toBe("mfa");
    expect(acr_of(["swk", "user"])).toBe("phr");
    expect(acr_of(["hwk", "user"])).toBe("phrh");
    expect(needs_second_factor(["phr"], ["pwd", "otp"])).toBe(true);
    expect(needs_second_factor(["phr", "mfa"], ["pwd", "otp"])).toBe(false);
    expect(requires_passkey(["phr"])).toBe(true);
    expect(requires_passkey(["phr", "mfa"])).toBe(false);
    expect(requires_two_factors(["phr"])).toBe(true);
    // The first class asked for that the sign-in reached, else the strongest it reached.
    expect(acr_claim(["mfa", "phr"], ["hwk", "user"])).toBe("mfa");
    expect(acr_claim(["phrh"], ["swk", "user"])).toBe("phr");
  });

  test("discovery advertises the passkey classes", async () => {
    const meta = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { acr_values_supported: string[] };
    expect(meta.acr_values_supported).toEqual(["mfa", "pwd", "phr", "phrh"]);
  });
});

describe("the sign-in page and its options endpoint", () => {
  test("the page loads the helper and our script from this origin, the CSP allows exactly that", async () => {
    const browser = new Browser();
    const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }));
    const page = await browser.get(local(start.headers.get("location")!));
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    const html = await page.text();
    expect(html).toContain(`<script src="${t.issuer}/static/vendor/simplewebauthn-browser.js" defer></script>`);
    expect(html).toContain('autocomplete="username webauthn"');
    const helper = await fetch(`${t.url}/static/vendor/simplewebauthn-browser.js`);
    expect([helper.status, helper.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
    expect(await helper.text()).toContain("SimpleWebAuthnBrowser");
    expect((await fetch(`${t.url}/static/passkeys.js`)).status).toBe(200);
  });

  test("options need the page's form token; they name this RP and require user verification", async () => {
    const browser = new Browser();
    const { id, csrf } = await login_page(browser);
    const refused = await browser.post(`${t.url}/interaction/${id}/passkey/options`, { step: "login", csrf: "forged" });
    expect(refused.status).toBe(403);
    const other = await new Browser().post(`${t.url}/interaction/${id}/passkey/options`, { step: "login", csrf });
    expect(other.status).toBe(403);
    const answer = await browser.post(`${t.url}/interaction/${id}/passkey/options`, { step: "login", csrf });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ rpId: "localhost", userVerification: "required", allowCredentials: [], timeout: 300_000 });
    // No password step waits here: a second-factor ceremony is refused.
    expect((await browser.post(`${t.url}/interaction/${id}/passkey/options`, { step: "second_factor", csrf })).status).toBe(400);
  });

  test("a challenge is bound to its interaction: used at another, it is gone for both", async () => {
    const browser = new Browser();
    const first = await login_page(browser);
    const second = await login_page(browser);
    const options = (await (await browser.post(`${t.url}/interaction/${first.id}/passkey/options`, { step: "login", csrf: first.csrf })).json()) as { challenge: string };
    const elsewhere = await browser.post(`${t.url}/interaction/${second.id}/passkey`, { step: "login", csrf: second.csrf, response: response_for(options.challenge) });
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.text()).toContain("expired or was already used");
    const home = await browser.post(`${t.url}/interaction/${first.id}/passkey`, { step: "login", csrf: first.csrf, response: response_for(options.challenge) });
    expect(await home.text()).toContain("expired or was already used");
    // A response that is not WebAuthn JSON changes nothing and says so.
    const garbage = await browser.post(`${t.url}/interaction/${first.id}/passkey`, { step: "login", csrf: first.csrf, response: "{not json" });
    expect(garbage.status).toBe(403);
    expect(browser.cookies.has("idp_session")).toBe(false);
  });
});

describe("malformed responses", () => {
  test("never a 5xx, never a session: junk JSON, wrong types, bad base64, a stored key that is not a key", async () => {
    const owner = await t.add_user({ username: "mallory" });
    const stored = await add_passkey(owner);
    const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
    const browser = new Browser();
    for (const make of [
      () => "[]",
      () => "null",
      () => JSON.stringify({ id: 5, response: {} }),
      () => JSON.stringify({ id: "x", response: "nope" }),
      () => JSON.stringify({ id: "x", response: { clientDataJSON: "!!!" } }),
      () => JSON.stringify({ id: "x", response: { clientDataJSON: b64({ challenge: 123 }) } }),
      (challenge: string) =>
        JSON.stringify({
          id: stored.credential_id,
          rawId: stored.credential_id,
          type: "public-key",
          response: { clientDataJSON: b64({ type: "webauthn.get", challenge, origin: t.issuer }), authenticatorData: "%%%", signature: "" },
          clientExtensionResults: {},
        }),
      (challenge: string) =>
        JSON.stringify({
          id: stored.credential_id,
          rawId: stored.credential_id,
          type: "public-key",
          response: {
            clientDataJSON: b64({ type: "webauthn.get", challenge, origin: t.issuer }),
            authenticatorData: b64("x".repeat(37)),
            signature: b64("sig"),
            userHandle: b64(owner.id),
          },
          clientExtensionResults: {},
        }),
    ]) {
      const { id, csrf } = await login_page(browser);
      const options = (await (await browser.post(`${t.url}/interaction/${id}/passkey/options`, { step: "login", csrf })).json()) as { challenge: string };
      const answer = await browser.post(`${t.url}/interaction/${id}/passkey`, { step: "login", csrf, response: make(options.challenge) });
      expect([make.toString(), answer.status]).toEqual([make.toString(), 403]);
    }
    expect(browser.cookies.has("idp_session")).toBe(false);
    expect((await t.store.get_passkey_by_credential_id(stored.credential_id))!.last_used_at).toBeNull();
  });
});

describe("second factor required, and acr_values=phr", () => {
  test("a client with require_2fa sends a user without a second factor to add a passkey; a code is no answer", async () => {
    const { client } = await t.add_client({ client_name: "Strict App", token_endpoint_auth_method: "client_secret_basic", require_2fa: true });
    const user = await t.add_user({ username: "nora" });
    const browser = new Browser();
    const { csrf, html } = await login_page(browser, client.client_id);
    expect(html).toContain("Use a passkey");
    const after = await browser.post(local(/<form[^>]*action="([^"]*)"/.exec(html)![1]!), { csrf, username: "nora", password: t.password });
    expect(after.status).toBe(303);
    const two_factor = after.headers.get("location")!;
    expect(two_factor).toEndWith("/two-factor");
    const page = await (await browser.get(local(two_factor))).text();
    expect(page).toContain("Add a second factor");
    expect(page).toContain('name="step" value="enrol"');
    expect(page).not.toContain("6-digit code");
    const id = /\/interaction\/([^/]+)\/two-factor$/.exec(two_factor)![1]!;
    const code = await browser.post(`${t.url}/interaction/${id}/two-factor`, { csrf, code: "123456" });
    expect(await code.text()).toContain("Use your passkey to continue.");
    expect(browser.cookies.has("idp_session")).toBe(false);
    const options = await browser.post(`${t.url}/interaction/${id}/passkey/options`, { step: "enrol", csrf });
    expect(options.status).toBe(200);
    expect(await options.json()).toMatchObject({
      rp: { id: "localhost" },
      user: { name: "nora" },
      attestation: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    });
    // The same client's users who have no need to enrol: the password and TOTP stay as they are.
    const other = await t.add_user({ username: "otto" });
    await add_passkey(other);
    const second = new Browser();
    const { csrf: csrf2, html: html2 } = await login_page(second, client.client_id);
    const step = await second.post(local(/<form[^>]*action="([^"]*)"/.exec(html2)![1]!), { csrf: csrf2, username: "otto", password: t.password });
    const page2 = await (await second.get(local(step.headers.get("location")!))).text();
    expect(page2).toContain("Use a passkey");
    expect(page2).not.toContain("Add a second factor");
    expect(user.id).not.toBe(other.id);
  });

  test("IDP_REQUIRE_2FA=group:NAME: members of that group only (the name without case), all, off; a client's require_2fa", async () => {
    const admins = await t.store.create_group({ name: "Admins" });
    const member = await t.add_user({ username: "gina" });
    const other = await t.add_user({ username: "hank" });
    await t.store.add_group_member(admins.id, member.id);
    const rule = (require_2fa: string) => ({ config: { ...t.config, require_2fa }, store: t.store }) as unknown as Provider;
    expect(await second_factor_required(rule("group:admins"), null, member)).toBe(true);
    expect(await second_factor_required(rule("group:admins"), null, other)).toBe(false);
    expect(await second_factor_required(rule("all"), null, other)).toBe(true);
    expect(await second_factor_required(rule("off"), null, member)).toBe(false);
    const { client } = await t.add_client({ client_name: "Group Strict", require_2fa: true });
    expect(await second_factor_required(rule("off"), client, other)).toBe(true);
  });

  test("acr_values=phr from a user without a passkey stops on a page that says what to do", async () => {
    await t.add_user({ username: "pete" });
    const browser = new Browser();
    const { csrf, html } = await login_page(browser, t.client.client_id, { acr_values: "phr" });
    const answer = await browser.post(local(/<form[^>]*action="([^"]*)"/.exec(html)![1]!), { csrf, username: "pete", password: t.password });
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("This application requires a passkey");
  });
});

describe("account: adding, renaming and removing passkeys", () => {
  test("options need the password (or a recent sign-in without one); they exclude the user's passkeys", async () => {
    const user = await t.add_user({ username: "quinn" });
    const existing = await add_passkey(user);
    const { browser, csrf } = await signed_in(user);
    const wrong = await browser.post(`${t.url}/account/passkeys/options`, { csrf, password: "nope" });
    expect([wrong.status, await wrong.json()]).toEqual([400, { error: "Your password is not right.", field: "password" }]);
    expect((await browser.post(`${t.url}/account/passkeys/options`, { csrf: "forged", password: t.password })).status).toBe(403);
    const ok = await browser.post(`${t.url}/account/passkeys/options`, { csrf, password: t.password });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { excludeCredentials: { id: string }[] }).excludeCredentials.map((c) => c.id)).toEqual([existing.credential_id]);

    const passwordless = await t.store.create_user({ username: "rosa", password_hash: "" });
    const stale = await signed_in(passwordless, 3600);
    const refused = await stale.browser.post(`${t.url}/account/passkeys/options`, { csrf: stale.csrf });
    expect(((await refused.json()) as { error: string }).error).toContain("sign out and sign in again");
    const fresh = await signed_in(passwordless, 10);
    expect((await fresh.browser.post(`${t.url}/account/passkeys/options`, { csrf: fresh.csrf })).status).toBe(200);
  });

  test("rename checks the name and the owner; the page lists when each was added and used", async () => {
    const user = await t.add_user({ username: "sam" });
    const key = await add_passkey(user, "Old name");
    const stranger = await add_passkey(await t.add_user({ username: "tess" }), "Tess key");
    const { browser, csrf } = await signed_in(user);
    const page = await (await browser.get(`${t.url}/account`)).text();
    expect(page).toContain("Old name");
    expect(page).toContain("Not used yet.");
    const empty = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "rename", passkey_id: key.id, name: "  " });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Give the passkey a name.");
    const theirs = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "rename", passkey_id: stranger.id, name: "Mine now" });
    expect(await theirs.text()).toContain("That passkey is not on your account.");
    expect((await t.store.get_passkey_by_credential_id(stranger.credential_id))!.name).toBe("Tess key");
    const renamed = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "rename", passkey_id: key.id, name: "Desk key" });
    expect([renamed.status, renamed.headers.get("location")]).toEqual([303, `${t.issuer}/account?done=passkey_renamed`]);
    expect((await t.store.get_passkey_by_credential_id(key.credential_id))!.name).toBe("Desk key");
  });

  test("without a password, the last passkey is never removed (the last way to sign in)", async () => {
    const user = await t.store.create_user({ username: "uma", password_hash: "" });
    const a = await add_passkey(user, "First");
    const b = await add_passkey(user, "Second");
    const { browser, csrf } = await signed_in(user);
    const one = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "remove", passkey_id: a.id });
    expect(one.headers.get("location")).toBe(`${t.issuer}/account?done=passkey_removed`);
    const last = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "remove", passkey_id: b.id });
    expect(last.status).toBe(400);
    expect(await last.text()).toContain("This is the last way to sign in to your account");
    expect((await t.store.list_passkeys_for_user(user.id)).map((p) => p.name)).toEqual(["Second"]);
    const events = await t.store.list_audit_events({ user_id: user.id, type: "passkey_removed" });
    expect(events.map((e) => e.details?.passkey_id)).toEqual([a.id]);
  });

  test("removing a passkey asks for the password (throttled, audited); without one, a recent sign-in", async () => {
    const user = await t.add_user({ username: "wade" });
    const key = await add_passkey(user, "Desk key");
    const { browser, csrf } = await signed_in(user);
    const page = await (await browser.get(`${t.url}/account`)).text();
    expect(page).toContain(`id="passkey-remove-password-${key.id}"`);
    const missing = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "remove", passkey_id: key.id });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("Your password is not right: the passkey was not removed.");
    const wrong = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "remove", passkey_id: key.id, password: "nope" });
    expect(wrong.status).toBe(400);
    expect(await t.store.count_passkeys_for_user(user.id)).toBe(1);
    const failures = await t.store.list_audit_events({ user_id: user.id, type: "passkey_removed" });
    expect(failures.map((e) => [e.outcome, e.details?.reason])).toEqual([
      ["failure", "wrong password"],
      ["failure", "wrong password"],
    ]);
    const ok = await browser.post(`${t.url}/account/passkeys`, { csrf, action: "remove", passkey_id: key.id, password: t.password });
    expect([ok.status, ok.headers.get("location")]).toEqual([303, `${t.issuer}/account?done=passkey_removed`]);
    expect(await t.store.count_passkeys_for_user(user.id)).toBe(0);

    // Without a password: a sign-in older than the re-authentication window is refused.
    const passwordless = await t.store.create_user({ username: "xena", password_hash: "" });
    const [a] = [await add_passkey(passwordless, "A"), await add_passkey(passwordless, "B")];
    const stale = await signed_in(passwordless, 3600);
    expect((await (await stale.browser.get(`${t.url}/account`)).text()).includes(`id="passkey-remove-password-${a!.id}"`)).toBe(false);
    const refused = await stale.browser.post(`${t.url}/account/passkeys`, { csrf: stale.csrf, action: "remove", passkey_id: a!.id });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("sign out and sign in again");
    expect(await t.store.count_passkeys_for_user(passwordless.id)).toBe(2);
    const recent = await signed_in(passwordless, 10);
    expect((await recent.browser.post(`${t.url}/account/passkeys`, { csrf: recent.csrf, action: "remove", passkey_id: a!.id })).status).toBe(303);
    expect(await t.store.count_passkeys_for_user(passwordless.id)).toBe(1);
  });

  test("the account page re-rendered for another form's error keeps the passkey section whole (its script and Add form)", async () => {
    const user = await t.add_user({ username: "yara" });
    await t.store.update_user(user.id, { totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: t.clock.now() });
    await add_passkey(user, "Desk key");
    const { browser, csrf } = await signed_in(user);
    const answers = [
      await browser.post(`${t.url}/account/password`, { csrf, current_password: "wrong", new_password: "x", confirm_password: "x" }),
      await browser.post(`${t.url}/account/totp`, { csrf, action: "remove", password: "wrong" }),
      await browser.post(`${t.url}/account/email`, { csrf, new_email: "not an address", current_password: t.password }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.headers.get("content-security-policy")).toContain("script-src 'self';");
      const html = await answer.text();
      expect(html).toContain('id="passkey-form"');
      expect(html).toContain(`<script src="${t.issuer}/static/passkeys.js" defer></script>`);
    }
  });

  test("a registration response bound to another session is refused", async () => {
    const user = await t.add_user({ username: "vera" });
    const first = await signed_in(user);
    const options = (await (await first.browser.post(`${t.url}/account/passkeys/options`, { csrf: first.csrf, password: t.password })).json()) as { challenge: string };
    const second = await signed_in(user);
    const client_data = Buffer.from(JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin: t.issuer })).toString("base64url");
    const response = JSON.stringify({
      id: "new",
      rawId: "new",
      type: "public-key",
      response: { clientDataJSON: client_data, attestationObject: "AA" },
      clientExtensionResults: {},
    });
    const answer = await second.browser.post(`${t.url}/account/passkeys`, { csrf: second.csrf, action: "register", name: "Stolen", response });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("expired or was already used");
    expect(await t.store.count_passkeys_for_user(user.id)).toBe(0);
  });
});
