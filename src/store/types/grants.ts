/** Store types: Grants (consent a user gave a client). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds, JsonObject } from "./common.ts";

export type GrantRow = {
  user_id: string;
  client_id: string;
  scopes: string[];
  claims: JsonObject | null;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
};

export type GrantUpsert = Pick<GrantRow, "user_id" | "client_id" | "scopes"> & {
  /** Replaces stored claims when given; kept otherwise. */
  claims?: JsonObject | null;
  now?: UnixSeconds;
};

export interface GrantStore {
  /** Creates the grant or adds scopes to it (set union, existing order first). Atomic. */
  upsert_grant(grant: GrantUpsert): Promise<GrantRow>;
  get_grant(user_id: string, client_id: string): Promise<GrantRow | null>;
  list_grants_for_user(user_id: string): Promise<GrantRow[]>;
  /** Only the consent: the caller also revokes tokens (revoke_for_user_client). */
  delete_grant(user_id: string, client_id: string): Promise<boolean>;
}
