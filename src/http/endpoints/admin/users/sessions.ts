/** GET /admin/api/v1/users/:id/sessions: the user's browser sessions (never a cookie). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { SessionSchema } from "../schemas.ts";
import { user_of } from "./find.ts";

export const AdminUserSessions = (idp: Provider) =>
  class AdminUserSessions extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/users/:id/sessions`;
    static openapi: OpenApiOperation = { summary: "List a user's sessions", tag: "sessions", response: z.object({ items: z.array(SessionSchema) }) };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      audit_target(this, { action: "sessions_listed", user_id: user.id });
      const sessions = await idp.store.list_sessions_for_user(user.id);
      const now = idp.now();
      const items = sessions
        .filter((s) => s.expires_at > now)
        .map((s) => ({
          id: s.id_hash,
          auth_time: s.auth_time,
          amr: s.amr,
          created_at: s.created_at,
          last_seen_at: s.last_seen_at,
          expires_at: s.expires_at,
          user_agent: s.user_agent,
          ip: s.ip,
        }));
      return this.json({ items });
    }
  };
