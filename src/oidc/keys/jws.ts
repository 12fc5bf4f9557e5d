/**
 * Compact JWS signing (RFC 7515 §7.1) on the hot path of /token.
 *
 * Chosen by measurement (bench/sign, bench/RESULTS.md "## Signing"), private keys imported once per kid:
 * - RS256/PS256: the system's OpenSSL 3 (platform/openssl.ts) when it loads and is enabled: much
 *   less CPU than the runtime's BoringSSL per signature, synchronous on the JS thread.
 *   Otherwise (no libcrypto.so.3, or config `openssl` false: IDP_OPENSSL=off) WebCrypto
 *   `crypto.subtle.sign` with a non-extractable CryptoKey, which the runtime runs on a worker thread.
 * - ES256/EdDSA: node:crypto `sign` on a KeyObject, synchronous: the work is smaller than a
 *   thread hop, and it was the cheapest path.
 * jose verifies what we sign (keyring.ts, tests).
 */
import { createPrivateKey, sign, type KeyObject } from "node:crypto";
import type { JsonObject } from "../../store/types.ts";
import type { Alg } from "./algs.ts";
import { openssl_rsa_signer } from "../../platform/openssl.ts";

/** Signs a JWT Claims Set; returns the compact serialization `header.payload.signature`. */
export type Signer = (payload: Record<string, unknown>, typ: string) => string | Promise<string>;

function b64url(value: string): string {
  return Buffer.from(value, "utf8").toString("base64url");
}

/** RFC 7518 §3.3 (RS256: RSASSA-PKCS1-v1_5 + SHA-256) and §3.5 (PS256: RSASSA-PSS, SHA-256, MGF1 SHA-256, 32-octet salt). */
const RSA_IMPORT = {
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
  PS256: { name: "RSA-PSS", hash: "SHA-256" },
} as const;
const RSA_SIGN = { RS256: { name: "RSASSA-PKCS1-v1_5" }, PS256: { name: "RSA-PSS", saltLength: 32 } } as const;

function sync_sign(alg: "ES256" | "EdDSA", key: KeyObject): (data: Buffer) => Buffer {
  // RFC 7518 §3.4: ES256 is R || S (64 octets), not DER. RFC 8037 §3.1: Ed25519 signs the message itself.
  return alg === "ES256" ? (data) => sign("sha256", data, { key, dsaEncoding: "ieee-p1363" }) : (data) => sign(null, data, key);
}

/** The private members of a JWK, without kid/alg/use, for import. */
function key_material(jwk: JsonObject): JsonWebKey {
  const { kid: _kid, alg: _alg, use: _use, key_ops: _ops, ...material } = jwk;
  return material as JsonWebKey;
}

export type SignerOptions = {
  /** RS256/PS256 through the system's OpenSSL 3 when it loads (default true; config `openssl`). */
  openssl?: boolean;
};

/** Imports the private key once and returns a signer bound to it and its kid. */
export async function make_signer(alg: Alg, kid: string, private_jwk: JsonObject, options: SignerOptions = {}): Promise<Signer> {
  // The encoded header depends only on typ: build it once per typ.
  const headers = new Map<string, string>();
  const signing_input = (payload: Record<string, unknown>, typ: string): string => {
    let header = headers.get(typ);
    if (header === undefined) {
      header = b64url(JSON.stringify({ alg, kid, typ }));
      if (headers.size < 16) headers.set(typ, header);
    }
    return `${header}.${b64url(JSON.stringify(payload))}`;
  };

  if (alg === "RS256" || alg === "PS256") {
    const native = openssl_rsa_signer(key_material(private_jwk), alg, { enabled: options.openssl ?? true });
    if (native) {
      return (payload, typ) => {
        const input = signing_input(payload, typ);
        return `${input}.${Buffer.from(native(Buffer.from(input, "latin1"))).toString("base64url")}`;
      };
    }
    const key = await crypto.subtle.importKey("jwk", key_material(private_jwk), RSA_IMPORT[alg], false, ["sign"]);
    const params = RSA_SIGN[alg];
    return async (payload, typ) => {
      const input = signing_input(payload, typ);
      const signature = await crypto.subtle.sign(params, key, Buffer.from(input, "latin1"));
      return `${input}.${Buffer.from(signature).toString("base64url")}`;
    };
  }
  const sign_data = sync_sign(alg, createPrivateKey({ key: key_material(private_jwk), format: "jwk" }));
  return (payload, typ) => {
    const input = signing_input(payload, typ);
    return `${input}.${sign_data(Buffer.from(input, "latin1")).toString("base64url")}`;
  };
}
