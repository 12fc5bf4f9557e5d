/** POST /admin/api/v1/groups: a new group (the rules of `idp groups add`). */
import { Fw } from "../../../../fw/index.ts";
import { create_group } from "../../../../oidc/admin/groups.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { GroupCreateSchema, GroupSchema } from "../schemas.ts";

export const AdminGroupCreateRequest = Fw.Request("AdminGroupCreateRequest", GroupCreateSchema, { from: ["body"] });

export const AdminGroupCreate = (idp: Provider) =>
  class AdminGroupCreate extends Fw.Endpoint(AdminGroupCreateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/groups`;
    static openapi: OpenApiOperation = { summary: "Create a group", tag: "groups", body: GroupCreateSchema, response: GroupSchema, status: 201 };

    async call() {
      const { name, description } = this.admin_group_create_request;
      const group = await create_group(idp.store, name, description ?? null);
      audit_target(this, { action: "group_created", details: { group: group.name } });
      this.response.headers.set("location", `${ADMIN_API}/groups/${encodeURIComponent(group.name)}`);
      return this.json(group, 201);
    }
  };
