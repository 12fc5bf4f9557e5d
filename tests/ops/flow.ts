/**
 * The authorization code flow against any running instance (a child process, or one of several
 * sharing a database), without the in-process TestProvider: the authorization URL can go to one
 * instance and the code to another.
 */
import { Browser, authorize, type Step } from "../helpers/browser.ts";
import { basic, pkce, type Pkce } from "../helpers/flow.ts";

export const CALLBACK = "https://rp.example.com/callback";

export type Client = { client_id: string; client_secret: string };

export type CodeResult = { code: string; pkce: Pkce; steps: Step[]; browser: Browser };

/** Runs /authorize on `base` in `browser` (signing in with `password` if asked) up to the callback. */
export async function get_code(base: string, client: Client, password: string, browser = new Browser(), scope = "openid email"): Promise<CodeResult> {
  const challenge = pkce();
  const url = new URL("/authorize", base);
  const params = {
    client_id: client.client_id,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope,
    state: "st-1",
    nonce: "n-1",
    code_challenge: challenge.challenge,
    code_challenge_method: "S256",
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const { callback, steps } = await authorize(browser, url.href, { password, callback_prefix: CALLBACK });
  const code = callback.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${callback.href}`);
  return { code, pkce: challenge, steps, browser };
}

/** POST /token on `base` with client_secret_basic. */
export function redeem(base: string, client: Client, code: string, verifier: string, signal?: AbortSignal): Promise<Response> {
  const body = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: CALLBACK, code_verifier: verifier });
  return fetch(new URL("/token", base), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: basic(client.client_id, client.client_secret) },
    body,
    ...(signal ? { signal } : {}),
  });
}

export function userinfo(base: string, access_token: string, signal?: AbortSignal): Promise<Response> {
  return fetch(new URL("/userinfo", base), { headers: { authorization: `Bearer ${access_token}` }, ...(signal ? { signal } : {}) });
}

export type Tokens = { access_token: string; id_token?: string; refresh_token?: string; token_type: string; scope: string };

/** Redeems and expects 200. */
export async function tokens(base: string, client: Client, result: CodeResult): Promise<Tokens> {
  const response = await redeem(base, client, result.code, result.pkce.verifier);
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Tokens;
}

/** The protected header of a JWS. */
export function jws_header(jwt: string): { alg: string; kid: string } {
  return JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString()) as { alg: string; kid: string };
}
