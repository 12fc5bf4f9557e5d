/** PUT /scim/v2/Users/:id: the user replaced (RFC 7644 §3.5.1); with If-Match, only the version named (§3.14: 412 otherwise). */
import { Fw } from "../../../../fw/index.ts";
import { replace_resource, scim_of } from "../../../../oidc/scim/operations.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outcome_target, SCIM, ScimBody, scim_json } from "../common.ts";

export const ScimUserReplace = (idp: Provider) =>
  class ScimUserReplace extends Fw.Endpoint(ScimBody, Fw.Response.Json) {
    static route = `PUT ${SCIM}/Users/:id`;

    async call() {
      const outcome = await replace_resource(scim_of(idp), "User", this.route_params.id ?? "", this.scim_body, this.headers.get("if-match"));
      outcome_target(this, outcome);
      return scim_json(this, outcome.resource!);
    }
  };
