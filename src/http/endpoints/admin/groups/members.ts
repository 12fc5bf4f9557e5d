/** GET /admin/api/v1/groups/:name/members: the members, by username. */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { GroupMemberSchema } from "../schemas.ts";
import { group_of } from "./find.ts";

export const AdminGroupMembers = (idp: Provider) =>
  class AdminGroupMembers extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/groups/:name/members`;
    static openapi: OpenApiOperation = { summary: "List a group's members", tag: "groups", response: z.object({ items: z.array(GroupMemberSchema) }) };

    async call() {
      const group = await group_of(idp, this.route_params.name ?? "");
      audit_target(this, { action: "group_members_listed", details: { group: group.name } });
      return this.json({ items: await idp.store.list_group_members(group.id) });
    }
  };
