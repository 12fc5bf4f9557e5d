/**
 * Secrets at rest under the operator's key (`IDP_SECRET_KEY`, config `federation.secret_key`: 32
 * bytes, base64url): AES-256-GCM (NIST SP 800-38D), a fresh 96-bit IV for each sealing, and
 * additional data naming what the secret belongs to, so a ciphertext copied to another row does
 * not open there. Stored as `v1.<iv>.<ciphertext+tag>` (base64url).
 *
 * Used for the upstreams' client secrets (federation/secret_box.ts, additional data
 * `upstream:<name>`) and the private signing keys (keys/sealed_keys.ts, `signing-key:<kid>`):
 * the prefixes keep the two apart.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The 32 key bytes of `IDP_SECRET_KEY`, or null when it is missing or not 32 bytes of base64url. */
export function secret_key_bytes(key: string | undefined): Buffer | null {
  if (key === undefined) return null;
  const bytes = Buffer.from(key, "base64url");
  return bytes.length === 32 ? bytes : null;
}

/** `plaintext` sealed under `key` with `aad` as additional data. */
export function seal(key: Buffer, aad: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

/** Whether `value` has the form `seal` gives (it may still not open). */
export function is_sealed(value: string): boolean {
  const [version, iv, body, extra] = value.split(".");
  return version === VERSION && iv !== undefined && body !== undefined && extra === undefined;
}

/**
 * The plaintext; "format" when `sealed` is not of `seal`'s form, "key" when it does not open
 * under `key` and `aad` (another key, another row, or tampered with).
 */
export function open_sealed(key: Buffer, aad: string, sealed: string): { plaintext: string } | { failure: "format" | "key" } {
  if (!is_sealed(sealed)) return { failure: "format" };
  const [, iv, body] = sealed.split(".") as [string, string, string];
  const data = Buffer.from(body, "base64url");
  if (data.length < TAG_BYTES) return { failure: "format" };
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return { plaintext: Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString("utf8") };
  } catch {
    return { failure: "key" };
  }
}
