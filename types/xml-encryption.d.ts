/** The part of xml-encryption (no types of its own) that oidc/saml/encrypt.ts uses. */
declare module "xml-encryption" {
  export type EncryptOptions = {
    rsa_pub: string | Buffer;
    pem: string | Buffer;
    encryptionAlgorithm: string;
    keyEncryptionAlgorithm: string;
    keyEncryptionDigest?: string;
    disallowEncryptionWithInsecureAlgorithm?: boolean;
    warnInsecureAlgorithm?: boolean;
  };
  export type DecryptOptions = { key: string | Buffer; disallowDecryptionWithInsecureAlgorithm?: boolean; warnInsecureAlgorithm?: boolean };
  export function encrypt(content: string, options: EncryptOptions, callback: (error: Error | null, result: string) => void): void;
  export function decrypt(xml: string, options: DecryptOptions, callback: (error: Error | null, result: string) => void): void;
}
