/**
 * The application of the federation browser tests: a confidential client of our provider
 * (client_secret_basic, no consent) whose redirect URI is a tiny loopback page, and
 * openid-client's configuration for it. The test builds its authorization request and redeems
 * the code itself, so it can check each step (tests/e2e/federation_*.test.ts).
 */
import * as oidc from "openid-client";
import type { Page } from "playwright-core";
import type { TestProvider } from "./provider.ts";
import { serve_fetch } from "./serve_fetch.ts";

export type LandingApp = { app: oidc.Configuration; callback: string; stop(): Promise<void> };

export async function start_landing_app(t: TestProvider, client_name: string): Promise<LandingApp> {
  const server = await serve_fetch(() => new Response("<!doctype html><title>RP</title><p>back at the app</p>", { headers: { "content-type": "text/html" } }));
  const callback = `${server.url}/callback`;
  const { client, secret } = await t.add_client({ client_name, redirect_uris: [callback], token_endpoint_auth_method: "client_secret_basic", skip_consent: true });
  const app = await oidc.discovery(new URL(t.issuer), client.client_id, undefined, oidc.ClientSecretBasic(secret!), { execute: [oidc.allowInsecureRequests] });
  return { app, callback, stop: () => server.stop() };
}

export type AuthorizationRequest = { url: string; finish(page: Page): Promise<oidc.IDToken> };

/**
 * An authorization request of the application (PKCE S256, state, nonce; `extra` parameters added):
 * its URL, and `finish`, which waits for the callback and redeems the code with the checks
 * openid-client makes, giving the ID Token's claims.
 */
export async function authorization_request(landing: LandingApp, scope: string, extra: Record<string, string> = {}): Promise<AuthorizationRequest> {
  const { app, callback } = landing;
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(app, {
    redirect_uri: callback,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...extra,
  });
  return {
    url: url.href,
    finish: async (page: Page) => {
      await page.waitForURL((u) => u.href.startsWith(callback));
      const tokens = await oidc.authorizationCodeGrant(app, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
      return tokens.claims()!;
    },
  };
}
