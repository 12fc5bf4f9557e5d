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

export type NewKey = Pick<KeyRow, "kid" | "alg" | "private_jwk" | "public_jwk" | "status"> &
  Partial<Pick<KeyRow, "use" | "created_at" | "activated_at" | "retire_at">>;

export interface KeyStore {
  insert_key(key: NewKey): Promise<KeyRow>;
  /** Ordered by created_at, then kid. */
  list_keys(): Promise<KeyRow[]>;
  update_key_status(
    kid: string,
    status: KeyStatus,
    times?: { activated_at?: UnixSeconds | null; retire_at?: UnixSeconds | null; now?: UnixSeconds },
  ): Promise<KeyRow | null>;
  delete_key(kid: string): Promise<boolean>;
  /** A number that changes on every key insert/update/delete: poll it to notice rotation. */
  keys_version(): Promise<number>;
}
