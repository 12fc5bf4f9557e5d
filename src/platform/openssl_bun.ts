/**
 * RS256/PS256 through the system's OpenSSL 3 (libcrypto.so.3) by `bun:ffi`: openssl.ts on Bun.
 *
 * - The library is opened at run time (dlopen), so the compiled executable needs no build-time
 *   OpenSSL; when it is missing, too old, or any setup step fails, `rsa_signer` returns null and
 *   jws.ts keeps WebCrypto.
 * - The private key is parsed once (PKCS#8 DER → `EVP_PKEY*`) and freed when its signer is
 *   garbage-collected. Each signature is EVP_DigestSign on a fresh EVP_MD_CTX, freed before
 *   returning, so nothing is kept per call.
 * - Synchronous: the signature runs on the JS thread. JS never interleaves inside a call, so the
 *   shared out-buffers are safe for any number of async callers.
 */
import { dlopen, ptr } from "bun:ffi";
import { createPrivateKey } from "node:crypto";

const EVP_PKEY_RSA = 6;
const RSA_PKCS1_PSS_PADDING = 6;

type Pointer = number;

const SYMBOLS = {
  OPENSSL_version_major: { args: [], returns: "u32" },
  d2i_AutoPrivateKey: { args: ["ptr", "ptr", "i64"], returns: "ptr" },
  EVP_PKEY_get_base_id: { args: ["ptr"], returns: "i32" },
  EVP_PKEY_get_size: { args: ["ptr"], returns: "i32" },
  EVP_PKEY_free: { args: ["ptr"], returns: "void" },
  EVP_sha256: { args: [], returns: "ptr" },
  EVP_MD_CTX_new: { args: [], returns: "ptr" },
  EVP_MD_CTX_free: { args: ["ptr"], returns: "void" },
  EVP_DigestSignInit: { args: ["ptr", "ptr", "ptr", "ptr", "ptr"], returns: "i32" },
  EVP_PKEY_CTX_set_rsa_padding: { args: ["ptr", "i32"], returns: "i32" },
  EVP_PKEY_CTX_set_rsa_pss_saltlen: { args: ["ptr", "i32"], returns: "i32" },
  EVP_DigestSign: { args: ["ptr", "ptr", "ptr", "ptr", "u64"], returns: "i32" },
  ERR_clear_error: { args: [], returns: "void" },
} as const;

/** The libcrypto functions we call, typed by hand (bun:ffi's own types need the symbol table literal). */
type Crypto = {
  OPENSSL_version_major(): number;
  d2i_AutoPrivateKey(a: null, pp: BigUint64Array, length: number): Pointer | null;
  EVP_PKEY_get_base_id(pkey: Pointer): number;
  EVP_PKEY_get_size(pkey: Pointer): number;
  EVP_PKEY_free(pkey: Pointer): void;
  EVP_sha256(): Pointer | null;
  EVP_MD_CTX_new(): Pointer | null;
  EVP_MD_CTX_free(ctx: Pointer): void;
  EVP_DigestSignInit(ctx: Pointer, pctx: BigUint64Array, md: Pointer, engine: null, pkey: Pointer): number;
  EVP_PKEY_CTX_set_rsa_padding(pctx: Pointer, padding: number): number;
  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx: Pointer, saltlen: number): number;
  EVP_DigestSign(ctx: Pointer, sig: Uint8Array, siglen: BigUint64Array, tbs: Uint8Array, tbslen: number): number;
  ERR_clear_error(): void;
};

type Library = { crypto: Crypto; sha256: Pointer };

/** One load attempt per library name list; null when it failed. */
const libraries = new Map<string, Library | null>();

function open(names: readonly string[]): Library | null {
  for (const name of names) {
    try {
      const crypto = dlopen(name, SYMBOLS).symbols as unknown as Crypto;
      if (crypto.OPENSSL_version_major() < 3) continue;
      const sha256 = crypto.EVP_sha256();
      if (sha256) return { crypto, sha256 };
    } catch {
      // Not found, or an OpenSSL without one of the symbols (1.1 has no EVP_PKEY_get_size): try the next.
    }
  }
  return null;
}

function library(names: readonly string[]): Library | null {
  const id = names.join("\0");
  if (!libraries.has(id)) libraries.set(id, open(names));
  return libraries.get(id) ?? null;
}

/** Frees an EVP_PKEY when the signer holding it is collected (keys leave the ring on rotation). */
const pkeys = new FinalizationRegistry<{ crypto: Crypto; pkey: Pointer }>(({ crypto, pkey }) => crypto.EVP_PKEY_free(pkey));

/** The signer of openssl.ts `openssl_rsa_signer`, from the first of `names` that loads, or null. */
export function rsa_signer(jwk: JsonWebKey, alg: "RS256" | "PS256", names: readonly string[]): ((data: Uint8Array) => Uint8Array) | null {
  const lib = library(names);
  if (!lib) return null;
  const { crypto, sha256 } = lib;

  let der: Buffer;
  try {
    der = createPrivateKey({ key: jwk, format: "jwk" }).export({ type: "pkcs8", format: "der" });
  } catch {
    return null;
  }
  // d2i_* advances the pointer it is given, so it takes the address of a pointer.
  const cursor = new BigUint64Array([BigInt(ptr(der))]);
  const pkey = crypto.d2i_AutoPrivateKey(null, cursor, der.length);
  der.fill(0);
  if (!pkey) {
    crypto.ERR_clear_error();
    return null;
  }
  const size = crypto.EVP_PKEY_get_size(pkey);
  if (crypto.EVP_PKEY_get_base_id(pkey) !== EVP_PKEY_RSA || size <= 0) {
    crypto.EVP_PKEY_free(pkey);
    return null;
  }

  // Out-parameters and the signature buffer, reused by every call (see the header on safety).
  const pctx_out = new BigUint64Array(1);
  const siglen = new BigUint64Array(1);
  const sig = new Uint8Array(size);
  const pss = alg === "PS256";

  const sign = (data: Uint8Array): Uint8Array => {
    const ctx = crypto.EVP_MD_CTX_new();
    if (!ctx) throw new Error("OpenSSL: EVP_MD_CTX_new failed");
    let ok = false;
    try {
      if (crypto.EVP_DigestSignInit(ctx, pctx_out, sha256, null, pkey) !== 1) return fail("EVP_DigestSignInit");
      if (pss) {
        // The pkey ctx belongs to ctx (freed with it). MGF1's digest defaults to the signature's (SHA-256).
        const pctx = Number(pctx_out[0]);
        if (crypto.EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0) return fail("EVP_PKEY_CTX_set_rsa_padding");
        if (crypto.EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, 32) <= 0) return fail("EVP_PKEY_CTX_set_rsa_pss_saltlen");
      }
      siglen[0] = BigInt(size);
      if (crypto.EVP_DigestSign(ctx, sig, siglen, data, data.length) !== 1) return fail("EVP_DigestSign");
      ok = true;
      return sig.slice(0, Number(siglen[0]));
    } finally {
      crypto.EVP_MD_CTX_free(ctx);
      if (!ok) crypto.ERR_clear_error();
    }
  };
  pkeys.register(sign, { crypto, pkey });
  return sign;
}

function fail(step: string): never {
  throw new Error(`OpenSSL: ${step} failed`);
}
