/** Store types: Signing keys. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds, JsonObject } from "./common.ts";

export type KeyStatus = "next" | "active" | "retired";

export type KeyRow = {
  kid: string;
  alg: string;
  use: string;
  private_jwk: JsonObject;
  public_jwk: JsonObject;
  status: KeyStatus;
  created_at: UnixSeconds;
  activated_at: UnixSeconds | null;
  /** When a retired key leaves the JWKS. */
  retire_at: UnixSeconds | null;
  updated_at: UnixSeconds;
};

export type NewKey = Pick<KeyRow, "kid" | "alg" | "private_jwk" | "public_jwk" | "status"> & Partial<Pick<KeyRow, "use" | "created_at" | "activated_at" | "retire_at">>;

export interface KeyStore {
  insert_key(key: NewKey): Promise<KeyRow>;
  /** Ordered by created_at, then kid. */
  list_keys(): Promise<KeyRow[]>;
  update_key_status(kid: string, status: KeyStatus, times?: { activated_at?: UnixSeconds | null; retire_at?: UnixSeconds | null; now?: UnixSeconds }): Promise<KeyRow | null>;
  delete_key(kid: string): Promise<boolean>;
  /**
   * Replaces the private JWK of `kid` when it is still `expected` (compare and set: of two
   * instances doing it at once, one does it). The key stays the same key (oidc/keys/sealed_keys.ts
   * stores its sealed form), so keys_version does not move. False when the key is gone or changed.
   */
  replace_private_jwk(kid: string, expected: JsonObject, private_jwk: JsonObject): Promise<boolean>;
  /** A number that changes on every key insert/update/delete: poll it to notice rotation. */
  keys_version(): Promise<number>;
}
