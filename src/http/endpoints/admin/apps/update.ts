/**
 * PATCH /admin/api/v1/apps/:name, with If-Match: the URL, groups, second factor and rules sent,
 * as `idp apps update` changes them (`rules` replaces every rule; `[]` clears them).
 */
import { Fw } from "../../../../fw/index.ts";
import { update_app } from "../../../../oidc/admin/apps.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { APPS_API, ProtectedAppPatchSchema, ProtectedAppSchema, app_of, app_view } from "./schemas.ts";

export const AdminAppUpdateRequest = Fw.Request("AdminAppUpdateRequest", ProtectedAppPatchSchema, { from: ["body"] });

export const AdminAppUpdate = (idp: Provider) =>
  class AdminAppUpdate extends Fw.Endpoint(AdminAppUpdateRequest, Fw.Response.Json) {
    static route = `PATCH ${APPS_API}/:name`;
    static openapi: OpenApiOperation = {
      summary: "Change a protected application",
      tag: "apps",
      body: ProtectedAppPatchSchema,
      response: ProtectedAppSchema,
      etag: true,
      if_match: true,
    };

    async call() {
      const app = await app_of(idp, this.route_params.name ?? "");
      const input = this.admin_app_update_request;
      audit_target(this, { action: "protected_app_updated", details: { app: app.name, changed: Object.keys(input) } });
      require_match(this, app_view(app));
      const updated = await update_app(idp.store, app.name, input, idp.now());
      return this.json(with_etag(this, app_view(updated)));
    }
  };
