/** GET /admin/api/v1/apps: every protected application (forward authentication), by name (they are few: one page). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, type OpenApiOperation } from "../common.ts";
import { APPS_API, ProtectedAppSchema, app_view } from "./schemas.ts";

export const AdminAppList = (idp: Provider) =>
  class AdminAppList extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${APPS_API}`;
    static openapi: OpenApiOperation = { summary: "List protected applications (forward authentication)", tag: "apps", response: z.object({ items: z.array(ProtectedAppSchema) }) };

    async call() {
      audit_target(this, { action: "protected_apps_listed" });
      return this.json({ items: (await idp.store.list_protected_apps()).map(app_view) });
    }
  };
