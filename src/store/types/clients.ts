/** Store types: Clients. The rules every adapter keeps are in ../types.ts. */

import type { IfVersion, UnixSeconds, JsonObject } from "./common.ts";

/**
 * Registered client metadata (OIDC Dynamic Client Registration §2, RFC 7591 §2). The store keeps
 * it as an opaque JSON object; unknown members are preserved.
 */
export type ClientMetadata = {
  client_name?: string;
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
  token_endpoint_auth_signing_alg?: string;
  application_type?: "web" | "native";
  /** First-party client: consent is implied. */
  skip_consent?: boolean;
  logo_uri?: string;
  client_uri?: string;
  policy_uri?: string;
  tos_uri?: string;
  contacts?: string[];
  jwks?: { keys: JsonObject[] };
  jwks_uri?: string;
  sector_identifier_uri?: string;
  subject_type?: "public" | "pairwise";
  id_token_signed_response_alg?: string;
  userinfo_signed_response_alg?: string;
  /** RFC 9701 §6: introspection answers for this client as a signed JWT, with this alg. */
  introspection_signed_response_alg?: string;
  /** JARM §3: the alg of this client's JWT authorization responses (RS256 by default). */
  authorization_signed_response_alg?: string;
  /** OIDC Registration §2: request objects must be signed with exactly this alg. */
  request_object_signing_alg?: string;
  default_max_age?: number;
  require_auth_time?: boolean;
  default_acr_values?: string[];
  initiate_login_uri?: string;
  request_uris?: string[];
  scope?: string;
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  frontchannel_logout_uri?: string;
  frontchannel_logout_session_required?: boolean;
  software_id?: string;
  software_version?: string;
  /** RFC 9126 §6: authorization requests of this client must be pushed (PAR). */
  require_pushed_authorization_requests?: boolean;
  /** RFC 9449 §5.2: token requests of this client must carry a DPoP proof. */
  dpop_bound_access_tokens?: boolean;
  /** FAPI 2.0 Security Profile (oidc/clients/fapi.ts): this client runs the profile; operator-set or registrable (it only tightens rules). */
  fapi_profile?: "2.0";
  /** Operator-set (granted by the CLI only, never registrable; the admin API may remove it): may get the `admin` scope (oidc/admin/scope.ts). */
  admin?: boolean;
  /** Operator-set (CLI and admin API; never registrable): may introspect other clients' access tokens. */
  resource_server?: boolean;
  /** Operator-set (CLI and admin API; never registrable): RFC 8693 token exchange policy (grants/token_exchange.ts). */
  token_exchange?: TokenExchangePolicy;
  /** Operator-set (CLI and admin API; never registrable): every sign-in to this client needs a second factor (TOTP or a passkey). */
  require_2fa?: boolean;
  /** Operator-set (CLI and admin API; never registrable): group claims and access policy (oidc/claims/groups.ts). */
  groups_claim?: string;
  groups_prefix?: string;
  groups_prefix_strip?: boolean;
  roles?: Record<string, string>;
  allowed_groups?: string[];
  [extension: string]: unknown;
};

/** What a client may do with token exchange (RFC 8693); absent: nothing. */
export type TokenExchangePolicy = {
  /** Clients whose access tokens it may exchange; "*" for any. */
  subject_clients: string[];
  /** Without actor_token: the new token acts as the subject (RFC 8693 §1.1). */
  impersonation: boolean;
  /** With actor_token: the new token names the actor in `act` (RFC 8693 §1.1, §4.1). */
  delegation: boolean;
  /** The registered resources (RFC 8707) the new tokens may be for. */
  resources: string[];
};

export type ClientRow = {
  client_id: string;
  client_secret_hash: string | null;
  /** 0 means the secret does not expire (RFC 7591 §3.2.1). */
  client_secret_expires_at: UnixSeconds;
  client_id_issued_at: UnixSeconds;
  registration_access_token_hash: string | null;
  metadata: ClientMetadata;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
  /**
   * Registered at /register without an initial access token (IDP_REGISTRATION=open): deleted by
   * the purge when never used (oidc/registration/unused_clients.ts). False by default (migration 19).
   */
  anonymous: boolean;
  /** When the client was first issued a token; null: never (migration 19). Set once (`mark_client_used`). */
  first_used_at: UnixSeconds | null;
  /** Raised by every update of the row (migration 20); a compare-and-set names it (common.ts `IfVersion`). */
  version: number;
  /** When the current secret was made; null for one made before this was recorded (or no secret). */
  client_secret_created_at: UnixSeconds | null;
  /** When the current secret last authenticated the client, to the minute (oidc/clients/authentication.ts); null: never. */
  client_secret_used_at: UnixSeconds | null;
  /**
   * The secret a rotation with a grace period replaced (oidc/admin/clients.ts
   * `rotate_client_secret`): it keeps authenticating the client until `previous_secret_expires_at`,
   * so the application can move to the new one without an outage. All four null when there is none.
   */
  previous_secret_hash: string | null;
  previous_secret_expires_at: UnixSeconds | null;
  previous_secret_created_at: UnixSeconds | null;
  previous_secret_used_at: UnixSeconds | null;
};

export type NewClient = Pick<ClientRow, "client_id" | "metadata"> & Partial<Omit<ClientRow, "client_id" | "metadata" | "version">>;

/** `metadata`, when given, replaces the whole object (RFC 7592 §2.2 update semantics). */
export type ClientPatch = Partial<Omit<ClientRow, "client_id" | "created_at" | "version">>;

export interface ClientStore {
  /** Raises StoreConflictError when the client_id exists. */
  create_client(client: NewClient): Promise<ClientRow>;
  get_client(client_id: string): Promise<ClientRow | null>;
  /** Ordered by client_id. */
  list_clients(options?: { limit?: number; offset?: number }): Promise<ClientRow[]>;
  /** Null when there is no such client (or, with `if_version`, it changed: IfVersion). */
  update_client(client_id: string, patch: ClientPatch, options?: IfVersion): Promise<ClientRow | null>;
  /** Also deletes the client's grants, codes and tokens. False when there is no such client (or, with `if_version`, it changed). */
  delete_client(client_id: string, options?: IfVersion): Promise<boolean>;
  /** RFC 7592: find the client a registration access token belongs to. */
  get_client_by_registration_token_hash(token_hash: string): Promise<ClientRow | null>;
  /**
   * Records the client's first use at `now`: sets `first_used_at` only while it is null (one
   * write per client ever; of concurrent calls one sets it). True when this call set it.
   */
  mark_client_used(client_id: string, now: UnixSeconds): Promise<boolean>;
  /**
   * Deletes at most `limit` clients that registered anonymously and were never used, registered
   * at or before `before`, as delete_client does, and returns them (for the audit log), oldest first.
   */
  delete_unused_clients(before: UnixSeconds, limit: number): Promise<ClientRow[]>;
  /**
   * Records that the secret whose hash is `secret_hash` (the current or the previous one)
   * authenticated the client at `at`. Changes neither `updated_at` nor anything else; nothing
   * when neither secret has that hash any more (a rotation in between).
   */
  note_client_secret_use(client_id: string, secret_hash: string, at: UnixSeconds): Promise<void>;
}
