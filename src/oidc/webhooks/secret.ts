/**
 * The signing secret of a subscription, in the Standard Webhooks form `whsec_<base64>` (the key
 * is the decoded bytes). Generated (24 random bytes, shown once) or given by the operator. It must
 * be recovered to sign each delivery, so it is sealed under IDP_SECRET_KEY like the upstreams'
 * client secrets (crypto/envelope.ts), with `webhook:<id>` as additional data.
 */
import { randomBytes } from "node:crypto";
import { open_sealed, seal, secret_key_bytes } from "../crypto/envelope.ts";

const PREFIX = "whsec_";
/** Standard Webhooks: secrets of 24 to 64 random bytes. */
const MIN_BYTES = 24;
const MAX_BYTES = 64;

export class WebhookSecretError extends Error {}

export function generate_webhook_secret(): string {
  return `${PREFIX}${randomBytes(MIN_BYTES).toString("base64")}`;
}

/** The key bytes of `whsec_<base64>`; raises with the reason when it is not one. */
export function webhook_key(secret: string): Buffer {
  const body = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : null;
  if (body === null || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new WebhookSecretError(`a webhook secret has the form ${PREFIX}<base64> (Standard Webhooks)`);
  const key = Buffer.from(body, "base64");
  if (key.length < MIN_BYTES || key.length > MAX_BYTES) throw new WebhookSecretError(`a webhook secret holds ${MIN_BYTES} to ${MAX_BYTES} bytes (this one ${key.length})`);
  return key;
}

function key_bytes(key: string | undefined): Buffer {
  const bytes = secret_key_bytes(key);
  if (bytes === null) throw new WebhookSecretError("IDP_SECRET_KEY is not set: it encrypts the webhooks' signing secrets (32 bytes, base64url)");
  return bytes;
}

export function seal_webhook_secret(key: string | undefined, id: string, secret: string): string {
  webhook_key(secret);
  return seal(key_bytes(key), `webhook:${id}`, secret);
}

/** The secret; raises when the key is missing or not the one it was sealed with. */
export function open_webhook_secret(key: string | undefined, id: string, sealed: string): string {
  const opened = open_sealed(key_bytes(key), `webhook:${id}`, sealed);
  if ("plaintext" in opened) return opened.plaintext;
  throw new WebhookSecretError(`the signing secret of webhook ${id} does not decrypt with IDP_SECRET_KEY (was the key changed? add the webhook again)`);
}
