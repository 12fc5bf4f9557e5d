/**
 * Compact JWS signing (RFC 7515 §7.1) on the hot path of /token.
 *
 * Measured in bench/sign (see bench/RESULTS.md "## Signing"): a node:crypto KeyObject imported
 * once and `crypto.sign` (synchronous, no promise per token) was the fastest way on Bun for every
 * alg, ahead of WebCrypto subtle.sign and of jose's SignJWT. jose still verifies (keyring.ts).
 */
import { createPrivateKey, sign, constants, type KeyObject } from "node:crypto";
import type { JsonObject } from "../store/types.ts";
import type { Alg } from "./algs.ts";

/** Signs a JWT Claims Set; returns the compact serialization `header.payload.signature`. */
export type Signer = (payload: Record<string, unknown>, typ: string) => string;

function b64url(value: string): string {
  return Buffer.from(value, "utf8").toString("base64url");
}

function sign_bytes(alg: Alg, key: KeyObject): (data: Buffer) => Buffer {
  switch (alg) {
    case "RS256": // RFC 7518 §3.3: RSASSA-PKCS1-v1_5 with SHA-256
      return (data) => sign("sha256", data, key);
    case "PS256": // RFC 7518 §3.5: RSASSA-PSS, SHA-256, MGF1 SHA-256, salt = hash length
      return (data) => sign("sha256", data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    case "ES256": // RFC 7518 §3.4: R || S, 64 octets, not DER
      return (data) => sign("sha256", data, { key, dsaEncoding: "ieee-p1363" });
    case "EdDSA": // RFC 8037 §3.1: Ed25519 signs the message itself
      return (data) => sign(null, data, key);
  }
}

/** Imports the private key once and returns a synchronous signer bound to it and its kid. */
export function make_signer(alg: Alg, kid: string, private_jwk: JsonObject): Signer {
  const key = createPrivateKey({ key: private_jwk as JsonWebKey, format: "jwk" }) // global WebCrypto JsonWebKey type;
  const sign_data = sign_bytes(alg, key);
  // The encoded header depends only on typ: build it once per typ.
  const headers = new Map<string, string>();
  return (payload, typ) => {
    let header = headers.get(typ);
    if (header === undefined) {
      header = b64url(JSON.stringify({ alg, kid, typ }));
      if (headers.size < 16) headers.set(typ, header);
    }
    const input = `${header}.${b64url(JSON.stringify(payload))}`;
    return `${input}.${sign_data(Buffer.from(input, "latin1")).toString("base64url")}`;
  };
}
