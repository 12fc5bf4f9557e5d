/** DELETE /scim/v2/Groups/:id: 204 (RFC 7644 §3.6); with If-Match, only the version named. */
import { Fw } from "../../../../fw/index.ts";
import { delete_resource, scim_of } from "../../../../oidc/scim/operations.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outcome_target, SCIM } from "../common.ts";

export const ScimGroupDelete = (idp: Provider) =>
  class ScimGroupDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${SCIM}/Groups/:id`;

    async call() {
      outcome_target(this, await delete_resource(scim_of(idp), "Group", this.route_params.id ?? "", this.headers.get("if-match")));
      return new Fw.Response.Empty();
    }
  };
