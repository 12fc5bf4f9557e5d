/**
 * Shortcuts for protocol tests that do not need a real relying party: build an authorization
 * URL, get a code through the pages, redeem it at /token.
 */
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { Browser, authorize } from "./browser.ts";
import { REDIRECT_URI, type TestProvider } from "./provider.ts";

export type Pkce = { verifier: string; challenge: string };

export function pkce(): Pkce {
  const verifier = random_token(32);
  return { verifier, challenge: sha256(verifier) };
}

export function authorization_url(t: { url: string; client: { client_id: string } }, params: Record<string, string | null> = {}, client_id = t.client.client_id): string {
  const url = new URL("/authorize", t.url);
  const all: Record<string, string | null> = { client_id, response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid", state: "st-123", nonce: "n-456", ...params };
  for (const [key, value] of Object.entries(all)) if (value !== null) url.searchParams.set(key, value);
  return url.href;
}

/** Runs an authorization through login and consent; returns the callback's parameters. */
export async function get_code(
  t: TestProvider,
  params: Record<string, string | null> = {},
  options: { browser?: Browser; client_id?: string; pkce?: Pkce | null } = {},
): Promise<{ code: string; callback: URL; pkce: Pkce | null; browser: Browser }> {
  const browser = options.browser ?? new Browser();
  const challenge = options.pkce === undefined ? pkce() : options.pkce;
  const url = authorization_url(t, { ...(challenge ? { code_challenge: challenge.challenge, code_challenge_method: "S256" } : {}), ...params }, options.client_id);
  const { callback } = await authorize(browser, url, { password: t.password, callback_prefix: REDIRECT_URI });
  const code = callback.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${callback.href}`);
  return { code, callback, pkce: challenge, browser };
}

export type ClientAuth = { method: "basic"; client_id: string; secret: string } | { method: "post"; client_id: string; secret: string } | { method: "none"; client_id: string };

export function basic(client_id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${enc(client_id)}:${enc(secret)}`).toString("base64")}`;
}

/** POST /token with the given form and client authentication. */
export async function token_request(
  t: TestProvider,
  form: Record<string, string>,
  auth: ClientAuth | null = { method: "basic", client_id: t.client.client_id, secret: t.secret },
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const body: Record<string, string> = { ...form };
  if (auth?.method === "basic") headers.authorization = basic(auth.client_id, auth.secret);
  if (auth?.method === "post") Object.assign(body, { client_id: auth.client_id, client_secret: auth.secret });
  if (auth?.method === "none") body.client_id = auth.client_id;
  return fetch(new URL("/token", t.url), { method: "POST", headers, body: new URLSearchParams(body).toString() });
}

/** Redeems a code with the default client and the right verifier and redirect URI. */
export async function redeem(t: TestProvider, code: string, verifier: string | null, auth?: ClientAuth, extra: Record<string, string> = {}): Promise<Response> {
  const form: Record<string, string> = { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, ...extra };
  if (verifier !== null) form.code_verifier = verifier;
  return token_request(t, form, auth);
}

export async function userinfo(t: TestProvider, token: string): Promise<Response> {
  return fetch(new URL("/userinfo", t.url), { headers: { authorization: `Bearer ${token}` } });
}
