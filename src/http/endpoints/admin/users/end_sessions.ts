/**
 * DELETE /admin/api/v1/users/:id/sessions: ends every session of the user and revokes their
 * tokens (sign out everywhere); the sessions' clients get back-channel logout (logout/bulk.ts).
 */
import { Fw } from "../../../../fw/index.ts";
import { with_backchannel_logout } from "../../../../oidc/logout/bulk.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { end_user_sessions } from "../../../../oidc/signin/sessions.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { SessionsEndedSchema } from "../schemas.ts";
import { user_of } from "./find.ts";

export const AdminUserEndSessions = (idp: Provider) =>
  class AdminUserEndSessions extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `DELETE ${ADMIN_API}/users/:id/sessions`;
    static openapi: OpenApiOperation = { summary: "End all of a user's sessions and revoke their tokens", tag: "sessions", response: SessionsEndedSchema };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      const ended = await with_backchannel_logout(idp, user.id, () => end_user_sessions(idp.store, user.id, idp.now()));
      audit_target(this, { action: "sessions_ended", user_id: user.id, details: ended });
      return this.json(ended);
    }
  };
