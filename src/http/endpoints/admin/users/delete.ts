/**
 * DELETE /admin/api/v1/users/:id, with If-Match: the user and their sessions, grants, codes and
 * tokens; the sessions' clients get back-channel logout (logout/bulk.ts). Refused (409) for the
 * last active administrator (oidc/admin/lockout.ts).
 */
import { Fw } from "../../../../fw/index.ts";
import { lost_write } from "../../../../oidc/admin/etag.ts";
import { check_lockout } from "../../../../oidc/admin/lockout.ts";
import { with_backchannel_logout } from "../../../../oidc/logout/bulk.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, require_match, type OpenApiOperation } from "../common.ts";
import { user_of, user_view } from "./find.ts";

export const AdminUserDelete = (idp: Provider) =>
  class AdminUserDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/users/:id`;
    static openapi: OpenApiOperation = { summary: "Delete a user", tag: "users", status: 204, if_match: true };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      require_match(this, await user_view(idp, user));
      await check_lockout(idp.store, idp.config.admin_console.group, user, "delete");
      // Only the version whose ETag was checked (store/types/common.ts IfVersion); the user's clients hear of the ended sessions (logout/bulk.ts).
      if (!(await with_backchannel_logout(idp, user.id, () => idp.store.delete_user(user.id, { if_version: user.version }))))
        throw await lost_write(idp.store.get_user_by_id(user.id), "user", user.id);
      audit_target(this, { action: "user_deleted", user_id: user.id, details: { username: user.username } });
      return new Fw.Response.Empty();
    }
  };
