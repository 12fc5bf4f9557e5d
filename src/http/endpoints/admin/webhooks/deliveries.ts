/** GET /admin/api/v1/webhooks/:id/deliveries: the subscription's latest deliveries (at most 100), newest first, without payloads. */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { delivery_view, webhook_of } from "./find.ts";
import { WebhookDeliverySchema } from "./schemas.ts";

export const AdminWebhookDeliveries = (idp: Provider) =>
  class AdminWebhookDeliveries extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/webhooks/:id/deliveries`;
    static openapi: OpenApiOperation = { summary: "List a webhook's deliveries", tag: "webhooks", response: z.object({ items: z.array(WebhookDeliverySchema) }) };

    async call() {
      const webhook = await webhook_of(idp, this.route_params.id ?? "");
      audit_target(this, { action: "webhook_deliveries_listed" });
      return this.json({ items: (await idp.store.list_webhook_deliveries({ webhook_id: webhook.id })).map(delivery_view) });
    }
  };
