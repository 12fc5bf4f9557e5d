/**
 * GET /saml/resume/:id: a checked SAML request goes on in the browser that started it
 * (oidc/saml/sso.ts): to our sign-in page when the user must sign in (it returns here), or the
 * page whose form posts the signed Response to the service provider's ACS at once (SAML
 * Bindings §3.5.4; the same page and CSP as form_post, http/authorization_response.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { SAML_PATHS } from "../../../oidc/saml/metadata.ts";
import { resume_sso } from "../../../oidc/saml/sso.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { form_post_page } from "../../authorization_response.ts";
import { invalid_page_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const SamlResumeRequest = Fw.Request("SamlResumeRequest", z.object({ id: z.string().max(128) }), {
  on_invalid: invalid_page_request("This sign-in request has expired", () => "Go back to the application and start again."),
});

export const SamlResume = (idp: Provider) =>
  class SamlResume extends Fw.Renderable(Fw.Endpoint(SamlResumeRequest, [Fw.Response.Redirect, Fw.Response.Html])) {
    static route = `GET ${SAML_PATHS.resume}/:id`;

    async call() {
      const step = await resume_sso(idp, this.saml_resume_request.id, this.cookies, client_ip(this.context, idp.config));
      for (const cookie of step.cookies) this.set_cookie(cookie.name, cookie.value, cookie.options);
      if (step.kind === "sign_in") return this.redirect_to(step.url);
      return form_post_page(this, idp, step.acs, step.fields);
    }
  };
