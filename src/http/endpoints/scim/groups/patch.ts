/** PATCH /scim/v2/Groups/:id: add, replace, remove (RFC 7644 §3.5.2); with If-Match, only the version named. */
import { Fw } from "../../../../fw/index.ts";
import { patch_resource, scim_of } from "../../../../oidc/scim/operations.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outcome_target, SCIM, ScimBody, scim_json } from "../common.ts";

export const ScimGroupPatch = (idp: Provider) =>
  class ScimGroupPatch extends Fw.Endpoint(ScimBody, Fw.Response.Json) {
    static route = `PATCH ${SCIM}/Groups/:id`;

    async call() {
      const outcome = await patch_resource(scim_of(idp), "Group", this.route_params.id ?? "", this.scim_body, this.headers.get("if-match"));
      outcome_target(this, outcome);
      return scim_json(this, outcome.resource!);
    }
  };
