/** DELETE /admin/api/v1/groups/:name: the group and its memberships. */
import { Fw } from "../../../../fw/index.ts";
import { not_found } from "../../../../oidc/admin/errors.ts";
import { check_group_deletion } from "../../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { group_of } from "./find.ts";

export const AdminGroupDelete = (idp: Provider) =>
  class AdminGroupDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/groups/:name`;
    static openapi: OpenApiOperation = { summary: "Delete a group", tag: "groups", status: 204 };

    async call() {
      const group = await group_of(idp, this.route_params.name ?? "");
      check_group_deletion(idp, group);
      if (!(await idp.store.delete_group(group.id))) throw not_found("group", group.name);
      audit_target(this, { action: "group_deleted", details: { group: group.name } });
      return new Fw.Response.Empty();
    }
  };
