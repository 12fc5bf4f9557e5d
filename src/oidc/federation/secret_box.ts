/**
 * The upstreams' client secrets at rest. A client secret must be sent to the upstream (RFC 6749
 * §2.3.1), so it cannot be hashed like our own secrets: it is encrypted with AES-256-GCM (NIST SP
 * 800-38D) under the operator's key (`IDP_SECRET_KEY`, 32 bytes), a fresh 96-bit IV each time,
 * the upstream's name as additional data (a ciphertext copied to another upstream row does not
 * decrypt). Stored as `v1.<iv>.<ciphertext+tag>` (base64url).
 *
 * Without a key nothing is stored or decrypted: the provider refuses instead of keeping a
 * generated key next to the data it protects (a database dump would then hold both).
 *
 * Rotation: there is one key. Changing `IDP_SECRET_KEY` makes the stored secrets unreadable;
 * set each upstream's secret again (`idp upstreams add NAME … --replace`, or remove and add).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

export class SecretKeyMissing extends Error {
  constructor() {
    super("IDP_SECRET_KEY is not set: it encrypts the upstreams' client secrets (32 bytes, base64url)");
  }
}

function key_bytes(key: string | undefined): Buffer {
  if (key === undefined) throw new SecretKeyMissing();
  const bytes = Buffer.from(key, "base64url");
  if (bytes.length !== 32) throw new SecretKeyMissing();
  return bytes;
}

export function seal_secret(key: string | undefined, upstream: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key_bytes(key), iv);
  cipher.setAAD(Buffer.from(`upstream:${upstream}`, "utf8"));
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

/** The secret; throws when the key is missing or not the one it was sealed with. */
export function open_secret(key: string | undefined, upstream: string, sealed: string): string {
  const [version, iv, body] = sealed.split(".");
  if (version !== VERSION || iv === undefined || body === undefined) throw new Error(`the client secret of upstream ${upstream} is not in a known format`);
  const data = Buffer.from(body, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key_bytes(key), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(`upstream:${upstream}`, "utf8"));
  decipher.setAuthTag(data.subarray(data.length - 16));
  try {
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(`the client secret of upstream ${upstream} does not decrypt with IDP_SECRET_KEY (was the key changed? set the secret again)`);
  }
}
