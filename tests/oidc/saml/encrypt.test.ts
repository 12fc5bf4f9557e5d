/**
 * Encrypted assertions (src/oidc/saml/encrypt.ts): the Assertion encrypted to a service
 * provider's metadata key decrypts with its private key — with xml-encryption and with xmlsec1,
 * what pysaml2 and mod_auth_mellon use — to the exact signed XML; another key cannot open it; the
 * algorithms are AES-256-GCM and RSA-OAEP unless the metadata names only others. The metadata's
 * encryption keys: use="encryption" or no use, RSA only.
 */
import { afterAll, beforeAll, describe, expect, test } from "../../helpers/test_api.ts";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as xmlenc from "xml-encryption";
import { ENCRYPTION, encrypt_assertion } from "../../../src/oidc/saml/encrypt.ts";
import { parse_sp_metadata } from "../../../src/oidc/saml/sp_metadata.ts";
import { sp_key, sp_metadata, type SpKey } from "../../helpers/saml.ts";
import { rejection } from "../../helpers/settle.ts";

let key: SpKey;
let other: SpKey;
let dir: string;
beforeAll(async () => {
  key = await sp_key();
  other = await sp_key("other.example");
  dir = mkdtempSync(join(tmpdir(), "saml-encrypt-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ASSERTION =
  `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1" Version="2.0" IssueInstant="2030-01-01T00:00:00Z">` +
  `<saml:Issuer>https://idp.example</saml:Issuer><saml:Subject><saml:NameID>alice</saml:NameID></saml:Subject></saml:Assertion>`;

function decrypted(xml: string, pem: string): Promise<string> {
  const inner = xml.replace(/^<saml:EncryptedAssertion[^>]*>/, "").replace(/<\/saml:EncryptedAssertion>$/, "");
  return new Promise((resolve, reject) => xmlenc.decrypt(inner, { key: pem }, (error, result) => (error === null ? resolve(result) : reject(error))));
}

const metadata_with = (options: { encryption?: SpKey; methods?: string[] } = {}) =>
  parse_sp_metadata(
    sp_metadata({
      entity_id: "https://sp.example/metadata",
      acs: ["https://sp.example/acs"],
      certificate: key.certificate,
      ...(options.encryption === undefined ? {} : { encryption_certificate: options.encryption.certificate }),
      ...(options.methods === undefined ? {} : { encryption_methods: options.methods }),
    }),
  );

describe("encrypted assertions", () => {
  test("AES-256-GCM with RSA-OAEP (MGF1 SHA-1): the service provider's key decrypts the exact Assertion, another key does not", async () => {
    const target = metadata_with({ encryption: key }).encryption_keys[0]!;
    const xml = await encrypt_assertion(ASSERTION, target);
    expect(xml.startsWith('<saml:EncryptedAssertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"><xenc:EncryptedData')).toBe(true);
    expect(xml).toContain(`Algorithm="${ENCRYPTION.aes256_gcm}"`);
    expect(xml).toContain(`Algorithm="${ENCRYPTION.rsa_oaep_mgf1p}"`);
    expect(xml).not.toContain("alice");
    expect(await decrypted(xml, key.pem)).toBe(ASSERTION);
    expect(await rejection(decrypted(xml, other.pem))).toBeInstanceOf(Error);
    // A fresh content key each time: the same Assertion never gives the same ciphertext.
    expect(await encrypt_assertion(ASSERTION, target)).not.toBe(xml);
  });

  test("xmlsec1 (pysaml2's and mellon's library) decrypts it with the service provider's key", async () => {
    const xml = await encrypt_assertion(ASSERTION, metadata_with({ encryption: key }).encryption_keys[0]!);
    const file = join(dir, "encrypted.xml");
    writeFileSync(file, xml);
    writeFileSync(join(dir, "key.pem"), key.pem);
    writeFileSync(join(dir, "other.pem"), other.pem);
    const out = execFileSync("xmlsec1", ["--decrypt", "--privkey-pem", join(dir, "key.pem"), file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(out).toContain(ASSERTION);
    expect(() => execFileSync("xmlsec1", ["--decrypt", "--privkey-pem", join(dir, "other.pem"), file], { stdio: "pipe" })).toThrow();
  });

  test("the metadata's EncryptionMethod picks AES-CBC or the XML Encryption 1.1 rsa-oaep only when it names nothing better", async () => {
    const cbc = await encrypt_assertion(ASSERTION, metadata_with({ encryption: key, methods: [ENCRYPTION.aes256_cbc, ENCRYPTION.rsa_oaep] }).encryption_keys[0]!);
    expect(cbc).toContain(`Algorithm="${ENCRYPTION.aes256_cbc}"`);
    expect(cbc).toContain(`Algorithm="${ENCRYPTION.rsa_oaep}"`);
    const out = await new Promise<string>((resolve, reject) =>
      xmlenc.decrypt(
        cbc.replace(/^<saml:EncryptedAssertion[^>]*>/, "").replace(/<\/saml:EncryptedAssertion>$/, ""),
        { key: key.pem, disallowDecryptionWithInsecureAlgorithm: false, warnInsecureAlgorithm: false },
        (e, r) => (e === null ? resolve(r) : reject(e)),
      ),
    );
    expect(out).toBe(ASSERTION);
    const both = await encrypt_assertion(ASSERTION, metadata_with({ encryption: key, methods: [ENCRYPTION.aes256_cbc, ENCRYPTION.aes256_gcm] }).encryption_keys[0]!);
    expect(both).toContain(`Algorithm="${ENCRYPTION.aes256_gcm}"`);
    const unknown = await encrypt_assertion(ASSERTION, metadata_with({ encryption: key, methods: ["urn:unknown"] }).encryption_keys[0]!);
    expect(unknown).toContain(`Algorithm="${ENCRYPTION.aes256_gcm}"`);
  });

  test("encryption keys: use=encryption or no use, RSA only; a signing-only key is not one", () => {
    expect(metadata_with().encryption_keys).toEqual([]);
    expect(metadata_with({ encryption: other }).encryption_keys.map((k) => k.certificate)).toEqual([other.certificate]);
    const no_use = sp_metadata({ entity_id: "https://sp.example/metadata", acs: ["https://sp.example/acs"] }).replace(
      "<md:NameIDFormat>",
      `<md:KeyDescriptor><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${key.certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:NameIDFormat>`,
    );
    expect(parse_sp_metadata(no_use).encryption_keys.map((k) => k.certificate)).toEqual([key.certificate]);
    // An unreadable certificate for encryption is passed over, not an error.
    const broken = sp_metadata({ entity_id: "https://sp.example/metadata", acs: ["https://sp.example/acs"], encryption_certificate: "AAAA" });
    expect(parse_sp_metadata(broken).encryption_keys).toEqual([]);
  });
});
