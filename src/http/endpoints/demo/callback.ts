/**
 * GET /demo/callback (development mode only): the demo application's redirect URI. It does what
 * a relying party does (OIDC Core §3.1.3): checks state and iss (RFC 9207), redeems the code at
 * /token with the PKCE verifier, validates the ID Token (signature against the JWKS, iss, aud,
 * exp, nonce), calls /userinfo, and shows the claims. The provider calls its own endpoints
 * in-process (`backchannel`): no loopback connection, whatever the issuer's host resolves to.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import { Fw } from "../../../fw/index.ts";
import { DEMO_CLIENT_ID, DEMO_PATHS, demo_redirect_uri } from "../../../oidc/ops/demo.ts";
import { PageError } from "../../../oidc/errors.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { layout_values } from "../../pages/layout.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { decode_demo_state, demo_cookie_name, demo_cookie_options, type DemoState } from "./start.ts";

/** Answers a request with the provider's own endpoints, in-process. */
export type Backchannel = (request: Request) => Promise<Response>;

type Outcome = { claims: JWTPayload; userinfo: unknown; scope: string } | { error: string; description: string };

export const DemoCallback = (idp: Provider, backchannel: Backchannel) =>
  class DemoCallback extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Html)) {
    static route = `GET ${DEMO_PATHS.callback}`;

    async call() {
      const saved = decode_demo_state(this.cookies.get(demo_cookie_name(idp)));
      const params = this.params;
      if (saved === null || params.state !== saved.state) {
        throw new PageError(
          "Start the demo again",
          "This answer does not belong to a sign-in started by the demo in this browser (state mismatch, RFC 6749 §10.12). Open /demo to start again.",
        );
      }
      // The state is single use.
      this.set_cookie(demo_cookie_name(idp), "", demo_cookie_options(idp, 0));
      const outcome = await this.complete(saved);
      const issuer = idp.config.issuer;
      return this.view("demo_callback", {
        ...layout_values(idp, "error" in outcome ? "Demo sign-in failed" : "Demo: signed in"),
        wide: true,
        error: "error" in outcome ? outcome : null,
        claims: "error" in outcome ? null : JSON.stringify(outcome.claims, null, 2),
        userinfo: "error" in outcome ? null : JSON.stringify(outcome.userinfo, null, 2),
        amr: "error" in outcome ? null : ((outcome.claims.amr as string[] | undefined)?.join(", ") ?? null),
        links: {
          again: `${issuer}${DEMO_PATHS.start}`,
          two_factor: `${issuer}${DEMO_PATHS.start}?acr_values=mfa`,
          account: `${issuer}/account`,
          logout: `${issuer}${PATHS.logout}`,
        },
      });
    }

    async complete(saved: DemoState): Promise<Outcome> {
      const issuer = idp.config.issuer;
      const params = this.params;
      // RFC 9207 §2.4: the response comes from the issuer the request was sent to.
      if (params.iss !== issuer) return { error: "invalid_response", description: `iss is ${params.iss ?? "missing"}, expected ${issuer}` };
      if (params.error !== undefined) return { error: params.error, description: params.error_description ?? "" };
      if (params.code === undefined) return { error: "invalid_response", description: "the answer has no code" };

      const form = new URLSearchParams({
        grant_type: "authorization_code",
        code: params.code,
        redirect_uri: demo_redirect_uri(idp),
        client_id: DEMO_CLIENT_ID,
        code_verifier: saved.verifier,
      });
      const token = await backchannel(
        new Request(`${issuer}${PATHS.token}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body: form }),
      );
      const tokens = (await token.json()) as { access_token?: string; id_token?: string; scope?: string; error?: string; error_description?: string };
      if (!token.ok || tokens.access_token === undefined || tokens.id_token === undefined) {
        return { error: tokens.error ?? "token_error", description: tokens.error_description ?? `/token answered ${token.status}` };
      }

      const jwks = (await (await backchannel(new Request(`${issuer}${PATHS.jwks}`))).json()) as JSONWebKeySet;
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(tokens.id_token, createLocalJWKSet(jwks), { issuer, audience: DEMO_CLIENT_ID }));
      } catch (error) {
        return { error: "invalid_id_token", description: (error as Error).message };
      }
      // OIDC Core §3.1.3.7 rule 11: the nonce is the one this request sent.
      if (claims.nonce !== saved.nonce) return { error: "invalid_id_token", description: "the ID Token's nonce is not the one sent" };

      const answer = await backchannel(new Request(`${issuer}${PATHS.userinfo}`, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: "application/json" } }));
      const userinfo: unknown = await answer.json();
      return { claims, userinfo, scope: tokens.scope ?? "" };
    }
  };
