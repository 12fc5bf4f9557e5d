/** GET /scim/v2/ResourceTypes/:id: one of them (RFC 7644 §4), 404 for another id. */
import { Fw } from "../../../fw/index.ts";
import { resource_types } from "../../../oidc/scim/discovery.ts";
import { scim_not_found } from "../../../oidc/scim/errors.ts";
import { base_url } from "../../../oidc/scim/resource.ts";
import { scim_of } from "../../../oidc/scim/operations.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { SCIM, scim_json, scim_target } from "./common.ts";

export const ScimResourceType = (idp: Provider) =>
  class ScimResourceType extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${SCIM}/ResourceTypes/:id`;

    call() {
      scim_target(this, { action: "resource_types_read" });
      const all = resource_types(base_url(scim_of(idp)));
      const id = this.route_params.id ?? "";
      const one = all.find((type) => type.id === id);
      if (one === undefined) throw scim_not_found("ResourceType", id);
      return scim_json(this, one);
    }
  };
