/** POST /scim/v2/Users: a new user (RFC 7644 §3.3), 201 with its Location and version. */
import { Fw } from "../../../../fw/index.ts";
import { create_resource, scim_of } from "../../../../oidc/scim/operations.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outcome_target, SCIM, ScimBody, scim_json } from "../common.ts";

export const ScimUserCreate = (idp: Provider) =>
  class ScimUserCreate extends Fw.Endpoint(ScimBody, Fw.Response.Json) {
    static route = `POST ${SCIM}/Users`;

    async call() {
      const outcome = await create_resource(scim_of(idp), "User", this.scim_body);
      outcome_target(this, outcome);
      return scim_json(this, outcome.resource!, 201);
    }
  };
