/**
 * A software authenticator for tests over plain HTTP (the browser's own ceremonies run in
 * Chromium: tests/e2e/passkeys_suite.ts): one ES256 key pair (COSE alg -7, RFC 9053 §2.1) under a
 * random credential id. It answers the server's options as an authenticator and a browser
 * together would: a registration with "none" attestation (WebAuthn §8.7) and assertions (§7.2)
 * that the server checks exactly as a real one's (signature, challenge, origin, RP ID hash,
 * flags, counter).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type { NewPasskey } from "../../src/store/types.ts";

const sha256 = (data: Uint8Array | string): Buffer => createHash("sha256").update(data).digest();
const b64url = (data: Uint8Array): string => Buffer.from(data).toString("base64url");

/** A CBOR head (RFC 8949 §3): major type and length. */
function head(major: number, length: number): number[] {
  if (length < 24) return [(major << 5) | length];
  if (length < 256) return [(major << 5) | 24, length];
  return [(major << 5) | 25, length >> 8, length & 255];
}
const cbor_bytes = (data: Uint8Array): number[] => [...head(2, data.length), ...data];
const cbor_text = (text: string): number[] => cbor_bytes(Buffer.from(text, "utf8")).map((b, i) => (i === 0 ? b + 0x20 : b));

/** Authenticator data flags (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export class SoftAuthenticator {
  readonly credential_id: string;
  private readonly raw_id = randomBytes(16);
  private readonly private_key: KeyObject;
  private readonly x: Buffer;
  private readonly y: Buffer;
  private counter = 0;

  /** `origin`: the issuer's origin (its host name is the RP ID). */
  constructor(readonly origin: string) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" }) as { x: string; y: string };
    this.private_key = privateKey;
    this.x = Buffer.from(jwk.x, "base64url");
    this.y = Buffer.from(jwk.y, "base64url");
    this.credential_id = b64url(this.raw_id);
  }

  /** The COSE_Key of the public key (EC2, P-256, ES256): what the store keeps, base64url. */
  cose_key(): Uint8Array {
    return Uint8Array.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, ...cbor_bytes(this.x), 0x22, ...cbor_bytes(this.y)]);
  }

  /** The row to store this passkey for `user_id` directly (a passkey added earlier). */
  passkey(user_id: string, name = "Soft key"): NewPasskey {
    return {
      credential_id: this.credential_id,
      user_id,
      public_key: b64url(this.cose_key()),
      counter: 0,
      transports: ["internal"],
      backup_eligible: false,
      backup_state: false,
      aaguid: null,
      name,
    };
  }

  private authenticator_data(flags: number, attested: number[] = []): Uint8Array {
    this.counter += 1;
    const count = [(this.counter >>> 24) & 255, (this.counter >>> 16) & 255, (this.counter >>> 8) & 255, this.counter & 255];
    return Uint8Array.from([...sha256(new URL(this.origin).hostname), flags, ...count, ...attested]);
  }

  private client_data(type: "webauthn.create" | "webauthn.get", challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }), "utf8");
  }

  /** The browser's JSON for a registration ceremony with these options (`startRegistration`). */
  register(options: { challenge: string }): string {
    const attested = [...new Uint8Array(16), 0, this.raw_id.length, ...this.raw_id, ...this.cose_key()];
    const auth_data = this.authenticator_data(UP | UV | AT, attested);
    const attestation = Uint8Array.from([0xa3, ...cbor_text("fmt"), ...cbor_text("none"), ...cbor_text("attStmt"), 0xa0, ...cbor_text("authData"), ...cbor_bytes(auth_data)]);
    return JSON.stringify({
      id: this.credential_id,
      rawId: this.credential_id,
      type: "public-key",
      response: { clientDataJSON: b64url(this.client_data("webauthn.create", options.challenge)), attestationObject: b64url(attestation), transports: ["internal"] },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    });
  }

  /** The browser's JSON for an authentication ceremony with these options (`startAuthentication`), for the user `user_id`. */
  assert(options: { challenge: string }, user_id: string): string {
    const auth_data = this.authenticator_data(UP | UV);
    const client_data = this.client_data("webauthn.get", options.challenge);
    const signature = sign("sha256", Buffer.concat([auth_data, sha256(client_data)]), this.private_key);
    return JSON.stringify({
      id: this.credential_id,
      rawId: this.credential_id,
      type: "public-key",
      response: { clientDataJSON: b64url(client_data), authenticatorData: b64url(auth_data), signature: b64url(signature), userHandle: b64url(Buffer.from(user_id, "utf8")) },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    });
  }
}
