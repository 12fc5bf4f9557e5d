/** GET /scim/v2/Schemas and /Schemas/:urn: the attributes kept for User, Group and the enterprise extension (RFC 7644 §4, RFC 7643 §7). */
import { Fw } from "../../../fw/index.ts";
import { schemas } from "../../../oidc/scim/discovery.ts";
import { base_url } from "../../../oidc/scim/resource.ts";
import { scim_of } from "../../../oidc/scim/operations.ts";
import { LIST_SCHEMA } from "../../../oidc/scim/schema.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { SCIM, scim_json, scim_target } from "./common.ts";

export const ScimSchemas = (idp: Provider) =>
  class ScimSchemas extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${SCIM}/Schemas`;

    call() {
      scim_target(this, { action: "schemas_read" });
      const all = schemas(base_url(scim_of(idp)));
      return scim_json(this, { schemas: [LIST_SCHEMA], totalResults: all.length, startIndex: 1, itemsPerPage: all.length, Resources: all });
    }
  };
