/** GET /scim/v2/ServiceProviderConfig: what this server supports and its limits (RFC 7644 §4, RFC 7643 §5). */
import { Fw } from "../../../fw/index.ts";
import { service_provider_config } from "../../../oidc/scim/discovery.ts";
import { base_url } from "../../../oidc/scim/resource.ts";
import { scim_of } from "../../../oidc/scim/operations.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { SCIM, scim_json, scim_target } from "./common.ts";

export const ScimServiceProviderConfig = (idp: Provider) =>
  class ScimServiceProviderConfig extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${SCIM}/ServiceProviderConfig`;

    call() {
      scim_target(this, { action: "config_read" });
      return scim_json(this, service_provider_config(base_url(scim_of(idp)), idp.config.body_limit));
    }
  };
