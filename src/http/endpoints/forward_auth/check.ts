/**
 * GET /forward-auth[?mode=nginx]: the question a reverse proxy asks before each request to a
 * protected application (nginx `auth_request`, Caddy `forward_auth`, Traefik `ForwardAuth`). The
 * rules are oidc/forward_auth/check.ts; here is what the proxies need of the answer:
 *
 * - 200 with the user's headers (IDP_FORWARD_AUTH_HEADER_*) when the browser may open it;
 * - not signed in (or a second factor missing): the default mode (Caddy, Traefik, which pass our
 *   answer to the browser) answers 302 to the start step for GET and HEAD, and 401 for other
 *   methods (a form post cannot be resumed after a sign-in); `mode=nginx` answers 401 with the
 *   start step in `Location`, since `auth_request` passes no answer on and its configuration
 *   turns the 401 into that redirect (deploy/forward-auth/nginx-auth.conf);
 * - outside the application's groups: 403, with a page for browsers (default mode), or with the
 *   start step, which shows that page at the provider, in `Location` (nginx);
 * - no registered application at that host and path: 403, never a redirect to the host a header
 *   named; with nginx to the start step without a target, which says so.
 *
 * Only a trusted proxy may ask (IDP_TRUST_PROXY and IDP_TRUSTED_PROXIES): anyone else could
 * describe any request. The refusals for a setting (no cookie domain, no proxy trust) are 500 and
 * a log line naming the setting; a request from a peer that is not a trusted proxy, or with
 * headers that describe no request, is 403 or 400 and a log line. Every answer is counted
 * (`idp_forward_auth_checks_total`).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { check_forward_auth, start_url } from "../../../oidc/forward_auth/check.ts";
import { FORWARD_AUTH_PATHS } from "../../../oidc/forward_auth/paths.ts";
import { ForwardHeadersError, forward_mode, original_request } from "../../../oidc/forward_auth/request.ts";
import { NOT_REGISTERED } from "../../../oidc/forward_auth/start.ts";
import type { ForwardAuthOutcome } from "../../../oidc/ops/metrics.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip, from_trusted_proxy } from "../../middleware/proxy.ts";
import { denied_values, foreign_page_csp, unknown_values } from "../../pages/forward_auth.ts";

export const ForwardAuthRequest = Fw.Request("ForwardAuthRequest", z.object({ mode: z.string().max(16).optional() }));

export const ForwardAuth = (idp: Provider) =>
  class ForwardAuth extends Fw.Renderable(Fw.Endpoint(ForwardAuthRequest, [Fw.Response.Text, Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${FORWARD_AUTH_PATHS.check}`;

    async call() {
      // An answer about one user's access: never kept by a cache between the proxy and us.
      this.response.headers.set("cache-control", "no-store");
      const mode = forward_mode(this.forward_auth_request.mode);
      if (mode === null) return this.refuse(400, "mode must be nginx, or absent for Caddy and Traefik (X-Forwarded-* headers)");
      if (idp.config.forward_auth.cookie_domain === undefined) {
        return this.refuse(
          500,
          "forward authentication is off: set IDP_FORWARD_AUTH_COOKIE_DOMAIN to the domain of the protected applications (README, Applications behind a reverse proxy)",
        );
      }
      if (!idp.config.trust_proxy) {
        return this.refuse(
          500,
          "forward authentication needs IDP_TRUST_PROXY=true: the request it is asked about is described by the proxy's headers, which are read only from a trusted proxy",
        );
      }
      if (!from_trusted_proxy(this.context, idp.config)) {
        return this.refuse(403, `the peer ${this.request.ip} is not a trusted proxy (IDP_TRUSTED_PROXIES): only the reverse proxy may ask /forward-auth`);
      }
      let original: ReturnType<typeof original_request>;
      try {
        original = original_request(mode, this.headers);
      } catch (error) {
        if (error instanceof ForwardHeadersError) return this.refuse(400, `the proxy's headers describe no request: ${error.message}`);
        throw error;
      }
      const ip = client_ip(this.context, idp.config);
      const outcome = await check_forward_auth(idp, original, this.cookies, ip);
      switch (outcome.kind) {
        case "allowed":
          this.count("allowed");
          for (const [name, value] of outcome.headers) this.response.headers.set(name, value);
          return this.text("", 200);
        case "sign_in":
          this.count("sign_in");
          this.response.headers.set("location", outcome.start_url);
          if (mode === "nginx" || (original.method !== "GET" && original.method !== "HEAD")) return this.text("Sign in first.", 401);
          return this.redirect_to(outcome.start_url, 302);
        case "denied": {
          this.count("denied");
          if (mode === "nginx") {
            this.response.headers.set("location", outcome.start_url);
            return this.text("Not allowed.", 403);
          }
          return this.foreign_page(denied_values(idp, outcome.app, outcome.user), `your account is not in a group allowed to open ${outcome.app.name}`);
        }
        case "unknown":
          this.count("refused");
          idp.log({ level: "warn", msg: "forward-auth: no registered application", host: original.host, path: original.path.slice(0, 200) });
          if (mode === "nginx") {
            this.response.headers.set("location", start_url(idp, null));
            return this.text("No registered application.", 403);
          }
          return this.foreign_page(unknown_values(idp, NOT_REGISTERED), NOT_REGISTERED);
      }
    }

    count(outcome: ForwardAuthOutcome): void {
      idp.metrics.forward_auth(outcome);
    }

    /** A refusal that needs the operator: counted, logged with what to do, answered in plain words. */
    refuse(status: number, reason: string) {
      this.count("refused");
      idp.log({ level: status === 500 ? "error" : "warn", msg: "forward-auth refused", status, reason });
      return this.text(`${reason}\n`, status);
    }

    /** A 403 page shown at the application's address (http/pages/forward_auth.ts), or its words for a caller that is not a browser. */
    foreign_page(values: Record<string, unknown>, words: string) {
      if (this.accepts() !== "html") return this.text(`${words}\n`, 403);
      this.response.headers.set("content-security-policy", foreign_page_csp(idp));
      return this.view("message", values, 403);
    }
  };
