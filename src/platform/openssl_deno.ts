/**
 * openssl.ts on Deno: no OpenSSL signer. Deno's WebCrypto signs RS256/PS256 (jws.ts falls back
 * to it when this answers null), so OpenSSL would only be a speed-up, and one that needs
 * `--allow-ffi` for libcrypto.
 */
export function rsa_signer(): null {
  return null;
}
