/**
 * The DER encoder and the self-signed certificate of a signing key (src/oidc/saml/der.ts,
 * certificate.ts): node:crypto's X.509 parser reads it, its signature verifies with the key's
 * own public key, OpenSSL accepts it, and it is the same bytes every time (every instance of
 * the provider serves the same metadata).
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { X509Certificate } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { generate_key } from "../../../src/oidc/keys/algs.ts";
import { certificate_pem, self_signed_certificate } from "../../../src/oidc/saml/certificate.ts";
import { der_length, oid, small_integer, unsigned_integer, x509_time } from "../../../src/oidc/saml/der.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("DER", () => {
  test("lengths: short form below 128, minimal long form above (X.690 §8.1.3)", () => {
    expect(hex(der_length(0))).toBe("00");
    expect(hex(der_length(127))).toBe("7f");
    expect(hex(der_length(128))).toBe("8180");
    expect(hex(der_length(256))).toBe("820100");
    expect(hex(der_length(65536))).toBe("83010000");
  });

  test("integers are minimal and never negative (X.690 §8.3)", () => {
    expect(hex(small_integer(0))).toBe("020100");
    expect(hex(small_integer(2))).toBe("020102");
    expect(hex(small_integer(128))).toBe("02020080");
    expect(hex(unsigned_integer(Uint8Array.of(0, 0, 0x7f)))).toBe("02017f");
    expect(hex(unsigned_integer(Uint8Array.of(0xff)))).toBe("020200ff");
  });

  test("object identifiers (X.690 §8.19)", () => {
    expect(hex(oid("2.5.4.3"))).toBe("0603550403");
    expect(hex(oid("1.2.840.113549.1.1.11"))).toBe("06092a864886f70d01010b");
    expect(() => oid("3.1")).toThrow(RangeError);
    expect(() => oid("1.x")).toThrow(RangeError);
  });

  test("times: UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5)", () => {
    expect(Buffer.from(x509_time(Date.UTC(2049, 11, 31, 23, 59, 59) / 1000).subarray(2)).toString()).toBe("491231235959Z");
    expect(x509_time(0)[0]).toBe(0x17);
    expect(Buffer.from(x509_time(Date.UTC(2050, 0, 1) / 1000).subarray(2)).toString()).toBe("20500101000000Z");
  });

  test("property: any length encodes to what a decoder reads back", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (n) => {
        const bytes = der_length(n);
        const read = bytes[0]! < 0x80 ? bytes[0]! : [...bytes.subarray(1)].reduce((sum, b) => sum * 256 + b, 0);
        expect(read).toBe(n);
        if (bytes[0]! >= 0x80) expect(bytes[1]).not.toBe(0);
      }),
    );
  });
});

describe("the self-signed certificate", () => {
  test("parses, verifies with its own key, holds the key's public key and the issuer's host", async () => {
    const key = await generate_key("RS256");
    const created_at = 1_800_000_000;
    const der = self_signed_certificate({ kid: key.kid, private_jwk: key.private_jwk, created_at }, "idp.example:8443");
    const cert = new X509Certificate(der);
    expect(cert.subject).toBe("CN=idp.example:8443");
    expect(cert.issuer).toBe("CN=idp.example:8443");
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.publicKey.export({ format: "jwk" })).toMatchObject({ n: key.public_jwk.n, e: key.public_jwk.e });
    expect(new Date(cert.validFrom).getTime() / 1000).toBe(created_at - 3600);
    expect(new Date(cert.validTo).getTime() / 1000).toBe(created_at + 20 * 365 * 24 * 3600);
    expect(cert.ca).toBe(false);
    // Deterministic: another instance builds the same bytes.
    expect(hex(self_signed_certificate({ kid: key.kid, private_jwk: key.private_jwk, created_at }, "idp.example:8443"))).toBe(hex(der));
    // And another key gets another serial number.
    const other = await generate_key("RS256");
    expect(new X509Certificate(self_signed_certificate({ kid: other.kid, private_jwk: other.private_jwk, created_at }, "idp.example:8443")).serialNumber).not.toBe(
      cert.serialNumber,
    );
    expect(cert.publicKey.asymmetricKeyType).toBe("rsa");
  });

  test("OpenSSL reads it and verifies its self-signature", async () => {
    const key = await generate_key("RS256");
    const der = self_signed_certificate({ kid: key.kid, private_jwk: key.private_jwk, created_at: Math.floor(Date.now() / 1000) }, "127.0.0.1:9");
    const dir = mkdtempSync(join(tmpdir(), "idp-saml-cert-"));
    const path = join(dir, "cert.pem");
    writeFileSync(path, certificate_pem(Buffer.from(der).toString("base64")));
    const text = spawnSync("openssl", ["x509", "-in", path, "-noout", "-text"], { encoding: "utf8" });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("Signature Algorithm: sha256WithRSAEncryption");
    expect(text.stdout).toContain("Digital Signature");
    const verify = spawnSync("openssl", ["verify", "-CAfile", path, path], { encoding: "utf8" });
    expect(verify.stdout.trim()).toBe(`${path}: OK`);
  });

  test("an EC key is refused: XML signatures here are RSA-SHA256", async () => {
    const key = await generate_key("ES256");
    expect(() => self_signed_certificate({ kid: key.kid, private_jwk: key.private_jwk, created_at: 0 }, "x")).toThrow("RSA");
  });
});
