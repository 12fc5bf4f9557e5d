/** POST /admin/api/v1/webhook-deliveries/:id/retry: a failed delivery back to the queue (the rules of `idp webhooks retry`). */
import { Fw } from "../../../../fw/index.ts";
import { AdminError, not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { retry_delivery } from "../../../../oidc/webhooks/subscriptions.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { delivery_view } from "./find.ts";
import { WebhookDeliverySchema } from "./schemas.ts";

export const AdminWebhookRetry = (idp: Provider) =>
  class AdminWebhookRetry extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/webhook-deliveries/:id/retry`;
    static openapi: OpenApiOperation = { summary: "Retry a failed webhook delivery", tag: "webhooks", response: WebhookDeliverySchema };

    async call() {
      const id = this.route_params.id ?? "";
      const delivery = await idp.store.get_webhook_delivery(id);
      if (delivery === null) throw not_found("webhook delivery", id);
      if (!(await retry_delivery(idp, delivery.id)))
        throw new AdminError("conflict", `delivery "${delivery.id}" is ${delivery.status}, not failed: only a failed delivery can be retried`);
      idp.wake_webhooks?.();
      audit_target(this, { action: "webhook_delivery_retried", details: { delivery_id: delivery.id } });
      return this.json(delivery_view((await idp.store.get_webhook_delivery(delivery.id))!));
    }
  };
