/**
 * GET /demo (development mode only): the built-in demo application starts a sign-in, as any
 * relying party would: a fresh state, nonce and PKCE verifier (RFC 7636) kept in a cookie of its
 * own (HttpOnly; Path=/demo, or `__Host-idp_demo` with Path=/ when the issuer is https, like the
 * provider's cookies: oidc/browser/cookies.ts), then a redirect to /authorize. `?prompt=` and `?acr_values=` are
 * passed on, to try re-authentication and two-step verification.
 */
import { Fw } from "../../../fw/index.ts";
import { cookie_name, cookie_options, type CookieSettings } from "../../../oidc/browser/cookies.ts";
import { random_token, sha256 } from "../../../oidc/crypto/secrets.ts";
import { DEMO_CLIENT_ID, DEMO_PATHS, demo_redirect_uri } from "../../../oidc/ops/demo.ts";
import { PageError } from "../../../oidc/errors.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";

/** The demo's cookie: `__Host-idp_demo` with an https issuer (RFC 6265bis §4.1.3.2), else `idp_demo`. */
export function demo_cookie_name(idp: Provider): string {
  return cookie_name(idp, "idp_demo");
}

/** What the demo application remembers between /demo and /demo/callback. */
export type DemoState = { state: string; nonce: string; verifier: string };

export function encode_demo_state(value: DemoState): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

export function decode_demo_state(cookie: string | null): DemoState | null {
  if (cookie === null || cookie.length > 512) return null;
  try {
    const value = JSON.parse(Buffer.from(cookie, "base64url").toString("utf8")) as Partial<DemoState>;
    const ok = [value.state, value.nonce, value.verifier].every((v) => typeof v === "string" && /^[A-Za-z0-9_-]{16,64}$/.test(v));
    return ok ? (value as DemoState) : null;
  } catch {
    return null;
  }
}

export function demo_cookie_options(idp: Provider, max_age: number): CookieSettings {
  // RFC 6265bis §4.1.3.2: a __Host- cookie must have Path=/.
  return idp.secure ? cookie_options(idp, max_age) : { ...cookie_options(idp, max_age), path: DEMO_PATHS.start };
}

export const Demo = (idp: Provider) =>
  class Demo extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Redirect) {
    static route = `GET ${DEMO_PATHS.start}`;

    async call() {
      if ((await idp.store.get_client(DEMO_CLIENT_ID)) === null) {
        throw new PageError(
          "The demo is not set up",
          "Start the provider in development mode on an empty database with `npm start` (idp serve --demo) to create the demo user and application.",
          "invalid_client",
          true,
        );
      }
      const saved: DemoState = { state: random_token(16), nonce: random_token(16), verifier: random_token(32) };
      this.set_cookie(demo_cookie_name(idp), encode_demo_state(saved), demo_cookie_options(idp, idp.config.tokens.interaction_ttl));
      const url = new URL(`${idp.config.issuer}${PATHS.authorize}`);
      const params: Record<string, string> = {
        client_id: DEMO_CLIENT_ID,
        response_type: "code",
        redirect_uri: demo_redirect_uri(idp),
        scope: "openid profile email",
        state: saved.state,
        nonce: saved.nonce,
        code_challenge: sha256(saved.verifier),
        code_challenge_method: "S256",
      };
      for (const name of ["prompt", "acr_values"]) {
        const value = this.params[name];
        if (value !== undefined && value !== "" && value.length <= 200) params[name] = value;
      }
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return this.redirect_to(url.href);
    }
  };
