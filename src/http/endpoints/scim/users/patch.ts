/** PATCH /scim/v2/Users/:id: add, replace, remove (RFC 7644 §3.5.2); with If-Match, only the version named. */
import { Fw } from "../../../../fw/index.ts";
import { patch_resource, scim_of } from "../../../../oidc/scim/operations.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outcome_target, SCIM, ScimBody, scim_json } from "../common.ts";

export const ScimUserPatch = (idp: Provider) =>
  class ScimUserPatch extends Fw.Endpoint(ScimBody, Fw.Response.Json) {
    static route = `PATCH ${SCIM}/Users/:id`;

    async call() {
      const outcome = await patch_resource(scim_of(idp), "User", this.route_params.id ?? "", this.scim_body, this.headers.get("if-match"));
      outcome_target(this, outcome);
      return scim_json(this, outcome.resource!);
    }
  };
