/** POST /admin/api/v1/webhooks/:id/test: queues a `webhook.test` delivery (202); the worker attempts it at once. */
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { queue_test_delivery } from "../../../../oidc/webhooks/subscriptions.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { delivery_view, webhook_of } from "./find.ts";
import { WebhookDeliverySchema } from "./schemas.ts";

export const AdminWebhookTest = (idp: Provider) =>
  class AdminWebhookTest extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/webhooks/:id/test`;
    static openapi: OpenApiOperation = { summary: "Send a test delivery", tag: "webhooks", response: WebhookDeliverySchema, status: 202 };

    async call() {
      const webhook = await webhook_of(idp, this.route_params.id ?? "");
      const delivery = await queue_test_delivery(idp, webhook);
      idp.wake_webhooks?.();
      audit_target(this, { action: "webhook_tested", details: { webhook_id: webhook.id } });
      return this.json(delivery_view(delivery), 202);
    }
  };
