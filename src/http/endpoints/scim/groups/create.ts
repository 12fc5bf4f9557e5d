/** POST /scim/v2/Groups: a new group (RFC 7644 §3.3), 201 with its Location and version. */
import { Fw } from "../../../../fw/index.ts";
import { create_resource, scim_of } from "../../../../oidc/scim/operations.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outcome_target, SCIM, ScimBody, scim_json } from "../common.ts";

export const ScimGroupCreate = (idp: Provider) =>
  class ScimGroupCreate extends Fw.Endpoint(ScimBody, Fw.Response.Json) {
    static route = `POST ${SCIM}/Groups`;

    async call() {
      const outcome = await create_resource(scim_of(idp), "Group", this.scim_body);
      outcome_target(this, outcome);
      return scim_json(this, outcome.resource!, 201);
    }
  };
