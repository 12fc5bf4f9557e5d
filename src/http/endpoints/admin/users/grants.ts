/** GET /admin/api/v1/users/:id/grants: the applications the user allowed (consents). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { GrantSchema } from "../schemas.ts";
import { user_of } from "./find.ts";

export const AdminUserGrants = (idp: Provider) =>
  class AdminUserGrants extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/users/:id/grants`;
    static openapi: OpenApiOperation = { summary: "List a user's grants (consents)", tag: "grants", response: z.object({ items: z.array(GrantSchema) }) };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      audit_target(this, { action: "grants_listed", user_id: user.id });
      const grants = await idp.store.list_grants_for_user(user.id);
      return this.json({ items: grants.map((g) => ({ client_id: g.client_id, scopes: g.scopes, created_at: g.created_at, updated_at: g.updated_at })) });
    }
  };
