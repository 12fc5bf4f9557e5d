/** GET /scim/v2/ResourceTypes and /ResourceTypes/:id: User and Group (RFC 7644 §4, RFC 7643 §6). */
import { Fw } from "../../../fw/index.ts";
import { resource_types } from "../../../oidc/scim/discovery.ts";
import { base_url } from "../../../oidc/scim/resource.ts";
import { scim_of } from "../../../oidc/scim/operations.ts";
import { LIST_SCHEMA } from "../../../oidc/scim/schema.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { SCIM, scim_json, scim_target } from "./common.ts";

export const ScimResourceTypes = (idp: Provider) =>
  class ScimResourceTypes extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${SCIM}/ResourceTypes`;

    call() {
      scim_target(this, { action: "resource_types_read" });
      const all = resource_types(base_url(scim_of(idp)));
      return scim_json(this, { schemas: [LIST_SCHEMA], totalResults: all.length, startIndex: 1, itemsPerPage: all.length, Resources: all });
    }
  };
