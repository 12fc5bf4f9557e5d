/**
 * The upstreams' client secrets at rest. A client secret must be sent to the upstream (RFC 6749
 * §2.3.1), so it cannot be hashed like our own secrets: it is encrypted with AES-256-GCM (NIST SP
 * 800-38D) under the operator's key (`IDP_SECRET_KEY`, 32 bytes), a fresh 96-bit IV each time,
 * the upstream's name as additional data (a ciphertext copied to another upstream row does not
 * decrypt). Stored as `v1.<iv>.<ciphertext+tag>` (base64url): crypto/envelope.ts.
 *
 * Without a key nothing is stored or decrypted: the provider refuses instead of keeping a
 * generated key next to the data it protects (a database dump would then hold both).
 *
 * Rotation: there is one key. Changing `IDP_SECRET_KEY` makes the stored secrets unreadable;
 * set each upstream's secret again (`idp upstreams add NAME … --replace`, or remove and add).
 */
import { open_sealed, seal, secret_key_bytes } from "../crypto/envelope.ts";

export class SecretKeyMissing extends Error {
  constructor() {
    super("IDP_SECRET_KEY is not set: it encrypts the upstreams' client secrets (32 bytes, base64url)");
  }
}

function key_bytes(key: string | undefined): Buffer {
  const bytes = secret_key_bytes(key);
  if (bytes === null) throw new SecretKeyMissing();
  return bytes;
}

export function seal_secret(key: string | undefined, upstream: string, secret: string): string {
  return seal(key_bytes(key), `upstream:${upstream}`, secret);
}

/** The secret; throws when the key is missing or not the one it was sealed with. */
export function open_secret(key: string | undefined, upstream: string, sealed: string): string {
  const opened = open_sealed(key_bytes(key), `upstream:${upstream}`, sealed);
  if ("plaintext" in opened) return opened.plaintext;
  if (opened.failure === "format") throw new Error(`the client secret of upstream ${upstream} is not in a known format`);
  throw new Error(`the client secret of upstream ${upstream} does not decrypt with IDP_SECRET_KEY (was the key changed? set the secret again)`);
}
