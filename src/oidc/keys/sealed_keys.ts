/**
 * The private signing keys at rest. With `IDP_SECRET_KEY` set, a key's private JWK is stored
 * sealed (crypto/envelope.ts: AES-256-GCM, the kid as additional data, so a sealed key copied to
 * another row does not open there) as `{"sealed": "v1.<iv>.<ciphertext+tag>"}`: a stored JWK
 * with a `sealed` member and no `kty` is sealed, any other is plain. A database dump or a
 * readable file then holds no usable private key without the secret key, which lives elsewhere
 * (the environment or a secrets manager).
 *
 * - `sealing_store` wraps the store for the key ring: keys are sealed as they are inserted and
 *   opened as they are read; plain rows are read as they are.
 * - `seal_plain_keys` runs at every start of a key ring with the secret key: plain rows (from
 *   before the key was set) are sealed in place (compare and set, so it is idempotent and
 *   concurrent starts agree). A migration could not do it: it does not know the secret key.
 * - A sealed key without the secret key, or one that does not open with it (another key), stops
 *   the start with KeyRingError naming the setting: never a silent new key set, which would
 *   invalidate every token issued and every JWKS cached by the relying parties.
 *
 * There is one secret key, as for the upstreams' secrets (federation/secret_box.ts): changing
 * IDP_SECRET_KEY is not supported, the keys sealed under the old one would no longer open (and
 * the start is refused, saying so).
 */
import type { JsonObject, KeyRow, KeyStore } from "../../store/types.ts";
import { open_sealed, seal, secret_key_bytes } from "../crypto/envelope.ts";
import { KeyRingError } from "./errors.ts";

/** The member of a stored private JWK that marks it sealed. */
export const SEALED_MEMBER = "sealed";

const aad = (kid: string) => `signing-key:${kid}`;

/** Whether a stored private JWK is sealed (a `sealed` member, no `kty`). */
export function is_sealed_jwk(jwk: JsonObject): boolean {
  return typeof jwk[SEALED_MEMBER] === "string" && !("kty" in jwk);
}

/** The stored form of a private JWK sealed under `key`. */
export function seal_private_jwk(key: Buffer, kid: string, jwk: JsonObject): JsonObject {
  return { [SEALED_MEMBER]: seal(key, aad(kid), JSON.stringify(jwk)) };
}

/** The private JWK of a stored one: opened when sealed, as stored when plain; KeyRingError when it cannot be opened. */
export function open_private_jwk(key: Buffer | null, kid: string, stored: JsonObject): JsonObject {
  if (!is_sealed_jwk(stored)) return stored;
  if (key === null) {
    throw new KeyRingError(`the signing keys in the database are encrypted (key ${kid}), and IDP_SECRET_KEY is not set: set it to the key they were encrypted with`);
  }
  const opened = open_sealed(key, aad(kid), stored[SEALED_MEMBER] as string);
  if ("failure" in opened) {
    throw new KeyRingError(
      opened.failure === "format"
        ? `the signing key ${kid} in the database is encrypted in an unknown format (a newer version of the provider?)`
        : `the signing key ${kid} in the database does not decrypt with IDP_SECRET_KEY: it is not the key the signing keys were encrypted with (was IDP_SECRET_KEY changed?)`,
    );
  }
  return JSON.parse(opened.plaintext) as JsonObject;
}

/** The 32 bytes of the secret key; KeyRingError when it is set but not 32 bytes of base64url. */
function key_of(secret_key: string | undefined): Buffer | null {
  if (secret_key === undefined) return null;
  const key = secret_key_bytes(secret_key);
  if (key === null) throw new KeyRingError("IDP_SECRET_KEY must be 32 bytes in base64url (43 characters)");
  return key;
}

/** The store as the key ring sees it: private keys sealed on insert (with a secret key), opened on read. */
export function sealing_store(store: KeyStore, secret_key: string | undefined): KeyStore {
  const key = key_of(secret_key);
  const opened = (row: KeyRow): KeyRow => ({ ...row, private_jwk: open_private_jwk(key, row.kid, row.private_jwk) });
  return {
    async insert_key(input) {
      if (key === null) return store.insert_key(input);
      const row = await store.insert_key({ ...input, private_jwk: seal_private_jwk(key, input.kid, input.private_jwk) });
      return { ...row, private_jwk: input.private_jwk };
    },
    async list_keys() {
      return (await store.list_keys()).map(opened);
    },
    async update_key_status(kid, status, times) {
      const row = await store.update_key_status(kid, status, times);
      return row === null ? null : opened(row);
    },
    delete_key: (kid) => store.delete_key(kid),
    replace_private_jwk: (kid, expected, private_jwk) => store.replace_private_jwk(kid, expected, private_jwk),
    keys_version: () => store.keys_version(),
  };
}

/**
 * With a secret key: seals every plain private key in place (idempotent; another instance's
 * concurrent sealing wins the compare and set, and either result opens). Then checks that every
 * stored key opens (with the secret key, or without one when none is sealed): KeyRingError
 * otherwise. Returns how many keys it sealed.
 */
export async function seal_plain_keys(store: KeyStore, secret_key: string | undefined): Promise<number> {
  const key = key_of(secret_key);
  let sealed = 0;
  for (const row of await store.list_keys()) {
    if (key !== null && !is_sealed_jwk(row.private_jwk)) {
      if (await store.replace_private_jwk(row.kid, row.private_jwk, seal_private_jwk(key, row.kid, row.private_jwk))) sealed++;
    } else {
      open_private_jwk(key, row.kid, row.private_jwk);
    }
  }
  return sealed;
}
