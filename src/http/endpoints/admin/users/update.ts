/**
 * PATCH /admin/api/v1/users/:id: changes the members sent (null clears one), with If-Match.
 * `status: "disabled"` disables the account: every later sign-in is refused and its sessions and
 * tokens end now; `"active"` enables it again.
 */
import { Fw } from "../../../../fw/index.ts";
import { AdminError } from "../../../../oidc/admin/errors.ts";
import { disable_user } from "../../../../oidc/admin/users.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import type { UserPatch } from "../../../../store/types.ts";
import { ADMIN_API, audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { UserPatchSchema, UserSchema } from "../schemas.ts";
import { user_of, user_view } from "./find.ts";

export const AdminUserUpdateRequest = Fw.Request("AdminUserUpdateRequest", UserPatchSchema, { from: ["body"] });

export const AdminUserUpdate = (idp: Provider) =>
  class AdminUserUpdate extends Fw.Endpoint(AdminUserUpdateRequest, Fw.Response.Json) {
    static route = `PATCH ${ADMIN_API}/users/:id`;
    static openapi: OpenApiOperation = { summary: "Change a user's profile or status (disable, enable)", tag: "users", body: UserPatchSchema, response: UserSchema, etag: true, if_match: true };

    async call() {
      const current = await user_of(idp, this.route_params.id ?? "");
      require_match(this, await user_view(idp, current));
      const { status, ...profile } = this.admin_user_update_request;
      // Invited and unverified accounts become active through their own link (account/invitations.ts, verification.ts).
      if (status === "active" && (current.status === "invited" || current.status === "unverified")) {
        throw new AdminError("conflict", `user "${current.username}" is ${current.status}: the account becomes active when its link is followed`);
      }
      const patch: UserPatch = { ...profile } as UserPatch;
      // An address that changes is not verified any more, unless the same request says it is.
      if (profile.email !== undefined && profile.email !== current.email && profile.email_verified === undefined) patch.email_verified = false;
      if (profile.phone_number !== undefined && profile.phone_number !== current.phone_number && profile.phone_number_verified === undefined) patch.phone_number_verified = false;
      if (status === "active" && current.status === "disabled") patch.status = "active";
      let user = Object.keys(patch).length === 0 ? current : ((await idp.store.update_user(current.id, patch)) ?? current);
      let ended = {};
      if (status === "disabled" && current.status !== "disabled") {
        const disabled = await disable_user(idp.store, user, idp.now());
        user = disabled.user;
        ended = { sessions_ended: disabled.sessions_ended, tokens_revoked: disabled.tokens_revoked };
      }
      audit_target(this, { action: status === "disabled" && current.status !== "disabled" ? "user_disabled" : "user_updated", user_id: user.id, details: { changed: Object.keys(this.admin_user_update_request), ...ended } });
      return this.json(with_etag(this, await user_view(idp, user)));
    }
  };
