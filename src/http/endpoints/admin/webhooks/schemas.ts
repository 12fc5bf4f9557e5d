/** The webhook shapes of the admin API (its OpenAPI document's components): never a secret beyond the one shown at creation. */
import { z } from "zod";
import { MAIL_STATUSES } from "../../../../store/types.ts";

const time = z.number().int().describe("Unix seconds");

export const WebhookSchema = z
  .object({ id: z.string(), url: z.string(), events: z.array(z.string()), description: z.string().nullable(), created_at: time })
  .meta({ id: "Webhook" });

export const WebhookCreateSchema = z
  .strictObject({
    url: z.string().min(1).max(2000),
    events: z.array(z.string().min(1).max(100)).min(1).max(50),
    secret: z.string().max(200).optional().describe("whsec_<base64> (Standard Webhooks); generated when absent"),
    description: z.string().max(200).optional(),
  })
  .meta({ id: "WebhookCreate" });

export const WebhookCreatedSchema = WebhookSchema.extend({ secret: z.string().optional().describe("The generated signing secret, shown this once") }).meta({
  id: "WebhookCreated",
});

export const WebhookDeliverySchema = z
  .object({
    id: z.string().describe("The webhook-id header"),
    webhook_id: z.string(),
    event_type: z.string(),
    status: z.enum(MAIL_STATUSES as [string, ...string[]]),
    attempts: z.number().int(),
    next_attempt_at: time.nullable(),
    last_error: z.string().nullable(),
    created_at: time,
    sent_at: time.nullable(),
  })
  .meta({ id: "WebhookDelivery" });
