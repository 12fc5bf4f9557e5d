/**
 * GET|POST /saml/slo: the single logout service of our SAML metadata (SAML Profiles §4.4). GET is
 * the HTTP-Redirect binding (SAML Bindings §3.4), POST the HTTP-POST binding (§3.5). A service
 * provider's LogoutRequest is checked and the sessions it names end (oidc/saml/slo.ts); the
 * browser then carries our signed LogoutResponse to its single logout service: a redirect, an
 * auto-submitted form, or — when other participants of the session must be told first — the
 * signed-out page with their iframes, which goes on to the service provider once they have
 * loaded (a script run at the page's load event; a button without script). A LogoutResponse to
 * one of our LogoutRequests (in its iframe) is acknowledged with the signed-out page.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { csp_source } from "../../../oidc/clients/metadata.ts";
import { PageError } from "../../../oidc/errors.ts";
import { SAML_PATHS } from "../../../oidc/saml/metadata.ts";
import { single_logout } from "../../../oidc/saml/slo.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { form_post_page } from "../../authorization_response.ts";
import { invalid_page_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { layout_values } from "../../pages/layout.ts";
import { clear_session_cookie, frame_values, signed_out_csp } from "../../pages/signed_out.ts";

export const SamlSloRequest = Fw.Request(
  "SamlSloRequest",
  z.object({
    SAMLRequest: z.string().max(200_000).optional(),
    SAMLResponse: z.string().max(200_000).optional(),
    RelayState: z.string().max(4096).optional(),
    SigAlg: z.string().max(256).optional(),
    Signature: z.string().max(4096).optional(),
  }),
  { on_invalid: invalid_page_request("The application sent an invalid sign-out request", (described) => `The SAML message is malformed (${described}).`) },
);

/** Goes on to the service provider once the iframes have loaded (the load event waits for them). */
const CONTINUE = `window.addEventListener("load",function(){var c=document.getElementById("saml-continue");if(c.tagName==="FORM"){c.submit()}else{location.assign(c.href)}});`;
const CONTINUE_HASH = `sha256-${createHash("sha256").update(CONTINUE, "utf8").digest("base64")}`;

export const SamlSlo = (idp: Provider) =>
  class SamlSlo extends Fw.Renderable(Fw.Endpoint(SamlSloRequest, [Fw.Response.Redirect, Fw.Response.Html])) {
    static route = `GET|POST ${SAML_PATHS.slo}`;

    async call() {
      const ip = client_ip(this.context, idp.config);
      const input = this.saml_slo_request;
      let step: Awaited<ReturnType<typeof single_logout>>;
      if (input.SAMLRequest === undefined && input.SAMLResponse !== undefined) {
        step = await single_logout(idp, { binding: "response" }, ip);
      } else if (input.SAMLRequest === undefined || input.SAMLRequest === "") {
        throw new PageError("The application sent an invalid sign-out request", "The SAML request carries no SAMLRequest.");
      } else if (this.request.method === "GET") {
        const search = new URL(this.request.url).search;
        step = await single_logout(idp, { binding: "redirect", raw_query: search.startsWith("?") ? search.slice(1) : search }, ip);
      } else {
        // The POST binding's fields come from the form alone.
        const form = (this.request.body ?? {}) as Record<string, unknown>;
        const relay = form.RelayState;
        step = await single_logout(idp, { binding: "post", saml_request: String(form.SAMLRequest ?? ""), relay_state: typeof relay === "string" ? relay : null }, ip);
      }
      // The session is gone: its cookie goes too, when this browser sent it.
      const cookie = clear_session_cookie(idp, this.cookies);
      if (cookie !== null) this.set_cookie(cookie.name, cookie.value, cookie.options);
      const signed_out = { ...layout_values(idp, "Signed out"), heading: "You are signed out", client_name: null, signed_out: true };
      if (step.kind === "acknowledged") return this.view("logged_out", { ...signed_out, message: `You have been signed out of ${signed_out.site}.` });
      const { message, frames } = step;
      if (frames.length === 0) {
        if (message.binding === "redirect") return this.redirect_to(message.url, this.request.method === "POST" ? 303 : 302);
        return form_post_page(this, idp, message.action, message.fields);
      }
      const target = message.binding === "redirect" ? message.url : message.action;
      const csp = signed_out_csp(frames, [csp_source(target) ?? "'none'"], [CONTINUE_HASH])!;
      this.response.headers.set("content-security-policy", csp);
      this.response.headers.set("cache-control", "no-store");
      return this.view("logged_out", {
        ...signed_out,
        message: `You have been signed out of ${signed_out.site} and of the applications you used with it.`,
        frames: frame_values(frames),
        saml_continue: {
          url: target,
          fields: message.binding === "post" ? Object.entries(message.fields).map(([name, value]) => ({ name, value })) : null,
          script: CONTINUE,
        },
      });
    }
  };
