/**
 * Rows of `upstreams`, `federated_identities` and `upstream_states`: the column specs (codec.ts
 * encodes and decodes by them) and the builders that complete new rows, shared by both adapters
 * so they store exactly the same defaults. An upstream state is stored as the caller made it.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { FederatedIdentityRow, NewFederatedIdentity, NewUpstream, UpstreamRow, UpstreamStateRow } from "../types.ts";

/** The columns of `upstreams`. */
export const upstream_spec: TableSpec<UpstreamRow> = {
  name: "text",
  kind: "text",
  display_name: "text",
  issuer: "text",
  authorization_endpoint: "text",
  token_endpoint: "text",
  userinfo_endpoint: "text",
  emails_endpoint: "text",
  client_id: "text",
  client_secret_enc: "text",
  scopes: "json",
  policy: "text",
  auto_link: "bool",
  claim_mapping: "json",
  enabled: "bool",
  trust_upstream_mfa: "bool",
  mfa_acr_values: "json",
  token_endpoint_auth_method: "text",
  group_map: "json",
  created_at: "int",
  updated_at: "int",
  version: "int",
};

/** The columns of `federated_identities`. */
export const federated_identity_spec: TableSpec<FederatedIdentityRow> = {
  upstream: "text",
  subject: "text",
  user_id: "text",
  email: "text",
  created_at: "int",
  last_used_at: "int",
  issuer: "text",
  subject_claim: "text",
};

/** The columns of `upstream_states`. */
export const upstream_state_spec: TableSpec<UpstreamStateRow> = {
  state_hash: "text",
  upstream: "text",
  data: "json",
  expires_at: "int",
};

/** The complete row of a new upstream: its lists copied, the times filled in. */
export function upstream_row(input: NewUpstream): UpstreamRow {
  const now = now_seconds();
  return {
    ...input,
    scopes: [...input.scopes],
    mfa_acr_values: [...input.mfa_acr_values],
    created_at: input.created_at ?? now,
    updated_at: input.updated_at ?? input.created_at ?? now,
    version: 0,
  };
}

/** The complete row of a new link to an upstream account, never used yet unless given. */
export function federated_identity_row(input: NewFederatedIdentity): FederatedIdentityRow {
  return { ...input, created_at: input.created_at ?? now_seconds(), last_used_at: input.last_used_at ?? null };
}
