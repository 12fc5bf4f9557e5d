/**
 * Complete rows from the `New*` inputs of the interface, shared by both adapters so they store
 * exactly the same defaults.
 */
import type {
  AuditEvent,
  ClientRow,
  CodeRow,
  ConsumeCodeResult,
  GrantRow,
  InitialAccessTokenRow,
  InteractionRow,
  KeyRow,
  KeyStatus,
  MailRow,
  NewMail,
  NewAuditEvent,
  NewClient,
  NewCode,
  NewInitialAccessToken,
  NewInteraction,
  NewKey,
  NewSession,
  NewToken,
  NewUser,
  NewResourceServer,
  ResourceServerRow,
  RotateRefreshResult,
  SessionRow,
  TokenRow,
  UnixSeconds,
  UserRow,
  UserStatus,
  UserTokenRow,
} from "./types.ts";
import { USER_STATUSES } from "./types/users.ts";
import { USER_TOKEN_PURPOSES } from "./types/user_tokens.ts";
import { StoreError } from "./types/errors.ts";
import { uuid_v7 } from "../platform/crypto.ts";
import { stored_username, username_form_problem } from "./usernames.ts";

export function now_seconds(): UnixSeconds {
  return Math.floor(Date.now() / 1000);
}

/** Usernames are unique and looked up through this key (NFKC and case fold: usernames.ts). */
export { username_key } from "./usernames.ts";

export function user_row(input: NewUser): UserRow {
  // One spelling per account (usernames.ts): a name that normalisation would change is refused
  // here, whatever path creates it, so the stored name is the one that signs in.
  if (stored_username(input.username) !== input.username) {
    throw new StoreError(username_form_problem(input.username) ?? `username "${input.username}" is not in Unicode NFC: store "${input.username.normalize("NFC")}"`);
  }
  const now = now_seconds();
  return {
    id: input.id ?? crypto.randomUUID(),
    username: input.username,
    password_hash: input.password_hash,
    name: input.name ?? null,
    given_name: input.given_name ?? null,
    family_name: input.family_name ?? null,
    picture: input.picture ?? null,
    email: input.email ?? null,
    email_verified: input.email_verified ?? false,
    phone_number: input.phone_number ?? null,
    phone_number_verified: input.phone_number_verified ?? false,
    address: input.address ?? null,
    totp_secret: input.totp_secret ?? null,
    totp_enabled_at: input.totp_enabled_at ?? null,
    status: checked_status(input.status ?? "active"),
    locale: input.locale ?? null,
    created_at: input.created_at ?? now,
    updated_at: input.updated_at ?? input.created_at ?? now,
  };
}

/** A status the schema does not know is refused before it reaches the row (the column has no CHECK). */
export function checked_status<S extends UserStatus | undefined>(status: S): S {
  if (status !== undefined && !USER_STATUSES.includes(status)) {
    throw new StoreError(`user status "${status}" is not one of ${USER_STATUSES.join(", ")}`);
  }
  return status;
}

/** A user token row with `created_at` filled in; an unknown purpose is refused. */
export function user_token_row(input: Omit<UserTokenRow, "created_at"> & { created_at?: UnixSeconds }): UserTokenRow {
  if (!USER_TOKEN_PURPOSES.includes(input.purpose)) {
    throw new StoreError(`user token purpose "${input.purpose}" is not one of ${USER_TOKEN_PURPOSES.join(", ")}`);
  }
  return {
    token_hash: input.token_hash,
    user_id: input.user_id,
    purpose: input.purpose,
    email: input.email ?? null,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
  };
}

export function client_row(input: NewClient): ClientRow {
  const now = now_seconds();
  const created = input.created_at ?? now;
  return {
    client_id: input.client_id,
    client_secret_hash: input.client_secret_hash ?? null,
    client_secret_expires_at: input.client_secret_expires_at ?? 0,
    client_id_issued_at: input.client_id_issued_at ?? created,
    registration_access_token_hash: input.registration_access_token_hash ?? null,
    metadata: input.metadata,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
}

export function session_row(input: NewSession): SessionRow {
  const created = input.created_at ?? now_seconds();
  return {
    id_hash: input.id_hash,
    user_id: input.user_id,
    auth_time: input.auth_time,
    amr: input.amr,
    acr: input.acr ?? null,
    created_at: created,
    expires_at: input.expires_at,
    last_seen_at: input.last_seen_at ?? created,
    user_agent: input.user_agent ?? null,
    ip: input.ip ?? null,
  };
}

export function interaction_row(input: NewInteraction): InteractionRow {
  return {
    id: input.id,
    params: input.params,
    session_id_hash: input.session_id_hash ?? null,
    result: input.result ?? null,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
  };
}

/** Set union keeping the existing order first (grants only ever gain scopes by upsert). */
export function merge_scopes(existing: readonly string[], added: readonly string[]): string[] {
  return [...new Set([...existing, ...added])];
}

export function grant_row(existing: GrantRow | null, input: { user_id: string; client_id: string; scopes: string[]; claims?: GrantRow["claims"]; now?: UnixSeconds }): GrantRow {
  const now = input.now ?? now_seconds();
  return {
    user_id: input.user_id,
    client_id: input.client_id,
    scopes: merge_scopes(existing?.scopes ?? [], input.scopes),
    claims: input.claims !== undefined ? input.claims : (existing?.claims ?? null),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
}

export function code_row(input: NewCode): CodeRow {
  return {
    code_hash: input.code_hash,
    client_id: input.client_id,
    user_id: input.user_id,
    session_id_hash: input.session_id_hash ?? null,
    redirect_uri: input.redirect_uri,
    scope: input.scope,
    nonce: input.nonce ?? null,
    code_challenge: input.code_challenge ?? null,
    code_challenge_method: input.code_challenge_method ?? null,
    auth_time: input.auth_time,
    acr: input.acr ?? null,
    amr: input.amr ?? [],
    claims: input.claims ?? null,
    grant_id: input.grant_id,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
    consumed_at: null,
    dpop_jkt: input.dpop_jkt ?? null,
    resources: input.resources ?? null,
  };
}

export function token_row(input: NewToken): TokenRow {
  return {
    token_hash: input.token_hash,
    kind: input.kind,
    client_id: input.client_id,
    user_id: input.user_id ?? null,
    scope: input.scope,
    grant_id: input.grant_id,
    family_id: input.family_id ?? null,
    session_id_hash: input.session_id_hash ?? null,
    auth_time: input.auth_time ?? null,
    acr: input.acr ?? null,
    amr: input.amr ?? [],
    claims: input.claims ?? null,
    nonce: input.nonce ?? null,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
    revoked_at: null,
    rotated_at: null,
    jkt: input.jkt ?? null,
    resources: input.resources ?? null,
    act: input.act ?? null,
  };
}

export function resource_server_row(input: NewResourceServer): ResourceServerRow {
  const created = input.created_at ?? now_seconds();
  return {
    uri: input.uri,
    scopes: input.scopes,
    access_token_format: input.access_token_format ?? "opaque",
    access_token_ttl: input.access_token_ttl ?? null,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
}

export function key_row(input: NewKey): KeyRow {
  const created = input.created_at ?? now_seconds();
  return {
    kid: input.kid,
    alg: input.alg,
    use: input.use ?? "sig",
    private_jwk: input.private_jwk,
    public_jwk: input.public_jwk,
    status: input.status,
    created_at: created,
    activated_at: input.activated_at ?? (input.status === "active" ? created : null),
    retire_at: input.retire_at ?? null,
    updated_at: created,
  };
}

export function audit_row(input: NewAuditEvent): Omit<AuditEvent, "id"> {
  return {
    at: input.at ?? now_seconds(),
    type: input.type,
    user_id: input.user_id ?? null,
    client_id: input.client_id ?? null,
    ip: input.ip ?? null,
    outcome: input.outcome,
    details: input.details ?? null,
  };
}

/** LIKE pattern (ESCAPE '!') matching " <scope> " that holds offline_access (OIDC Core §11). */
export const OFFLINE_SCOPE_PATTERN = "% offline!_access %";

export const DEFAULT_PURGE_BATCH = 1000;
export const DEFAULT_AUDIT_LIMIT = 100;

/** The answer of consume_code, from the row the atomic UPDATE returned or else the stored row. */
export function code_outcome(consumed: CodeRow | null, stored: CodeRow | null, now: UnixSeconds): ConsumeCodeResult {
  if (consumed) return consumed.expires_at <= now ? { status: "expired", code: consumed } : { status: "ok", code: consumed };
  return stored ? { status: "reused", code: stored } : { status: "not_found" };
}

/** The answer of rotate_refresh_token, from the row the atomic UPDATE returned or else the stored row. */
export function refresh_outcome(rotated: TokenRow | null, stored: TokenRow | null): RotateRefreshResult {
  if (rotated) return { status: "ok", token: rotated };
  if (!stored || stored.kind !== "refresh") return { status: "not_found" };
  if (stored.rotated_at !== null) return { status: "reused", token: stored };
  if (stored.revoked_at !== null) return { status: "revoked", token: stored };
  return { status: "expired", token: stored };
}

/**
 * The key row after a status change: activation time is stamped when a key first becomes active,
 * unless the caller gives the times explicitly.
 */
export function key_status_change(
  current: KeyRow,
  status: KeyStatus,
  times: { activated_at?: UnixSeconds | null; retire_at?: UnixSeconds | null; now?: UnixSeconds } = {},
): KeyRow {
  const now = times.now ?? now_seconds();
  const activated_at = times.activated_at !== undefined ? times.activated_at : status === "active" && current.activated_at === null ? now : current.activated_at;
  return {
    ...current,
    status,
    activated_at: activated_at,
    retire_at: times.retire_at !== undefined ? times.retire_at : current.retire_at,
    updated_at: now,
  };
}

/** An initial access token row: a random id (its public handle), no use limit unless given. */
export function initial_access_token_row(input: NewInitialAccessToken): InitialAccessTokenRow {
  return {
    id: input.id ?? crypto.randomUUID(),
    token_hash: input.token_hash,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
    uses_left: input.uses_left ?? null,
  };
}

/** Outbox listings without a limit show this many. */
export const DEFAULT_MAIL_LIST_LIMIT = 100;

export function mail_row(input: NewMail): MailRow {
  const created_at = input.created_at ?? now_seconds();
  return {
    // Time-ordered: listings of one second stay newest first.
    id: input.id ?? uuid_v7(),
    recipient: input.recipient,
    template: input.template,
    subject: input.subject,
    text: input.text,
    html: input.html,
    status: input.refused === undefined ? "queued" : "failed",
    attempts: 0,
    next_attempt_at: input.next_attempt_at ?? created_at,
    locked_until: null,
    give_up_at: input.give_up_at,
    last_error: input.refused ?? null,
    created_at,
    sent_at: null,
  };
}
