/**
 * Store types: sign-in with other identity providers (upstreams), the upstream accounts linked
 * to local users, and pending upstream sign-ins. The rules every adapter keeps are in ../types.ts.
 */

import type { IfVersion, JsonObject, UnixSeconds } from "./common.ts";

export type UpstreamKind = "oidc" | "oauth2";
/** First sign-in of an unknown upstream account: create a local account (jit), or require linking. */
export type UpstreamPolicy = "jit" | "link";
/** Client authentication at an upstream's token endpoint beyond the default (oidc/federation/flow.ts). */
export type UpstreamAuthMethod = "private_key_jwt";

export type UpstreamRow = {
  /** Unique; the path segment of its redirect URI (`/federation/<name>/callback`). */
  name: string;
  kind: UpstreamKind;
  /** The button's label ("Company SSO"). */
  display_name: string;
  /** oidc: the issuer whose discovery document configures the rest. */
  issuer: string | null;
  /** oauth2 (and optional overrides for oidc): explicit endpoints. */
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  userinfo_endpoint: string | null;
  /** oauth2: a GitHub-style list of the user's addresses ([{email, primary, verified}]); the primary one is used. */
  emails_endpoint: string | null;
  client_id: string;
  /** AES-256-GCM ciphertext (oidc/federation/secret_box.ts), never the secret; null for a public client. */
  client_secret_enc: string | null;
  scopes: string[];
  policy: UpstreamPolicy;
  /** Link to an existing local account with the same e-mail, when the upstream says it is verified. */
  auto_link: boolean;
  /** Local claim → upstream claim (name, email, picture, groups, preferred_username, subject, email_verified). */
  claim_mapping: JsonObject;
  enabled: boolean;
  /**
   * The upstream's multi-factor sign-in (its amr, or an acr of `mfa_acr_values`) stands in for the
   * local account's second factor (oidc/federation/flow.ts); false asks for the local one.
   */
  trust_upstream_mfa: boolean;
  /** The upstream's `acr` values the operator counts as our class `mfa` (oidc/signin/methods.ts). */
  mfa_acr_values: string[];
  /**
   * How we authenticate at the upstream's token endpoint: null, `client_secret_post` with a
   * secret (none without one); `private_key_jwt`, an assertion signed with our signing key.
   */
  token_endpoint_auth_method: UpstreamAuthMethod | null;
  /**
   * Upstream group → local group name: the only memberships a sign-in through this upstream may
   * add (and later remove); empty, the upstream's groups change nothing here.
   */
  group_map: Record<string, string>;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
  /** Raised by every update of the row (migration 020); a compare-and-set names it (common.ts `IfVersion`). */
  version: number;
};

/** `created_at`/`updated_at` default to now. */
export type NewUpstream = Omit<UpstreamRow, "created_at" | "updated_at" | "version"> & Partial<Pick<UpstreamRow, "created_at" | "updated_at">>;

/** Fields to change; `updated_at` defaults to now; `version` is the store's. */
export type UpstreamPatch = Partial<Omit<UpstreamRow, "name" | "created_at" | "version">>;

/**
 * Where a link's subject comes from (migration 021): a subject is unique only at its issuer, so a
 * link names an account only while the upstream's source is still this one
 * (oidc/federation/identity_source.ts computes an upstream's).
 */
export type IdentitySource = {
  /** The upstream's issuer (oidc), or the user endpoint the subject is read from (oauth2). */
  issuer: string;
  /** The upstream claim read as the subject (`claim_mapping.subject`). */
  subject_claim: string;
};

export type FederatedIdentityRow = IdentitySource & {
  upstream: string;
  /** The upstream's `sub` (or the mapped id of a plain OAuth 2.0 user). */
  subject: string;
  user_id: string;
  /** The e-mail the upstream gave at link time, to show on the account page. */
  email: string | null;
  created_at: UnixSeconds;
  last_used_at: UnixSeconds | null;
};

export type NewFederatedIdentity = Omit<FederatedIdentityRow, "created_at" | "last_used_at"> & Partial<Pick<FederatedIdentityRow, "created_at" | "last_used_at">>;

export type UpstreamStateRow = {
  /** SHA-256 of the `state` sent to the upstream. */
  state_hash: string;
  upstream: string;
  /** PKCE verifier, nonce, the interaction to resume, the browser binding, a user to link to. */
  data: JsonObject;
  expires_at: UnixSeconds;
};

export interface FederationStore {
  /** StoreConflictError when the name is taken. */
  create_upstream(upstream: NewUpstream): Promise<UpstreamRow>;
  get_upstream(name: string): Promise<UpstreamRow | null>;
  /** Ordered by name. */
  list_upstreams(): Promise<UpstreamRow[]>;
  /** Null when there is no such upstream (or, with `if_version`, it changed: IfVersion). */
  update_upstream(name: string, patch: UpstreamPatch, options?: IfVersion): Promise<UpstreamRow | null>;
  /** Also removes the identities linked through it. False when there is no such upstream (or, with `if_version`, it changed). */
  delete_upstream(name: string, options?: IfVersion): Promise<boolean>;

  /**
   * StoreConflictError when this upstream account (upstream, subject) is already linked, whatever
   * its source; StoreReferenceError for an unknown user.
   */
  link_identity(identity: NewFederatedIdentity): Promise<FederatedIdentityRow>;
  get_identity(upstream: string, subject: string): Promise<FederatedIdentityRow | null>;
  /** Oldest first. */
  list_identities_for_user(user_id: string): Promise<FederatedIdentityRow[]>;
  /** False when the user has no such identity. */
  unlink_identity(user_id: string, upstream: string, subject: string): Promise<boolean>;
  touch_identity(upstream: string, subject: string, now: UnixSeconds): Promise<void>;
  /** How many links of the upstream were made under another source than `current` (another issuer or subject claim). */
  count_stale_identities(upstream: string, current: IdentitySource): Promise<number>;
  /** Deletes the links of the upstream made under another source than `current`; returns how many. */
  delete_stale_identities(upstream: string, current: IdentitySource): Promise<number>;

  create_upstream_state(state: UpstreamStateRow): Promise<void>;
  /** Deletes and returns the state when it exists and has not expired: single use. */
  take_upstream_state(state_hash: string, now: UnixSeconds): Promise<UpstreamStateRow | null>;
}
