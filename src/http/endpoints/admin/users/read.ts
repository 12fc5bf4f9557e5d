/** GET /admin/api/v1/users/:id (an id or a username): the user, with an ETag for a later PATCH or DELETE. */
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { UserSchema } from "../schemas.ts";
import { user_of, user_view } from "./find.ts";

export const AdminUserRead = (idp: Provider) =>
  class AdminUserRead extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/users/:id`;
    static openapi: OpenApiOperation = { summary: "Read a user", tag: "users", response: UserSchema, etag: true };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      audit_target(this, { action: "user_read", user_id: user.id });
      return this.json(with_etag(this, await user_view(idp, user)));
    }
  };
