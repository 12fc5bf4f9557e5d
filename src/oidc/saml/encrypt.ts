/**
 * Encrypted assertions (SAML Core §2.3.4 EncryptedAssertion, §6): the signed Assertion — signed
 * first, as SAML Core §6.1 has it, so the service provider verifies what it decrypted — is
 * encrypted with XML Encryption (xml-encryption) to the RSA key of the service provider's
 * metadata (SAML Metadata §2.4.1.1 KeyDescriptor use="encryption", or no use):
 * - the content with AES-256-GCM (XML Encryption 1.1 §5.2.4: a 12-byte IV before the ciphertext,
 *   the 16-byte tag after it), unless the metadata's EncryptionMethod names only AES-CBC (the
 *   older SPs: §5.2.2 CBC has no integrity, so it is used only when asked for);
 * - a fresh key per Assertion, transported with RSA-OAEP (§5.5.2 rsa-oaep-mgf1p, SHA-1 digest:
 *   what every SAML stack reads), or the XML Encryption 1.1 rsa-oaep when the metadata names
 *   only that.
 */
import { X509Certificate } from "node:crypto";
import * as xml_encryption from "xml-encryption";
import { certificate_pem } from "./certificate.ts";
import { NS } from "./names.ts";
import type { EncryptionKey } from "./sp_metadata.ts";

export const ENCRYPTION = {
  aes256_gcm: "http://www.w3.org/2009/xmlenc11#aes256-gcm",
  aes128_gcm: "http://www.w3.org/2009/xmlenc11#aes128-gcm",
  aes256_cbc: "http://www.w3.org/2001/04/xmlenc#aes256-cbc",
  aes128_cbc: "http://www.w3.org/2001/04/xmlenc#aes128-cbc",
  rsa_oaep_mgf1p: "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p",
  rsa_oaep: "http://www.w3.org/2009/xmlenc11#rsa-oaep",
} as const;

/** xml-encryption's encrypt, typed here (Deno does not read ../../../types/xml-encryption.d.ts). */
type Encrypt = (content: string, options: Record<string, unknown>, callback: (error: Error | null, result: string) => void) => void;
const encrypt_xml = (xml_encryption as unknown as { encrypt: Encrypt }).encrypt;

const CONTENT = [ENCRYPTION.aes256_gcm, ENCRYPTION.aes128_gcm, ENCRYPTION.aes256_cbc, ENCRYPTION.aes128_cbc] as const;
const TRANSPORT = [ENCRYPTION.rsa_oaep_mgf1p, ENCRYPTION.rsa_oaep] as const;

/** The algorithms for a key: ours unless its EncryptionMethods (SAML Metadata §2.4.1.1) name only others we know. */
export function chosen_algorithms(key: EncryptionKey): { content: string; transport: string } {
  const content = key.methods.some((m) => (CONTENT as readonly string[]).includes(m)) ? CONTENT.find((a) => key.methods.includes(a))! : ENCRYPTION.aes256_gcm;
  const transport = key.methods.some((m) => (TRANSPORT as readonly string[]).includes(m)) ? TRANSPORT.find((a) => key.methods.includes(a))! : ENCRYPTION.rsa_oaep_mgf1p;
  return { content, transport };
}

/** `<saml:EncryptedAssertion>` holding the (already signed) Assertion, encrypted to the service provider's key. */
export async function encrypt_assertion(assertion: string, key: EncryptionKey): Promise<string> {
  const pem = certificate_pem(key.certificate);
  const public_key = new X509Certificate(pem).publicKey.export({ type: "spki", format: "pem" }).toString();
  const { content, transport } = chosen_algorithms(key);
  const encrypted = await new Promise<string>((resolve, reject) => {
    encrypt_xml(
      assertion,
      {
        rsa_pub: public_key,
        pem,
        encryptionAlgorithm: content,
        keyEncryptionAlgorithm: transport,
        keyEncryptionDigest: "sha1",
        // CBC only when the service provider's metadata asks for nothing else (above).
        disallowEncryptionWithInsecureAlgorithm: false,
        warnInsecureAlgorithm: false,
      },
      (error: Error | null, result: string) => (error === null ? resolve(result) : reject(error)),
    );
  });
  return `<saml:EncryptedAssertion xmlns:saml="${NS.assertion}">${encrypted.trim()}</saml:EncryptedAssertion>`;
}
