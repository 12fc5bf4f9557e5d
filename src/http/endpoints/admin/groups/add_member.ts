/** PUT /admin/api/v1/groups/:name/members/:user (an id or a username): idempotent; 201 when added, 200 when already a member. */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { check_admin_group_membership } from "../../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { user_of } from "../users/find.ts";
import { group_of } from "./find.ts";

const Membership = z.object({ group: z.string(), user_id: z.string(), username: z.string(), added: z.boolean() });

export const AdminGroupAddMember = (idp: Provider) =>
  class AdminGroupAddMember extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `PUT ${ADMIN_API}/groups/:name/members/:user`;
    static openapi: OpenApiOperation = { summary: "Add a user to a group", tag: "groups", response: Membership };

    async call() {
      const group = await group_of(idp, this.route_params.name ?? "");
      const user = await user_of(idp, this.route_params.user ?? "");
      check_admin_group_membership(idp, group);
      const added = await idp.store.add_group_member(group.id, user.id, idp.now());
      audit_target(this, { action: "group_member_added", user_id: user.id, details: { group: group.name, added } });
      return this.json({ group: group.name, user_id: user.id, username: user.username, added }, added ? 201 : 200);
    }
  };
