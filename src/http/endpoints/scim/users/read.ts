/** GET /scim/v2/Users/:id: one user (RFC 7644 §3.4.1), its meta.version as ETag. */
import { Fw } from "../../../../fw/index.ts";
import { read_resource, scim_of } from "../../../../oidc/scim/operations.ts";
import { excludes, project, projection_of } from "../../../../oidc/scim/projection.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { SCIM, ScimQuery, scim_json, scim_target } from "../common.ts";

export const ScimUserRead = (idp: Provider) =>
  class ScimUserRead extends Fw.Endpoint(ScimQuery, Fw.Response.Json) {
    static route = `GET ${SCIM}/Users/:id`;

    async call() {
      const projection = projection_of("User", this.scim_query.attributes, this.scim_query.excludedAttributes);
      const resource = await read_resource(scim_of(idp), "User", this.route_params.id ?? "", !excludes(projection, "members"));
      scim_target(this, { action: "user_read", user_id: String(resource.id) });
      return scim_json(this, project(resource, projection));
    }
  };
