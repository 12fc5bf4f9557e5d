/** GET /admin/api/v1/apps/:name: the protected application with its rules and an ETag. */
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { APPS_API, ProtectedAppSchema, app_of, app_view } from "./schemas.ts";

export const AdminAppRead = (idp: Provider) =>
  class AdminAppRead extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${APPS_API}/:name`;
    static openapi: OpenApiOperation = { summary: "Read a protected application", tag: "apps", response: ProtectedAppSchema, etag: true };

    async call() {
      const app = await app_of(idp, this.route_params.name ?? "");
      audit_target(this, { action: "protected_app_read", details: { app: app.name } });
      return this.json(with_etag(this, app_view(app)));
    }
  };
