/**
 * Standard Webhooks (https://www.standardwebhooks.com, "Signature scheme"): the receiver gets
 * `webhook-id` (the message id, the same on every attempt), `webhook-timestamp` (unix seconds of
 * this attempt) and `webhook-signature`: `v1,` and the base64 HMAC-SHA256, under the secret's key
 * bytes, of `<id>.<timestamp>.<body>`. Receivers verify it (and the timestamp's age) before trusting
 * the body: SECURITY.md.
 */
import { createHmac } from "node:crypto";
import { webhook_key } from "./secret.ts";

export function webhook_headers(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  const signature = createHmac("sha256", webhook_key(secret)).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${signature}`,
  };
}
