/**
 * The X.509 certificate SAML metadata carries for a signing key (SAML Metadata §2.4.1.1, XMLDSig
 * §4.4.4 X509Data): service providers take our public key from it. It is self-signed by the key
 * itself — in SAML metadata a certificate is a container for the key, trusted because the
 * operator registered the metadata, not through a CA (SAML Metadata Interoperability §2.5.1).
 *
 * The certificate is a function of the stored key alone (RFC 5280 §4.1): serial number from the
 * kid, validity from the key's creation, subject and issuer the issuer's host, and an
 * RSASSA-PKCS1-v1_5 signature, which is deterministic. So every instance of the provider serves
 * the same bytes, and a restart does not change what the service providers were given.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import type { JsonObject } from "../../store/types.ts";
import { bit_string, explicit, null_value, oid, sequence, set, small_integer, tlv, unsigned_integer, utf8_string, x509_time } from "./der.ts";

/** RFC 4055 §5: sha256WithRSAEncryption. */
const SHA256_WITH_RSA = "1.2.840.113549.1.1.11";
/** X.520 commonName. */
const COMMON_NAME = "2.5.4.3";
/** RFC 5280 §4.2.1.9 basicConstraints, §4.2.1.3 keyUsage. */
const BASIC_CONSTRAINTS = "2.5.29.19";
const KEY_USAGE = "2.5.29.15";

/** How long a certificate is valid: longer than any key lives (rotation replaces it long before). */
export const CERTIFICATE_LIFETIME_SECONDS = 20 * 365 * 24 * 3600;
/** Valid from an hour before the key was made: a service provider whose clock is behind still accepts it. */
const BACKDATE_SECONDS = 3600;

export type CertificateKey = { kid: string; private_jwk: JsonObject; created_at: number };

/** The private members of a JWK for node:crypto, without kid, alg and use. */
function key_material(jwk: JsonObject): JsonWebKey {
  const { kid: _kid, alg: _alg, use: _use, key_ops: _ops, ...material } = jwk;
  return material as JsonWebKey;
}

/** The DER of the self-signed certificate of an RSA signing key, for `common_name` (the issuer's host). */
export function self_signed_certificate(key: CertificateKey, common_name: string): Uint8Array {
  const private_key = createPrivateKey({ key: key_material(key.private_jwk), format: "jwk" });
  if (private_key.asymmetricKeyType !== "rsa") throw new Error(`SAML signs with an RSA key; ${key.kid} is ${private_key.asymmetricKeyType}`);
  const spki = new Uint8Array(createPublicKey(private_key).export({ type: "spki", format: "der" }));
  const algorithm = sequence(oid(SHA256_WITH_RSA), null_value());
  const name = sequence(set(sequence(oid(COMMON_NAME), utf8_string(common_name))));
  // RFC 5280 §4.1.2.2: a positive integer of at most 20 octets, unique per issuer: 16 octets of the kid's hash.
  const serial = createHash("sha256").update(`saml-certificate:${key.kid}`, "utf8").digest().subarray(0, 16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const extensions = explicit(
    3,
    sequence(
      // cA FALSE: the DEFAULT, so an empty SEQUENCE (X.690 §11.5).
      sequence(oid(BASIC_CONSTRAINTS), tlv(0x04, sequence())),
      // critical, digitalSignature only (bit 0: one used bit, seven unused).
      sequence(oid(KEY_USAGE), Uint8Array.of(0x01, 0x01, 0xff), tlv(0x04, Uint8Array.of(0x03, 0x02, 0x07, 0x80))),
    ),
  );
  const tbs = sequence(
    explicit(0, small_integer(2)),
    unsigned_integer(serial),
    algorithm,
    name,
    sequence(x509_time(key.created_at - BACKDATE_SECONDS), x509_time(key.created_at + CERTIFICATE_LIFETIME_SECONDS)),
    name,
    spki,
    extensions,
  );
  const signature = sign("sha256", tbs, private_key);
  return sequence(tbs, algorithm, bit_string(new Uint8Array(signature)));
}

const cache = new Map<string, string>();

/**
 * The certificate as X509Certificate carries it (base64 of the DER), made once per key and
 * common name: an RSA signature each time would be waste, and the result never changes.
 */
export function certificate_base64(key: CertificateKey, common_name: string): string {
  const id = `${key.kid}|${key.created_at}|${common_name}`;
  let value = cache.get(id);
  if (value === undefined) {
    value = Buffer.from(self_signed_certificate(key, common_name)).toString("base64");
    if (cache.size > 64) cache.clear();
    cache.set(id, value);
  }
  return value;
}

/** PEM (RFC 7468 §5) of a certificate given as base64 DER. */
export function certificate_pem(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${base64.replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
}
