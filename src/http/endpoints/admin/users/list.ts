/**
 * GET /admin/api/v1/users: users in username order, a page at a time (keyset: `cursor` is the
 * last username of the previous page), optionally those whose username or e-mail starts with `q`.
 */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { decode_cursor, page_of } from "../../../../oidc/admin/cursor.ts";
import { public_user } from "../../../../oidc/admin/users.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, PAGE_QUERY, audit_target, page_schema, type OpenApiOperation } from "../common.ts";
import { UserSchema } from "../schemas.ts";

const UserListQuery = z.strictObject({ ...PAGE_QUERY, q: z.string().trim().min(1).max(254).optional() });
export const AdminUserListRequest = Fw.Request("AdminUserListRequest", UserListQuery, { from: ["query"] });

export const AdminUserList = (idp: Provider) =>
  class AdminUserList extends Fw.Endpoint(AdminUserListRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/users`;
    static openapi: OpenApiOperation = { summary: "List and search users", tag: "users", query: UserListQuery, response: page_schema(UserSchema) };

    async call() {
      const { limit, cursor, q } = this.admin_user_list_request;
      const after = cursor === undefined ? undefined : decode_cursor(cursor, (v): v is string => typeof v === "string");
      const rows = await idp.store.search_users({ q, after, limit: limit + 1 });
      const page = page_of(rows, limit, (last) => last.username);
      audit_target(this, { action: "users_listed" });
      return this.json({ items: page.items.map(public_user), next_cursor: page.next_cursor });
    }
  };
