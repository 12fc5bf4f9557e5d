/** POST /admin/api/v1/webhooks: a new subscription (the rules of `idp webhooks add`); the generated secret is in the answer, once. */
import { Fw } from "../../../../fw/index.ts";
import { invalid_field } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { add_subscription, WebhookInputError } from "../../../../oidc/webhooks/subscriptions.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { WebhookCreatedSchema, WebhookCreateSchema } from "./schemas.ts";

export const AdminWebhookCreateRequest = Fw.Request("AdminWebhookCreateRequest", WebhookCreateSchema, { from: ["body"] });

export const AdminWebhookCreate = (idp: Provider) =>
  class AdminWebhookCreate extends Fw.Endpoint(AdminWebhookCreateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/webhooks`;
    static openapi: OpenApiOperation = { summary: "Create a webhook", tag: "webhooks", body: WebhookCreateSchema, response: WebhookCreatedSchema, status: 201 };

    async call() {
      const input = this.admin_webhook_create_request;
      let added: Awaited<ReturnType<typeof add_subscription>>;
      try {
        added = await add_subscription(idp, input);
      } catch (error) {
        if (error instanceof WebhookInputError) throw invalid_field(field_of(error.message), error.message);
        throw error;
      }
      const { webhook, secret } = added;
      audit_target(this, { action: "webhook_created", details: { webhook_id: webhook.id, url: webhook.url, events: webhook.events } });
      this.response.headers.set("location", `${ADMIN_API}/webhooks/${encodeURIComponent(webhook.id)}`);
      this.response.headers.set("cache-control", "no-store");
      return this.json({ ...webhook, ...(input.secret === undefined && { secret }) }, 201);
    }
  };

/** Which field a subscription's problem is about. */
function field_of(message: string): string {
  if (/secret|IDP_SECRET_KEY/i.test(message)) return "secret";
  if (/event/i.test(message)) return "events";
  if (/description/.test(message)) return "description";
  return "url";
}
