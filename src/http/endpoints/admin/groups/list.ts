/** GET /admin/api/v1/groups: every group with its number of members, by name (groups are few: one page). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { GroupSchema } from "../schemas.ts";

export const AdminGroupList = (idp: Provider) =>
  class AdminGroupList extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/groups`;
    static openapi: OpenApiOperation = { summary: "List groups", tag: "groups", response: z.object({ items: z.array(GroupSchema) }) };

    async call() {
      audit_target(this, { action: "groups_listed" });
      return this.json({ items: await idp.store.list_groups() });
    }
  };
