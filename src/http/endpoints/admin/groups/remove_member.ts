/** DELETE /admin/api/v1/groups/:name/members/:user: clients that require the group refuse the user at the next sign-in or refresh. */
import { Fw } from "../../../../fw/index.ts";
import { AdminError } from "../../../../oidc/admin/errors.ts";
import { check_admin_group_membership } from "../../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { user_of } from "../users/find.ts";
import { group_of } from "./find.ts";

export const AdminGroupRemoveMember = (idp: Provider) =>
  class AdminGroupRemoveMember extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/groups/:name/members/:user`;
    static openapi: OpenApiOperation = { summary: "Remove a user from a group", tag: "groups", status: 204 };

    async call() {
      const group = await group_of(idp, this.route_params.name ?? "");
      const user = await user_of(idp, this.route_params.user ?? "");
      check_admin_group_membership(idp, group);
      audit_target(this, { action: "group_member_removed", user_id: user.id, details: { group: group.name } });
      if (!(await idp.store.remove_group_member(group.id, user.id))) throw new AdminError("not_found", `${user.username} is not in group ${group.name}`);
      return new Fw.Response.Empty();
    }
  };
