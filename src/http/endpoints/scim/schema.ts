/** GET /scim/v2/Schemas/:id: one of them (RFC 7644 §4), 404 for another id. */
import { Fw } from "../../../fw/index.ts";
import { schemas } from "../../../oidc/scim/discovery.ts";
import { scim_not_found } from "../../../oidc/scim/errors.ts";
import { base_url } from "../../../oidc/scim/resource.ts";
import { scim_of } from "../../../oidc/scim/operations.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { SCIM, scim_json, scim_target } from "./common.ts";

export const ScimSchema = (idp: Provider) =>
  class ScimSchema extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${SCIM}/Schemas/:id`;

    call() {
      scim_target(this, { action: "schemas_read" });
      const all = schemas(base_url(scim_of(idp)));
      const id = this.route_params.id ?? "";
      const one = all.find((schema) => schema.id === id);
      if (one === undefined) throw scim_not_found("Schema", id);
      return scim_json(this, one);
    }
  };
