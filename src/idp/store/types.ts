/**
 * The storage interface of the provider, shared by the SQLite and PostgreSQL adapters.
 *
 * Rules every adapter keeps (and the shared suite in tests/store/suite.ts checks):
 * - Every method is async, so callers never know which database is behind it.
 * - The store never hashes or generates secrets: callers pass SHA-256 hashes of codes, tokens,
 *   client secrets and session ids (argon2id for passwords). Fields holding them end in `_hash`.
 * - Times are integer unix seconds. Inputs may omit `created_at`/`updated_at`; the store then
 *   fills in the current time. Checks against "now" (expiry, windows) take `now` explicitly.
 * - Plain getters return rows as stored, expired or revoked ones included until they are purged:
 *   the caller checks `expires_at` / `revoked_at`. The single-use operations (`consumeCode`,
 *   `rotateRefreshToken`, `consumeRecoveryCode`, `useJti`) check and mark in one atomic step.
 * - Failures: a unique/primary-key clash raises StoreConflictError, a missing referenced row
 *   (foreign key) raises StoreReferenceError, an unreachable database raises
 *   StoreUnavailableError (the server answers 503).
 * - Rows use snake_case field names mirroring OpenID/OAuth names, so they map to protocol JSON.
 */

/** Integer unix time in seconds. */
export type UnixSeconds = number;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

// ---------------------------------------------------------------------------------------------
// Errors

/** Base class of every error the store raises on purpose. */
export class StoreError extends Error {
  override name = "StoreError";
}

/** The database cannot be reached (refused, timed out, connection lost). Answer 503 and retry later. */
export class StoreUnavailableError extends StoreError {
  override name = "StoreUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A unique or primary key already exists (e.g. a taken username or client_id). */
export class StoreConflictError extends StoreError {
  override name = "StoreConflictError";
  constructor(message: string, readonly constraint?: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A row refers to a row that does not exist (e.g. a session for an unknown user). */
export class StoreReferenceError extends StoreError {
  override name = "StoreReferenceError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Users

/** OIDC Core §5.1.1 address claim. */
export type Address = {
  formatted?: string;
  street_address?: string;
  locality?: string;
  region?: string;
  postal_code?: string;
  country?: string;
};

export type UserRow = {
  id: string;
  username: string;
  password_hash: string;
  name: string | null;
  given_name: string | null;
  family_name: string | null;
  picture: string | null;
  email: string | null;
  email_verified: boolean;
  phone_number: string | null;
  phone_number_verified: boolean;
  address: Address | null;
  totp_secret: string | null;
  totp_enabled_at: UnixSeconds | null;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
};

/** `id` defaults to a random UUID; omitted profile fields are null/false. */
export type NewUser = Pick<UserRow, "username" | "password_hash"> &
  Partial<Omit<UserRow, "username" | "password_hash">>;

/** Fields to change; `updated_at` defaults to now. */
export type UserPatch = Partial<Omit<UserRow, "id" | "created_at">>;

export interface UserStore {
  /** Raises StoreConflictError when the username is taken (case-insensitively). */
  createUser(user: NewUser): Promise<UserRow>;
  getUserById(id: string): Promise<UserRow | null>;
  /** Case-insensitive. */
  getUserByUsername(username: string): Promise<UserRow | null>;
  /** Ordered by username. */
  listUsers(options?: { limit?: number; offset?: number }): Promise<UserRow[]>;
  /** Returns the updated row, or null when there is no such user. */
  updateUser(id: string, patch: UserPatch): Promise<UserRow | null>;
  /** Also deletes the user's sessions, grants, codes, tokens and recovery codes. */
  deleteUser(id: string): Promise<boolean>;
  /** Replaces all recovery codes of the user with these hashes. */
  setRecoveryCodes(userId: string, codeHashes: string[], now?: UnixSeconds): Promise<void>;
  /** Atomic single use: true once for a valid unused code, false afterwards. */
  consumeRecoveryCode(userId: string, codeHash: string, now?: UnixSeconds): Promise<boolean>;
  /** How many unused recovery codes are left. */
  countRecoveryCodes(userId: string): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Clients

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
  /** Operator-set (CLI only, never registrable): may introspect other clients' access tokens. */
  resource_server?: boolean;
  [extension: string]: unknown;
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
};

export type NewClient = Pick<ClientRow, "client_id" | "metadata"> &
  Partial<Omit<ClientRow, "client_id" | "metadata">>;

/** `metadata`, when given, replaces the whole object (RFC 7592 §2.2 update semantics). */
export type ClientPatch = Partial<Omit<ClientRow, "client_id" | "created_at">>;

export interface ClientStore {
  /** Raises StoreConflictError when the client_id exists. */
  createClient(client: NewClient): Promise<ClientRow>;
  getClient(clientId: string): Promise<ClientRow | null>;
  /** Ordered by client_id. */
  listClients(options?: { limit?: number; offset?: number }): Promise<ClientRow[]>;
  updateClient(clientId: string, patch: ClientPatch): Promise<ClientRow | null>;
  /** Also deletes the client's grants, codes and tokens. */
  deleteClient(clientId: string): Promise<boolean>;
  /** RFC 7592: find the client a registration access token belongs to. */
  getClientByRegistrationTokenHash(tokenHash: string): Promise<ClientRow | null>;
}

// ---------------------------------------------------------------------------------------------
// Browser sessions (SSO)

export type SessionRow = {
  id_hash: string;
  user_id: string;
  auth_time: UnixSeconds;
  amr: string[];
  acr: string | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
  last_seen_at: UnixSeconds;
};

export type NewSession = Omit<SessionRow, "created_at" | "last_seen_at" | "acr"> &
  Partial<Pick<SessionRow, "created_at" | "last_seen_at" | "acr">>;

export interface SessionStore {
  /** Raises StoreReferenceError for an unknown user. */
  createSession(session: NewSession): Promise<SessionRow>;
  getSession(idHash: string): Promise<SessionRow | null>;
  listSessionsForUser(userId: string): Promise<SessionRow[]>;
  /** Records activity; optionally slides the expiry. False when the session is gone. */
  touchSession(idHash: string, lastSeenAt: UnixSeconds, expiresAt?: UnixSeconds): Promise<boolean>;
  deleteSession(idHash: string): Promise<boolean>;
  /** Returns how many sessions were deleted. */
  deleteSessionsForUser(userId: string): Promise<number>;
  /**
   * Remembers that a client signed in through this session (OIDC Back-Channel Logout §2.3). Idempotent;
   * does nothing when the session is gone. The rows go with the session and with the client.
   */
  addSessionClient(sessionIdHash: string, clientId: string, now?: UnixSeconds): Promise<void>;
  /** The client_ids a session signed in to, ordered by client_id. */
  listSessionClients(sessionIdHash: string): Promise<string[]>;
}

// ---------------------------------------------------------------------------------------------
// Interactions (a pending authorization request between /authorize and login/consent)

export type InteractionRow = {
  id: string;
  /** The validated authorization request parameters. */
  params: JsonObject;
  session_id_hash: string | null;
  /** What login/consent decided so far (user, amr, granted scopes...); null until then. */
  result: JsonObject | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
};

export type NewInteraction = Pick<InteractionRow, "id" | "params" | "expires_at"> &
  Partial<Pick<InteractionRow, "session_id_hash" | "result" | "created_at">>;

export type InteractionPatch = Partial<Pick<InteractionRow, "params" | "session_id_hash" | "result" | "expires_at">>;

export interface InteractionStore {
  createInteraction(interaction: NewInteraction): Promise<InteractionRow>;
  getInteraction(id: string): Promise<InteractionRow | null>;
  updateInteraction(id: string, patch: InteractionPatch): Promise<InteractionRow | null>;
  deleteInteraction(id: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Grants (consent a user gave a client)

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

// ---------------------------------------------------------------------------------------------
// Authorization codes

export type CodeRow = {
  code_hash: string;
  client_id: string;
  user_id: string;
  session_id_hash: string | null;
  redirect_uri: string;
  scope: string;
  nonce: string | null;
  code_challenge: string | null;
  code_challenge_method: string | null;
  auth_time: UnixSeconds;
  acr: string | null;
  amr: string[];
  claims: JsonObject | null;
  /** Carried by every token issued from this code, to revoke them when the code is reused. */
  grant_id: string;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
  consumed_at: UnixSeconds | null;
};

export type NewCode = Omit<CodeRow, "created_at" | "consumed_at" | "session_id_hash" | "nonce" | "code_challenge" | "code_challenge_method" | "acr" | "amr" | "claims"> &
  Partial<Pick<CodeRow, "created_at" | "session_id_hash" | "nonce" | "code_challenge" | "code_challenge_method" | "acr" | "amr" | "claims">>;

/**
 * - ok: this call consumed the code.
 * - reused: it was consumed before (OAuth 2.0 Security BCP: revoke tokens with its grant_id).
 * - expired: past expires_at (it is now consumed too).
 */
export type ConsumeCodeResult =
  | { status: "ok"; code: CodeRow }
  | { status: "reused"; code: CodeRow }
  | { status: "expired"; code: CodeRow }
  | { status: "not_found" };

export interface CodeStore {
  insertCode(code: NewCode): Promise<CodeRow>;
  getCode(codeHash: string): Promise<CodeRow | null>;
  /** Atomic: of any number of concurrent calls for one code, exactly one gets "ok". */
  consumeCode(codeHash: string, now: UnixSeconds): Promise<ConsumeCodeResult>;
}

// ---------------------------------------------------------------------------------------------
// Access and refresh tokens

export type TokenKind = "access" | "refresh";

export type TokenRow = {
  token_hash: string;
  kind: TokenKind;
  client_id: string;
  /** null for client_credentials. */
  user_id: string | null;
  scope: string;
  grant_id: string;
  /** Refresh rotation family: every rotated refresh token keeps the family of the first. */
  family_id: string | null;
  session_id_hash: string | null;
  auth_time: UnixSeconds | null;
  acr: string | null;
  amr: string[];
  claims: JsonObject | null;
  nonce: string | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
  revoked_at: UnixSeconds | null;
  /** Refresh tokens: set when exchanged for a new one. */
  rotated_at: UnixSeconds | null;
};

export type NewToken = Pick<TokenRow, "token_hash" | "kind" | "client_id" | "scope" | "grant_id" | "expires_at"> &
  Partial<Omit<TokenRow, "token_hash" | "kind" | "client_id" | "scope" | "grant_id" | "expires_at" | "revoked_at" | "rotated_at">>;

/**
 * - ok: this call rotated the token; the caller issues the successor in the same family.
 * - reused: it was already rotated (RFC 9700 §4.14.2: the caller revokes the family).
 */
export type RotateRefreshResult =
  | { status: "ok"; token: TokenRow }
  | { status: "reused"; token: TokenRow }
  | { status: "revoked"; token: TokenRow }
  | { status: "expired"; token: TokenRow }
  | { status: "not_found" };

export interface TokenStore {
  insertToken(token: NewToken): Promise<TokenRow>;
  getToken(tokenHash: string): Promise<TokenRow | null>;
  /** Marks one token revoked; false when unknown or already revoked. */
  revokeToken(tokenHash: string, now?: UnixSeconds): Promise<boolean>;
  /** The revoke* methods return how many tokens they newly revoked. */
  revokeByGrant(grantId: string, now?: UnixSeconds): Promise<number>;
  revokeFamily(familyId: string, now?: UnixSeconds): Promise<number>;
  revokeForUserClient(userId: string, clientId: string, now?: UnixSeconds): Promise<number>;
  /**
   * `keepOfflineRefresh`: refresh tokens whose scope has offline_access stay valid, as they are
   * meant to outlive the browser session (OIDC Core §11) — logout uses it.
   */
  revokeBySession(sessionIdHash: string, now?: UnixSeconds, options?: { keepOfflineRefresh?: boolean }): Promise<number>;
  /** Atomic: of any number of concurrent calls for one refresh token, exactly one gets "ok". */
  rotateRefreshToken(tokenHash: string, now: UnixSeconds): Promise<RotateRefreshResult>;
}

// ---------------------------------------------------------------------------------------------
// Signing keys

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
  insertKey(key: NewKey): Promise<KeyRow>;
  /** Ordered by created_at, then kid. */
  listKeys(): Promise<KeyRow[]>;
  updateKeyStatus(
    kid: string,
    status: KeyStatus,
    times?: { activated_at?: UnixSeconds | null; retire_at?: UnixSeconds | null; now?: UnixSeconds },
  ): Promise<KeyRow | null>;
  deleteKey(kid: string): Promise<boolean>;
  /** A number that changes on every key insert/update/delete: poll it to notice rotation. */
  keysVersion(): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Registration initial access tokens (RFC 7591 §3)

export type InitialAccessTokenRow = {
  token_hash: string;
  created_at: UnixSeconds;
  /** null: never expires. */
  expires_at: UnixSeconds | null;
};

export interface InitialAccessTokenStore {
  createInitialAccessToken(token: { token_hash: string; expires_at: UnixSeconds | null; created_at?: UnixSeconds }): Promise<InitialAccessTokenRow>;
  findInitialAccessToken(tokenHash: string): Promise<InitialAccessTokenRow | null>;
  deleteInitialAccessToken(tokenHash: string): Promise<boolean>;
  listInitialAccessTokens(): Promise<InitialAccessTokenRow[]>;
}

// ---------------------------------------------------------------------------------------------
// Replay protection and rate limits

export type CounterState = { count: number; reset_at: UnixSeconds };

export interface ReplayStore {
  /**
   * Records a client assertion's jti (RFC 7523 §3). True the first time, false while a previous
   * use has not expired. Atomic across instances.
   */
  useJti(clientId: string, jti: string, expiresAt: UnixSeconds, now?: UnixSeconds): Promise<boolean>;
}

export interface CounterStore {
  /** Fixed window: counts a hit on `key`, starting a new window when the last one ended. Atomic. */
  hit(key: string, windowSeconds: number, now: UnixSeconds): Promise<CounterState>;
  getCounter(key: string): Promise<CounterState | null>;
  resetCounter(key: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Audit events

export type AuditEvent = {
  id: number;
  at: UnixSeconds;
  type: string;
  user_id: string | null;
  client_id: string | null;
  ip: string | null;
  outcome: string;
  /** Never secrets, passwords, codes or tokens. */
  details: JsonObject | null;
};

export type NewAuditEvent = Pick<AuditEvent, "type" | "outcome"> & Partial<Omit<AuditEvent, "id" | "type" | "outcome">>;

export type AuditQuery = { userId?: string; clientId?: string; type?: string; since?: UnixSeconds; limit?: number };

export interface AuditStore {
  addAuditEvent(event: NewAuditEvent): Promise<AuditEvent>;
  /** Newest first; `limit` defaults to 100. */
  listAuditEvents(query?: AuditQuery): Promise<AuditEvent[]>;
  /** Deletes events older than `before`; returns how many. */
  purgeAuditEvents(before: UnixSeconds, batchSize?: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

export type PurgeCounts = {
  codes: number;
  tokens: number;
  sessions: number;
  interactions: number;
  jtis: number;
  counters: number;
  initial_access_tokens: number;
};

export type MigrationResult = {
  /** Versions this call applied (empty when already up to date). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
};

export interface LifecycleStore {
  readonly kind: "sqlite" | "postgres";
  /** Applies pending migrations; safe to call any number of times, from several instances. */
  migrate(): Promise<MigrationResult>;
  /** Deletes expired rows in batches of `batchSize` (default 1000) so locks stay short. */
  purgeExpired(now: UnixSeconds, batchSize?: number): Promise<PurgeCounts>;
  /** Readiness: resolves when the database answers, raises StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The whole storage interface. */
export interface Store
  extends UserStore,
    ClientStore,
    SessionStore,
    InteractionStore,
    GrantStore,
    CodeStore,
    TokenStore,
    KeyStore,
    InitialAccessTokenStore,
    ReplayStore,
    CounterStore,
    AuditStore,
    LifecycleStore {}

export type OpenStoreOptions = {
  /** Apply pending migrations at open (default true). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  max?: number;
  /** PostgreSQL: seconds to wait for a connection before StoreUnavailableError (default 5). */
  connectionTimeout?: number;
  /** PostgreSQL: seconds an idle pooled connection is kept (default 30). */
  idleTimeout?: number;
  /** SQLite: milliseconds to wait on a locked database (default 5000). */
  busyTimeout?: number;
};
