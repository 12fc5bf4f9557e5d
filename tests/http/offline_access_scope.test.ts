/**
 * offline_access on the consent page (OIDC Core §11): only a client registered for the
 * refresh_token grant can get a refresh token, so only its consent page promises one; for other
 * clients /authorize drops the scope before the user is asked.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { SCOPE_DESCRIPTIONS } from "../../src/oidc/claims/scopes.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

const OFFLINE = SCOPE_DESCRIPTIONS.offline_access;

/** Signs in from /authorize and returns the consent page's HTML. */
async function consent_page(client_id: string, scope: string): Promise<string> {
  const browser = new Browser();
  const start = await browser.get(authorization_url(t, { scope, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" }, client_id));
  const login_url = new URL(start.headers.get("location")!, t.url).href;
  const login = await (await browser.get(login_url)).text();
  const after = await browser.post(form_action(login)!, { csrf: hidden_field(login, "csrf")!, username: "alice", password: t.password });
  const location = after.headers.get("location")!;
  expect(location).toEndWith("/consent");
  const page = await browser.get(new URL(location, t.url).href);
  expect(page.status).toBe(200);
  return page.text();
}

test("consent page of a client without the refresh_token grant does not list offline access", async () => {
  const { client } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: ["authorization_code"] });
  const html = await consent_page(client.client_id, "openid email offline_access");
  expect(html).not.toContain(OFFLINE);
  expect(html).toContain(SCOPE_DESCRIPTIONS.email);
});

test("consent page of a client with the refresh_token grant lists offline access", async () => {
  const { client } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: ["authorization_code", "refresh_token"] });
  const html = await consent_page(client.client_id, "openid email offline_access");
  expect(html).toContain(OFFLINE);
});

test("offline_access alone from a client without the refresh_token grant is invalid_scope", async () => {
  const { client } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: ["authorization_code"] });
  const response = await fetch(
    authorization_url(t, { scope: "offline_access", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" }, client.client_id),
    { redirect: "manual" },
  );
  const location = new URL(response.headers.get("location")!);
  expect(location.searchParams.get("error")).toBe("invalid_scope");
});
