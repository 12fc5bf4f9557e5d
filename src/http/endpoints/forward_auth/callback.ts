/**
 * GET /forward-auth/callback?code=…[&mode=nginx]: an application's callback
 * (`https://app.example.org/.idp/callback?code=…`), which the application's proxy forwards here
 * (deploy/forward-auth/). The rules are oidc/forward_auth/callback.ts; here:
 *
 * - the application's host is read from the proxy's headers (X-Forwarded-Proto and
 *   X-Forwarded-Host, or X-Original-URL with `mode=nginx`), from a trusted proxy only, as for the
 *   check;
 * - a usable code: its host-only cookie (no Domain: the application's host alone) and a 302 to
 *   the URL the code was made for;
 * - otherwise 400 with a page, shown at the application's address (no redirect anywhere).
 *
 * Never cached, and no referrer: the URL carried a code.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { CODE_UNUSABLE, redeem_code } from "../../../oidc/forward_auth/callback.ts";
import { FORWARD_AUTH_PATHS } from "../../../oidc/forward_auth/paths.ts";
import { ForwardHeadersError, forward_mode, original_request } from "../../../oidc/forward_auth/request.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { from_trusted_proxy } from "../../middleware/proxy.ts";
import { foreign_page_csp, unusable_link_values } from "../../pages/forward_auth.ts";

export const ForwardAuthCallbackRequest = Fw.Request("ForwardAuthCallbackRequest", z.object({ code: z.string().max(128).optional(), mode: z.string().max(16).optional() }));

export const ForwardAuthCallback = (idp: Provider) =>
  class ForwardAuthCallback extends Fw.Renderable(Fw.Endpoint(ForwardAuthCallbackRequest, [Fw.Response.Text, Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${FORWARD_AUTH_PATHS.callback}`;

    async call() {
      this.response.headers.set("cache-control", "no-store");
      this.response.headers.set("referrer-policy", "no-referrer");
      const input = this.forward_auth_callback_request;
      const mode = forward_mode(input.mode);
      if (mode === null) return this.refuse(400, "mode must be nginx, or absent for Caddy and Traefik (X-Forwarded-* headers)");
      if (idp.config.forward_auth.cookie_domain === undefined) {
        return this.refuse(500, "forward authentication is off: set IDP_FORWARD_AUTH_COOKIE_DOMAIN (README, Applications behind a reverse proxy)");
      }
      if (!idp.config.trust_proxy || !from_trusted_proxy(this.context, idp.config)) {
        return this.refuse(403, `the peer ${this.request.ip} is not a trusted proxy (IDP_TRUST_PROXY, IDP_TRUSTED_PROXIES): only the application's proxy may forward its callback`);
      }
      let host: string;
      try {
        host = original_request(mode, this.headers).host;
      } catch (error) {
        if (error instanceof ForwardHeadersError) return this.refuse(400, `the proxy's headers describe no request: ${error.message}`);
        throw error;
      }
      const outcome = await redeem_code(idp, { host }, input.code);
      if (outcome.kind === "invalid") {
        idp.log({ level: "warn", msg: "forward-auth callback refused", host });
        if (this.accepts() !== "html") return this.text(`${CODE_UNUSABLE}\n`, 400);
        this.response.headers.set("content-security-policy", foreign_page_csp(idp));
        return this.view("message", unusable_link_values(idp, outcome.message), 400);
      }
      this.set_cookie(outcome.cookie.name, outcome.cookie.value, outcome.cookie.options);
      return this.redirect_to(outcome.url, 302);
    }

    refuse(status: number, reason: string) {
      idp.log({ level: status === 500 ? "error" : "warn", msg: "forward-auth callback refused", status, reason });
      return this.text(`${reason}\n`, status);
    }
  };
