/**
 * PATCH /admin/api/v1/users/:id: changes the members sent (null clears one), with If-Match.
 * `status: "disabled"` disables the account: every later sign-in is refused and its sessions and
 * tokens end now, their clients told by back-channel logout (logout/bulk.ts), refused for the
 * last active administrator; `"active"` enables it again. `attributes` sets or clears custom
 * attributes by name (oidc/attributes/values.ts).
 */
import { Fw } from "../../../../fw/index.ts";
import { change_user } from "../../../../oidc/admin/users.ts";
import { check_admin_member_recovery } from "../../../../oidc/admin/lasting_power.ts";
import { with_backchannel_logout } from "../../../../oidc/logout/bulk.ts";
import { check_lockout } from "../../../../oidc/admin/lockout.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { UserPatchSchema, UserSchema } from "../schemas.ts";
import { set_user_attributes } from "../../../../oidc/attributes/values.ts";
import { user_of, user_view } from "./find.ts";

export const AdminUserUpdateRequest = Fw.Request("AdminUserUpdateRequest", UserPatchSchema, { from: ["body"] });

export const AdminUserUpdate = (idp: Provider) =>
  class AdminUserUpdate extends Fw.Endpoint(AdminUserUpdateRequest, Fw.Response.Json) {
    static route = `PATCH ${ADMIN_API}/users/:id`;
    static openapi: OpenApiOperation = {
      summary: "Change a user's profile or status (disable, enable)",
      tag: "users",
      body: UserPatchSchema,
      response: UserSchema,
      etag: true,
      if_match: true,
    };

    async call() {
      const current = await user_of(idp, this.route_params.id ?? "");
      require_match(this, await user_view(idp, current));
      await check_admin_member_recovery(idp, current.id, this.admin_user_update_request);
      const { attributes, ...change } = this.admin_user_update_request;
      // Custom attributes first: a value of the wrong type is a 400 naming it, before anything is written.
      if (attributes !== undefined) await set_user_attributes(idp.store, current.id, attributes, idp.now());
      // Not the last active administrator (oidc/admin/lockout.ts).
      if (change.status === "disabled" && current.status !== "disabled") await check_lockout(idp.store, idp.config.admin_console.group, current, "disable");
      const { user, action, ended } = await (change.status === "disabled"
        ? with_backchannel_logout(idp, current.id, () => change_user(idp.store, current, change, idp.now()))
        : change_user(idp.store, current, change, idp.now()));
      // "user_enabled" is reported as the API always did: an update.
      audit_target(this, {
        action: action === "user_disabled" ? action : "user_updated",
        user_id: user.id,
        details: { changed: Object.keys(this.admin_user_update_request), ...(ended ?? {}) },
      });
      return this.json(with_etag(this, await user_view(idp, user)));
    }
  };
