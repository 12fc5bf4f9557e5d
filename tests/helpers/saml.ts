/**
 * SAML test material: a service provider's key, certificate and metadata, built with the
 * provider's own key generator and certificate code (oidc/saml/certificate.ts), so tests need no
 * fixtures on disk.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import { generate_key } from "../../src/oidc/keys/algs.ts";
import { self_signed_certificate } from "../../src/oidc/saml/certificate.ts";

export type SpKey = { private_key: KeyObject; certificate: string; pem: string };

/** An RSA key of a service provider and its self-signed certificate (base64 DER). */
export async function sp_key(name = "sp.example"): Promise<SpKey> {
  const key = await generate_key("RS256");
  const certificate = Buffer.from(self_signed_certificate({ kid: key.kid, private_jwk: key.private_jwk, created_at: Math.floor(Date.now() / 1000) }, name)).toString("base64");
  const { kid: _kid, alg: _alg, use: _use, ...material } = key.private_jwk;
  const private_key = createPrivateKey({ key: material as JsonWebKey, format: "jwk" });
  return { private_key, certificate, pem: private_key.export({ type: "pkcs8", format: "pem" }) as string };
}

export type SpMetadataOptions = {
  entity_id: string;
  acs: (string | { location: string; index?: number; is_default?: boolean; binding?: string })[];
  certificate?: string;
  /** A KeyDescriptor use="encryption" with this certificate, and the EncryptionMethods it names. */
  encryption_certificate?: string;
  encryption_methods?: string[];
  authn_requests_signed?: boolean;
  want_assertions_signed?: boolean;
  /** Its single logout service over HTTP-Redirect. */
  slo?: string;
};

const POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";

/** The metadata of a service provider (SAML Metadata §2.4.4). */
export function sp_metadata(options: SpMetadataOptions): string {
  const key = options.certificate
    ? `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${options.certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
    : "";
  const methods = (options.encryption_methods ?? []).map((algorithm) => `<md:EncryptionMethod Algorithm="${algorithm}"/>`).join("");
  const encryption = options.encryption_certificate
    ? `<md:KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${options.encryption_certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>${methods}</md:KeyDescriptor>`
    : "";
  const acs = options.acs
    .map((entry, i) => {
      const e = typeof entry === "string" ? { location: entry } : entry;
      const is_default = e.is_default === undefined ? "" : ` isDefault="${e.is_default}"`;
      return `<md:AssertionConsumerService Binding="${e.binding ?? POST}" Location="${e.location}" index="${e.index ?? i}"${is_default}/>`;
    })
    .join("");
  return (
    `<?xml version="1.0"?>\n<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${options.entity_id}">` +
    `<md:SPSSODescriptor AuthnRequestsSigned="${options.authn_requests_signed ?? false}" WantAssertionsSigned="${options.want_assertions_signed ?? false}" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
    `${key}${encryption}${options.slo === undefined ? "" : `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${options.slo}"/>`}<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>${acs}</md:SPSSODescriptor></md:EntityDescriptor>\n`
  );
}
