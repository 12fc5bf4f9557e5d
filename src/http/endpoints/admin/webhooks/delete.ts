/** DELETE /admin/api/v1/webhooks/:id: the subscription and its deliveries. */
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { webhook_of } from "./find.ts";

export const AdminWebhookDelete = (idp: Provider) =>
  class AdminWebhookDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/webhooks/:id`;
    static openapi: OpenApiOperation = { summary: "Delete a webhook", tag: "webhooks", status: 204 };

    async call() {
      const webhook = await webhook_of(idp, this.route_params.id ?? "");
      await idp.store.delete_webhook(webhook.id);
      audit_target(this, { action: "webhook_deleted", details: { webhook_id: webhook.id, url: webhook.url } });
      return new Fw.Response.Empty();
    }
  };
