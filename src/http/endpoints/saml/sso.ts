/**
 * GET|POST /saml/sso: the single sign-on service of our SAML metadata. GET is the HTTP-Redirect
 * binding (SAML Bindings §3.4: SAMLRequest deflated in the query, its signature over the raw
 * query), POST the HTTP-POST binding (§3.5: SAMLRequest in the form). The request is checked
 * (oidc/saml/authn_request.ts) and kept; the browser goes on at /saml/resume/<id>, a GET that
 * carries our cookies even when this POST came from another site. Refusals are pages: the
 * request's ACS is not trusted before the checks pass.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { count_interaction_start } from "../../../oidc/authorize/interactions.ts";
import { PageError } from "../../../oidc/errors.ts";
import { SAML_PATHS } from "../../../oidc/saml/metadata.ts";
import { start_sso } from "../../../oidc/saml/sso.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_page_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

/** The parameters of both bindings, bounded (the decoded message has its own cap, oidc/saml/xml.ts). */
export const SamlSsoRequest = Fw.Request(
  "SamlSsoRequest",
  z.object({
    SAMLRequest: z.string().max(200_000).optional(),
    RelayState: z.string().max(4096).optional(),
    SigAlg: z.string().max(256).optional(),
    Signature: z.string().max(4096).optional(),
  }),
  { on_invalid: invalid_page_request("The application sent an invalid sign-in request", (described) => `The SAML request is malformed (${described}).`) },
);

export const SamlSso = (idp: Provider) =>
  class SamlSso extends Fw.Renderable(Fw.Endpoint(SamlSsoRequest, [Fw.Response.Redirect, Fw.Response.Html])) {
    static route = `GET|POST ${SAML_PATHS.sso}`;

    async call() {
      const ip = client_ip(this.context, idp.config);
      // Each request stores a pending sign-in: counted per address as /authorize is.
      await count_interaction_start(idp, ip);
      let next: string;
      if (this.request.method === "GET") {
        const search = new URL(this.request.url).search;
        next = await start_sso(idp, { binding: "redirect", raw_query: search.startsWith("?") ? search.slice(1) : search }, ip);
      } else {
        // The POST binding's fields come from the form alone.
        const form = (this.request.body ?? {}) as Record<string, unknown>;
        const request = form.SAMLRequest;
        const relay = form.RelayState;
        if (typeof request !== "string" || request === "") throw new PageError("The application sent an invalid sign-in request", "The SAML request carries no SAMLRequest.");
        next = await start_sso(idp, { binding: "post", saml_request: request, relay_state: typeof relay === "string" ? relay : null }, ip);
      }
      // 303: after a POST the browser must GET the next page.
      return this.redirect_to(next, this.request.method === "POST" ? 303 : 302);
    }
  };
