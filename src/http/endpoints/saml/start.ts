/**
 * GET /saml/start?sp=<entityID>[&RelayState=…]: a sign-in started here (IdP-initiated, SAML
 * Profiles §4.1.5) for a service provider whose operator allowed it (`idp saml add
 * --idp-initiated`): the browser signs in if it must, then posts an unsolicited Response to the
 * service provider's default ACS (oidc/saml/sso.ts `start_idp_initiated`).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { count_interaction_start } from "../../../oidc/authorize/interactions.ts";
import { SAML_PATHS } from "../../../oidc/saml/metadata.ts";
import { start_idp_initiated } from "../../../oidc/saml/sso.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_page_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const SamlStartRequest = Fw.Request("SamlStartRequest", z.object({ sp: z.string().min(1).max(1024), RelayState: z.string().max(4096).optional() }), {
  on_invalid: invalid_page_request("The link is invalid", (described) => `It must name the application: ?sp=<its entityID> (${described}).`),
  from: ["query"],
});

export const SamlStart = (idp: Provider) =>
  class SamlStart extends Fw.Endpoint(SamlStartRequest, Fw.Response.Redirect) {
    static route = `GET ${SAML_PATHS.start}`;

    async call() {
      const ip = client_ip(this.context, idp.config);
      // Each start stores a pending sign-in: counted per address as /authorize is.
      await count_interaction_start(idp, ip);
      const input = this.saml_start_request;
      return this.redirect_to(await start_idp_initiated(idp, input.sp, input.RelayState ?? null, ip));
    }
  };
