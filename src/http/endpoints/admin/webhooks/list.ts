/** GET /admin/api/v1/webhooks: every subscription, oldest first (never a secret). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { webhook_view } from "../../../../oidc/webhooks/subscriptions.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { WebhookSchema } from "./schemas.ts";

export const AdminWebhookList = (idp: Provider) =>
  class AdminWebhookList extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/webhooks`;
    static openapi: OpenApiOperation = { summary: "List webhooks", tag: "webhooks", response: z.object({ items: z.array(WebhookSchema) }) };

    async call() {
      audit_target(this, { action: "webhooks_listed" });
      return this.json({ items: (await idp.store.list_webhooks()).map(webhook_view) });
    }
  };
