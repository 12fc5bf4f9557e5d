/** DELETE /admin/api/v1/apps/:name, with If-Match: the proxy's next check for it answers that no application is registered there. */
import { Fw } from "../../../../fw/index.ts";
import { remove_app } from "../../../../oidc/admin/apps.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, require_match, type OpenApiOperation } from "../common.ts";
import { APPS_API, app_of, app_view } from "./schemas.ts";

export const AdminAppDelete = (idp: Provider) =>
  class AdminAppDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${APPS_API}/:name`;
    static openapi: OpenApiOperation = { summary: "Remove a protected application", tag: "apps", status: 204, if_match: true };

    async call() {
      const app = await app_of(idp, this.route_params.name ?? "");
      audit_target(this, { action: "protected_app_deleted", details: { app: app.name } });
      require_match(this, app_view(app));
      await remove_app(idp.store, app.name);
      return new Fw.Response.Empty();
    }
  };
