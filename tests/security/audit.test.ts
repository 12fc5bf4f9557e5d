/**
 * The audit trail (src/oidc/audit.ts): one provider on a SQLite file, driven through every event it
 * records — sign-ins (failed, locked, two-step), consent granted and revoked, tokens revoked, a
 * code replayed, a refresh token replayed, a client registered, updated and deleted, keys rotated,
 * a logout — then listed with the admin CLI (`idp audit list --json`, src/cli/audit.ts). Each
 * event has its time, actor, client, address and outcome, and no event holds any secret the test
 * used: passwords, client secrets, TOTP codes, registration tokens, codes, access, refresh and ID
 * tokens.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { run_cli } from "../../src/cli/index.ts";
import { new_totp_secret, totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import type { AuditEvent } from "../../src/store/types.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { Browser, account_login, account_page, authorize, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, basic, get_code, pkce, redeem, token_request } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let box: Sandbox;
let t: TestProvider;
/** Every secret the test handled: none may appear in any event. */
const secrets: string[] = [];
let events: AuditEvent[] = [];
let locked_user = "";

beforeAll(async () => {
  box = sandbox();
  t = await start_provider({ database_url: box.env.DATABASE_URL!, config: { registration: "open", login_throttle: { max_failures: 2, delay_ms: 0 } } });
  secrets.push(t.password, t.secret);
});
afterAll(async () => {
  await t.stop();
  box.cleanup();
});

const json = async (response: Response) => (await response.json()) as Record<string, string>;

test("drive every event, then `audit list --json` lists them", async () => {
  // login failures (wrong password), then login_locked at max_failures (for another user than
  // alice, who signs in below from the same address); login success, consent_granted.
  const bob = await t.add_user({ username: "bob" });
  const guesses = ["wrong password one", "wrong password two"];
  secrets.push(...guesses);
  for (const guess of guesses) {
    const p = pkce();
    await authorize(new Browser(), authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }), {
      username: "bob",
      password: guess,
      callback_prefix: REDIRECT_URI,
    }).catch(() => {});
  }
  locked_user = bob.id;
  const first = await get_code(t, { scope: "openid profile" });
  secrets.push(first.code, first.pkce!.verifier);

  // code_reuse: the code redeemed twice (its tokens are revoked).
  const tokens = await json(await redeem(t, first.code, first.pkce!.verifier));
  secrets.push(tokens.access_token!, tokens.id_token!);
  expect((await redeem(t, first.code, first.pkce!.verifier)).status).toBe(400);

  // refresh_token_reuse: a rotated refresh token presented again.
  const { client: offline, secret: offline_secret } = await t.add_client({
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["authorization_code", "refresh_token"],
  });
  secrets.push(offline_secret!);
  const auth = { method: "basic" as const, client_id: offline.client_id, secret: offline_secret! };
  const second = await get_code(t, { scope: "openid offline_access" }, { client_id: offline.client_id });
  const issued = await json(await redeem(t, second.code, second.pkce!.verifier, auth));
  const rotated = await json(await token_request(t, { grant_type: "refresh_token", refresh_token: issued.refresh_token! }, auth));
  secrets.push(second.code, issued.access_token!, issued.refresh_token!, rotated.refresh_token!, rotated.access_token!);
  expect((await token_request(t, { grant_type: "refresh_token", refresh_token: issued.refresh_token! }, auth)).status).toBe(400);

  // tokens_revoked at /revoke.
  const third = await get_code(t);
  const to_revoke = await json(await redeem(t, third.code, third.pkce!.verifier));
  secrets.push(third.code, to_revoke.access_token!);
  const revoked = await fetch(`${t.url}/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(t.client.client_id, t.secret) },
    body: `token=${to_revoke.access_token}`,
  });
  expect(revoked.status).toBe(200);

  // two_factor: a user with an authenticator app signs in with a code.
  const totp_secret = new_totp_secret();
  await t.add_user({ username: "otto", totp_secret, totp_enabled_at: 1 });
  const code = totp_code(totp_secret, totp_step(t.clock.now()));
  secrets.push(totp_secret, code);
  const p = pkce();
  await authorize(new Browser(), authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }), {
    username: "otto",
    password: t.password,
    callback_prefix: REDIRECT_URI,
    second_factor: () => code,
  });

  // consent_revoked from the account page.
  const browser = new Browser();
  await account_login(t, browser, "alice", t.password);
  const { csrf } = await account_page(t, browser);
  expect((await browser.post(`${t.url}/account/grants`, { csrf, client_id: t.client.client_id })).status).toBe(303);

  // logout from the account's session, confirmed on the confirmation page.
  const confirmation = await (await browser.get(`${t.url}/logout`)).text();
  expect(
    (await browser.post(form_action(confirmation)!, { csrf: hidden_field(confirmation, "csrf")!, decision: "logout", client_id: "", post_logout_redirect_uri: "", state: "" }))
      .status,
  ).toBe(200);

  // client_registered, client_updated, client_deleted through RFC 7591 / RFC 7592.
  const registration = await json(
    await fetch(`${t.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://rp.test/cb"], client_name: "Audited" }),
    }),
  );
  secrets.push(registration.client_secret!, registration.registration_access_token!);
  const manage = (method: string, body?: unknown) =>
    fetch(registration.registration_client_uri!, {
      method,
      headers: { authorization: `Bearer ${registration.registration_access_token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  expect((await manage("PUT", { client_id: registration.client_id, redirect_uris: ["https://rp.test/cb2"], client_name: "Audited 2" })).status).toBe(200);
  expect((await manage("DELETE")).status).toBe(204);

  // keys_rotated by the admin CLI, on the same database.
  expect((await box.run(["keys", "rotate"])).code).toBe(0);

  let stdout = "";
  const code_ = await run_cli(["audit", "list", "--json", "--limit", "1000"], { stdin: "", stdout: (s) => void (stdout += s), stderr: () => {}, env: box.env });
  expect(code_).toBe(0);
  events = JSON.parse(stdout) as AuditEvent[];
  const types = new Set(events.map((e) => `${e.type}:${e.outcome}`));
  for (const expected of [
    "login:failure",
    "login_locked:failure",
    "login:success",
    "two_factor:success",
    "consent_granted:success",
    "consent_revoked:success",
    "tokens_revoked:success",
    "code_reuse:failure",
    "refresh_token_reuse:failure",
    "client_registered:success",
    "client_updated:success",
    "client_deleted:success",
    "keys_rotated:success",
    "logout:success",
  ]) {
    expect(types).toContain(expected);
  }
}, 30_000);

test("every event has its time, outcome and, for what a client or user did over HTTP, the actor, client and address", () => {
  const alice = t.user.id;
  const by_type = (type: string) => events.filter((e) => e.type === type);
  const now = t.clock.now();
  for (const event of events) {
    expect(event.at).toBeGreaterThan(now - 600);
    expect(event.at).toBeLessThanOrEqual(now + 5);
    expect(["success", "failure"]).toContain(event.outcome);
  }
  for (const event of events.filter((e) => (e.details as { via?: string } | null)?.via !== "cli")) expect(event.ip).toBe("127.0.0.1");
  expect(by_type("login").some((e) => e.outcome === "success" && e.user_id === alice && e.client_id === t.client.client_id)).toBe(true);
  expect(by_type("login_locked")[0]).toMatchObject({ user_id: locked_user, details: { scope: "address_and_username" } });
  expect(by_type("login").find((e) => e.outcome === "failure")).toMatchObject({ user_id: locked_user, client_id: t.client.client_id });
  expect(by_type("consent_granted")).toContainEqual(expect.objectContaining({ user_id: alice, client_id: t.client.client_id }));
  expect(by_type("consent_revoked")).toContainEqual(expect.objectContaining({ user_id: alice, client_id: t.client.client_id }));
  expect(by_type("code_reuse")).toContainEqual(expect.objectContaining({ user_id: alice, client_id: t.client.client_id }));
  expect((by_type("code_reuse")[0]!.details as { revoked_tokens: number }).revoked_tokens).toBeGreaterThan(0);
  expect(by_type("two_factor")).toContainEqual(expect.objectContaining({ outcome: "success", details: { method: "totp" } }));
  expect(by_type("refresh_token_reuse")[0]).toMatchObject({ user_id: alice });
  expect(by_type("tokens_revoked")).toContainEqual(expect.objectContaining({ user_id: alice, client_id: t.client.client_id }));
  expect(by_type("client_deleted")[0]!.client_id).toBe(by_type("client_registered")[0]!.client_id);
  expect(by_type("keys_rotated")[0]).toMatchObject({ ip: null, details: { via: "cli" } });
});

test("no event holds a password, secret, code or token used in the test", () => {
  const text = JSON.stringify(events);
  expect(secrets.length).toBeGreaterThan(15);
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(5);
    if (text.includes(secret)) throw new Error(`an audit event contains a secret: ${secret.slice(0, 6)}…`);
  }
});
