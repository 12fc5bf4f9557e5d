/** POST /admin/api/v1/apps: registers an application behind the reverse proxy, with the checks of `idp apps add` (oidc/admin/apps.ts). */
import { Fw } from "../../../../fw/index.ts";
import { create_app } from "../../../../oidc/admin/apps.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { APPS_API, ProtectedAppCreateSchema, ProtectedAppSchema, app_view } from "./schemas.ts";

export const AdminAppCreateRequest = Fw.Request("AdminAppCreateRequest", ProtectedAppCreateSchema, { from: ["body"] });

export const AdminAppCreate = (idp: Provider) =>
  class AdminAppCreate extends Fw.Endpoint(AdminAppCreateRequest, Fw.Response.Json) {
    static route = `POST ${APPS_API}`;
    static openapi: OpenApiOperation = {
      summary: "Register a protected application (forward authentication)",
      tag: "apps",
      body: ProtectedAppCreateSchema,
      response: ProtectedAppSchema,
      status: 201,
      etag: true,
    };

    async call() {
      const { name, ...input } = this.admin_app_create_request;
      audit_target(this, { action: "protected_app_created", details: { app: name } });
      const app = await create_app(idp.store, name, input, idp.now());
      audit_target(this, {
        action: "protected_app_created",
        details: { app: app.name, url: app.url, groups: app.allowed_groups, require_2fa: app.require_2fa, rules: app.rules.length },
      });
      this.response.headers.set("location", `${APPS_API}/${encodeURIComponent(app.name)}`);
      return this.json(with_etag(this, app_view(app)), 201);
    }
  };
