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
  upsertGrant(grant: GrantUpsert): Promise<GrantRow>;
  getGrant(userId: string, clientId: string): Promise<GrantRow | null>;
  listGrantsForUser(userId: string): Promise<GrantRow[]>;
  /** Only the consent: the caller also revokes tokens (revokeForUserClient). */
  deleteGrant(userId: string, clientId: string): Promise<boolean>;
}
