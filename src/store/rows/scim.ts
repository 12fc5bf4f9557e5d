/** Rows of `scim_users` and `scim_groups` (migration 030) and `scim_tokens` (migration 035): the column specs both adapters encode and decode by. */
import type { TableSpec } from "../codec.ts";
import type { ScimGroupRow, ScimTokenRow, ScimUserRow } from "../types.ts";

export const scim_user_spec: TableSpec<ScimUserRow> = { user_id: "text", external_id: "text", enterprise: "json", updated_at: "int" };

export const scim_group_spec: TableSpec<ScimGroupRow> = { group_id: "text", external_id: "text", display_name: "text", updated_at: "int" };

export const scim_token_spec: TableSpec<ScimTokenRow> = { name: "text", token_hash: "text", created_at: "int", expires_at: "int", revoked_at: "int" };
