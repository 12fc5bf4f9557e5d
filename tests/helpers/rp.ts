/**
 * A real relying party for the browser tests: openid-client (v6) behind a tiny server (serve_fetch.ts).
 * /login starts an authorization (PKCE S256, state, nonce; ?acr_values= and ?prompt= passed on),
 * /callback redeems the code, validates the ID Token and calls userinfo — certified client code
 * checking our answers — and shows the results as JSON in #claims and #userinfo (or #error).
 */
import * as client from "openid-client";
import { serve_fetch } from "./serve_fetch.ts";

export type RelyingParty = { url: string; callback: string; stop(): Promise<void> };

const escape_html = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const page = (body: string, status = 200) =>
  new Response(`<!doctype html><html lang="en"><title>RP</title><main>${body}</main></html>`, { status, headers: { "content-type": "text/html; charset=utf-8" } });

/** Starts the RP on `port` (its callback must already be registered for `client_id`). */
export async function start_rp(issuer: string, port: number, client_id: string, secret: string | null): Promise<RelyingParty> {
  const auth = secret === null ? client.None() : client.ClientSecretBasic(secret);
  const config = await client.discovery(new URL(issuer), client_id, undefined, auth, { execute: [client.allowInsecureRequests] });
  const callback = `http://127.0.0.1:${port}/callback`;
  const pending = new Map<string, { verifier: string; nonce: string }>();
  const server = await serve_fetch(
    async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/login") {
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        const nonce = client.randomNonce();
        pending.set(state, { verifier, nonce });
        const params: Record<string, string> = {
          redirect_uri: callback,
          scope: "openid profile email",
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
          state,
          nonce,
        };
        for (const name of ["acr_values", "prompt"]) {
          const value = url.searchParams.get(name);
          if (value) params[name] = value;
        }
        return Response.redirect(client.buildAuthorizationUrl(config, params).href, 302);
      }
      if (url.pathname === "/callback") {
        const state = url.searchParams.get("state") ?? "";
        const flow = pending.get(state);
        pending.delete(state);
        if (url.searchParams.has("error")) return page(`<h1>Not signed in</h1><p id="error">${escape_html(url.searchParams.get("error")!)}</p>`);
        if (!flow) return page(`<p id="error">unknown state</p>`, 400);
        try {
          const tokens = await client.authorizationCodeGrant(config, url, { pkceCodeVerifier: flow.verifier, expectedState: state, expectedNonce: flow.nonce });
          const claims = tokens.claims()!;
          const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
          return page(`<h1>Signed in</h1><pre id="claims">${escape_html(JSON.stringify(claims))}</pre><pre id="userinfo">${escape_html(JSON.stringify(userinfo))}</pre>`);
        } catch (error) {
          return page(`<p id="error">${escape_html(String(error))}</p>`, 500);
        }
      }
      return new Response("not found", { status: 404 });
    },
    { port },
  );
  return { url: `http://127.0.0.1:${port}`, callback, stop: () => server.stop() };
}
