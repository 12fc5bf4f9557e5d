/**
 * Shortcuts for the token endpoint family (refresh, client credentials, revocation,
 * introspection, client authentication): an openid-client configuration for a client, one full
 * authorization through the pages, and form POSTs with raw client authentication.
 */
import * as client from "openid-client";
import { Browser, authorize, type Step } from "../helpers/browser.ts";
import { basic, type ClientAuth } from "../helpers/flow.ts";
import { REDIRECT_URI, type TestProvider } from "../helpers/provider.ts";

export const insecure = { execute: [client.allowInsecureRequests] };

export type Tokens = client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

/** openid-client configured for a client of the test provider. */
export function rp(t: TestProvider, client_id: string, auth: client.ClientAuth, metadata: Partial<client.ClientMetadata> = {}): Promise<client.Configuration> {
  return client.discovery(new URL(t.issuer), client_id, metadata, auth, insecure);
}

/** One authorization (PKCE, state, nonce with openid) and code exchange; returns the tokens and the pages seen. */
export async function sign_in(
  t: TestProvider,
  config: client.Configuration,
  scope: string,
  options: { browser?: Browser; extra?: Record<string, string> } = {},
): Promise<{ tokens: Tokens; steps: Step[]; nonce: string | undefined }> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const oidc = scope.split(" ").includes("openid");
  const nonce = oidc ? client.randomNonce() : undefined;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    ...(nonce ? { nonce } : {}),
    ...options.extra,
  });
  const { callback, steps } = await authorize(options.browser ?? new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    ...(nonce ? { expectedNonce: nonce } : {}),
    idTokenExpected: oidc,
  });
  return { tokens, steps, nonce };
}

/** POST a form to an endpoint of the provider with raw client authentication. */
export function post_form(t: TestProvider, path: string, form: Record<string, string>, auth: ClientAuth | null): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const body: Record<string, string> = { ...form };
  if (auth?.method === "basic") headers.authorization = basic(auth.client_id, auth.secret);
  if (auth?.method === "post") Object.assign(body, { client_id: auth.client_id, client_secret: auth.secret });
  if (auth?.method === "none") body.client_id = auth.client_id;
  return fetch(new URL(path, t.url), { method: "POST", headers, body: new URLSearchParams(body).toString() });
}

/** The default test client's Basic credentials. */
export function main_client(t: TestProvider): ClientAuth {
  return { method: "basic", client_id: t.client.client_id, secret: t.secret };
}

export async function introspect(t: TestProvider, token: string, auth: ClientAuth | null = main_client(t)): Promise<Record<string, unknown>> {
  const response = await post_form(t, "/introspect", { token }, auth);
  if (response.status !== 200) throw new Error(`introspection answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** The claims of a JWT, unverified (the tests verify signatures where that is the point). */
export function jwt_claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
}

export function jwt_header(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString()) as Record<string, unknown>;
}
