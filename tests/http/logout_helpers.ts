/**
 * Shared by the logout and back-channel logout tests: a relying party (openid-client v6) that
 * signs in through the provider's pages, and small readers of the answers.
 */
import * as client from "openid-client";
import { Browser, authorize } from "../helpers/browser.ts";
import { REDIRECT_URI, type TestProvider } from "../helpers/provider.ts";
import type { ClientMetadata } from "../../src/store/types.ts";

export const BYE = "https://rp.example.com/bye";

const insecure = { execute: [client.allowInsecureRequests] };

export type Rp = { config: client.Configuration; client_id: string };

/** Registers a confidential client (post-logout redirect URI BYE unless told) and discovers the provider as its RP. */
export async function make_rp(t: TestProvider, metadata: ClientMetadata = {}): Promise<Rp> {
  const { client: row, secret } = await t.add_client({
    client_name: "Logout App",
    token_endpoint_auth_method: "client_secret_basic",
    post_logout_redirect_uris: [BYE],
    ...metadata,
  });
  const config = await client.discovery(new URL(t.issuer), row.client_id, undefined, client.ClientSecretBasic(secret!), insecure);
  return { config, client_id: row.client_id };
}

export type SignedIn = { id_token: string; claims: client.IDToken; access_token: string; refresh_token: string | undefined; browser: Browser };

/** The code flow in `browser` (signing in and consenting when asked); returns the validated ID Token. */
export async function sign_in(t: TestProvider, rp: Rp, browser = new Browser(), username = "alice", scope = "openid"): Promise<SignedIn> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(rp.config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  const { callback } = await authorize(browser, url.href, { username, password: t.password, callback_prefix: REDIRECT_URI });
  const tokens = await client.authorizationCodeGrant(rp.config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  return { id_token: tokens.id_token!, claims: tokens.claims()!, access_token: tokens.access_token, refresh_token: tokens.refresh_token, browser };
}

/** The callback of a prompt=none authorization in `browser`: code when signed in, error otherwise. */
export async function silent_authorize(rp: Rp, browser: Browser): Promise<URL> {
  const url = client.buildAuthorizationUrl(rp.config, { redirect_uri: REDIRECT_URI, scope: "openid", prompt: "none", state: "silent" });
  const response = await browser.get(url.href);
  const location = response.headers.get("location");
  if (location === null || !location.startsWith(REDIRECT_URI)) throw new Error(`expected a redirect to the client, got ${response.status} ${location}`);
  return new URL(location);
}

export function end_session_url(rp: Rp, parameters: Record<string, string>): string {
  return client.buildEndSessionUrl(rp.config, parameters).href;
}

/** The payload of a JWT, unverified (for reading claims the test already trusts). */
export function jwt_claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
}
