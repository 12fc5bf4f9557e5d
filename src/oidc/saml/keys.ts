/**
 * SAML's signing keys are the provider's RS256 keys (keys/keyring.ts): one key ring, one
 * rotation (`idp keys rotate`) for OpenID and SAML alike. The key that signs ID Tokens signs
 * Responses and Assertions; metadata publishes its certificate and those of the `next` keys, so
 * a service provider that reloads metadata knows a key before it signs (SAML Metadata §2.4.1.1
 * allows several signing KeyDescriptors).
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import type { Provider } from "../provider.ts";
import type { JsonObject } from "../../store/types.ts";
import { certificate_base64 } from "./certificate.ts";

/** XML signatures use RSA-SHA256 (names.ts ALGORITHMS), so the RS256 key (always configured: config/schema.ts). */
const ALG = "RS256";

export type SamlSigningKey = {
  kid: string;
  private_key: KeyObject;
  /** base64 of the DER certificate, as ds:X509Certificate carries it. */
  certificate: string;
};

/** The common name of our certificates: the issuer's host (and port). */
function common_name(idp: Provider): string {
  return new URL(idp.config.issuer).host;
}

const imported = new Map<string, KeyObject>();

function private_key(kid: string, jwk: JsonObject): KeyObject {
  let key = imported.get(kid);
  if (key === undefined) {
    const { kid: _kid, alg: _alg, use: _use, key_ops: _ops, ...material } = jwk;
    key = createPrivateKey({ key: material as JsonWebKey, format: "jwk" });
    if (imported.size > 16) imported.clear();
    imported.set(kid, key);
  }
  return key;
}

/** The key that signs now, with its certificate. */
export function signing_key(idp: Provider): SamlSigningKey {
  const { signer } = idp.keys.stored_signing_keys(ALG);
  return {
    kid: signer.kid,
    private_key: private_key(signer.kid, signer.private_jwk),
    certificate: certificate_base64({ kid: signer.kid, private_jwk: signer.private_jwk, created_at: signer.created_at }, common_name(idp)),
  };
}

/** The certificates metadata publishes: the signing key's first, then the keys published ahead of rotation. */
export function published_certificates(idp: Provider): { kid: string; certificate: string }[] {
  const { signer, upcoming } = idp.keys.stored_signing_keys(ALG);
  return [signer, ...upcoming].map((row) => ({
    kid: row.kid,
    certificate: certificate_base64({ kid: row.kid, private_jwk: row.private_jwk, created_at: row.created_at }, common_name(idp)),
  }));
}
