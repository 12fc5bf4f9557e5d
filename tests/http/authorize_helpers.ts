/**
 * A real relying party (openid-client v6) for the authorization request tests: it builds the
 * authorization URL and checks the code exchange and ID Token; `drive` walks the pages with the
 * fetch Browser, and stops at the client — a redirect, or a form_post page turned into the
 * POST request the browser would send.
 */
import { expect } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { type Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { PASSWORD, REDIRECT_URI, type TestProvider } from "../helpers/provider.ts";

export const insecure = { execute: [client.allowInsecureRequests] };

/** An openid-client Configuration for a confidential (client_secret_basic) client. */
export async function relying_party(
  t: TestProvider,
  client_id = t.client.client_id,
  secret = t.secret,
  metadata: Partial<client.ClientMetadata> = {},
): Promise<client.Configuration> {
  return client.discovery(new URL(t.issuer), client_id, metadata, client.ClientSecretBasic(secret), insecure);
}

export type Started = { url: URL; verifier: string; state: string; nonce: string };

/** openid-client's authorization URL with PKCE, state and nonce, plus `params`. */
export async function start(config: client.Configuration, params: Record<string, string> = {}): Promise<Started> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: "openid",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...params,
  });
  return { url, verifier, state, nonce };
}

/** Where the browser ended up at the client. */
export type Arrival =
  | { mode: "query"; url: URL }
  /** The form_post page: the POST it submits, its HTML and its CSP. */
  | { mode: "form_post"; request: Request; params: URLSearchParams; html: string; csp: string };

export type Page = "login" | "consent";

export type DriveOptions = { username?: string; password?: string; decision?: "allow" | "deny"; callback_prefix?: string };

/** Reads a form_post page: the hidden fields and the action it posts them to. */
export function read_form_post(html: string): { action: string; params: URLSearchParams } {
  const params = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    params.append(match[1]!, hidden_field(match[0], match[1]!)!);
  }
  return { action: form_action(html)!, params };
}

/** Follows the authorization from `url` (GET, or POST with `form`) to the client. */
export async function drive(browser: Browser, url: string, options: DriveOptions = {}, form?: Record<string, string>): Promise<{ arrival: Arrival; pages: Page[] }> {
  const prefix = options.callback_prefix ?? REDIRECT_URI;
  const pages: Page[] = [];
  let response = form ? await browser.post(url, form) : await browser.get(url);
  for (let hops = 0; hops < 10; hops++) {
    if (response.status === 200) {
      const html = await response.text();
      if (!html.includes('id="form-post"')) throw new Error(`expected the form_post page, got: ${html.slice(0, 300)}`);
      const { action, params } = read_form_post(html);
      const request = new Request(action, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: params.toString() });
      return { arrival: { mode: "form_post", request, params, html, csp: response.headers.get("content-security-policy") ?? "" }, pages };
    }
    const location = response.headers.get("location");
    if (location === null) throw new Error(`expected a redirect, got ${response.status}: ${(await response.text()).slice(0, 300)}`);
    if (location.startsWith(prefix)) return { arrival: { mode: "query", url: new URL(location) }, pages };
    const page = await browser.get(new URL(location, url).href);
    const html = await page.text();
    if (page.status !== 200) throw new Error(`page ${location} answered ${page.status}: ${html.slice(0, 300)}`);
    const csrf = hidden_field(html, "csrf")!;
    const action = form_action(html)!;
    if (location.endsWith("/login")) {
      pages.push("login");
      response = await browser.post(action, { csrf, username: options.username ?? "alice", password: options.password ?? PASSWORD });
    } else if (location.endsWith("/consent")) {
      pages.push("consent");
      response = await browser.post(action, { csrf, decision: options.decision ?? "allow" });
    } else throw new Error(`unexpected page ${location}`);
  }
  throw new Error("too many redirects");
}

/** The response parameters the client received, whatever the response mode. */
export function received(arrival: Arrival): URLSearchParams {
  return arrival.mode === "query" ? arrival.url.searchParams : arrival.params;
}

/** An error response at the client, with state and iss (RFC 9207). */
export function expect_error(t: TestProvider, arrival: Arrival, error: string, state: string): URLSearchParams {
  const params = received(arrival);
  expect(params.get("error")).toBe(error);
  expect(params.get("error_description")).toBeTruthy();
  expect(params.get("state")).toBe(state);
  expect(params.get("iss")).toBe(t.issuer);
  expect(params.get("code")).toBeNull();
  return params;
}

/** The code exchange by openid-client, with every check it makes (ID Token, nonce, state, iss). */
export async function exchange(config: client.Configuration, started: Started, arrival: Arrival, checks: { maxAge?: number } = {}) {
  const current = arrival.mode === "query" ? arrival.url : arrival.request;
  const tokens = await client.authorizationCodeGrant(config, current, {
    pkceCodeVerifier: started.verifier,
    expectedState: started.state,
    expectedNonce: started.nonce,
    idTokenExpected: true,
    ...checks,
  });
  return { tokens, claims: tokens.claims()! };
}

/** One authorization with openid-client from start to tokens, through the pages. */
export async function full_flow(config: client.Configuration, browser: Browser, params: Record<string, string> = {}, options: DriveOptions = {}) {
  const started = await start(config, params);
  const { arrival, pages } = await drive(browser, started.url.href, options);
  return { ...(await exchange(config, started, arrival, params.max_age === undefined ? {} : { maxAge: Number(params.max_age) })), pages, arrival };
}
