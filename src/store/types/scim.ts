/** Store types: what SCIM provisioning keeps beside users and groups (migration 030, oidc/scim/). The rules every adapter keeps are in ../types.ts. */
import type { JsonObject, UnixSeconds } from "./common.ts";

/** A provisioned user's SCIM-only data: the client's `externalId` and the enterprise extension's values. */
export type ScimUserRow = { user_id: string; external_id: string | null; enterprise: JsonObject; updated_at: UnixSeconds };

/** A provisioned group's SCIM-only data: the client's `externalId` and the `displayName` as sent. */
export type ScimGroupRow = { group_id: string; external_id: string | null; display_name: string; updated_at: UnixSeconds };

/** A long-lived SCIM bearer token (migration 035): its name, the SHA-256 of the token (hex), when it stops working. */
export type ScimTokenRow = { name: string; token_hash: string; created_at: UnixSeconds; expires_at: UnixSeconds; revoked_at: UnixSeconds | null };

export interface ScimStore {
  get_scim_user(user_id: string): Promise<ScimUserRow | null>;
  /** Inserts or replaces the row of the user; StoreReferenceError for an unknown user. */
  put_scim_user(row: ScimUserRow): Promise<void>;
  /** The ids of the users with this externalId (compared exactly, RFC 7643 §3.1 caseExact). */
  find_scim_users_by_external_id(external_id: string): Promise<string[]>;
  get_scim_group(group_id: string): Promise<ScimGroupRow | null>;
  /** Inserts or replaces the row of the group; StoreReferenceError for an unknown group. */
  put_scim_group(row: ScimGroupRow): Promise<void>;
  find_scim_groups_by_external_id(external_id: string): Promise<string[]>;
  /** StoreConflictError when the name (or the hash) is taken. */
  create_scim_token(row: ScimTokenRow): Promise<void>;
  get_scim_token_by_hash(token_hash: string): Promise<ScimTokenRow | null>;
  /** Every token, revoked and expired ones included, by name. */
  list_scim_tokens(): Promise<ScimTokenRow[]>;
  /** Sets revoked_at on a token not yet revoked; false when there is no such token or it was revoked already. */
  revoke_scim_token(name: string, now: UnixSeconds): Promise<boolean>;
}
