/**
 * Initial access tokens for dynamic client registration (RFC 7591 §3, asked for by POST
 * /register when IDP_REGISTRATION=token: registration/access.ts): the rules
 * `idp registration-token` (src/cli/registration.ts) and the console apply. A token is 256
 * random bits, handed out once; only its SHA-256 is stored (docs/ARCHITECTURE.md, "Security at
 * rest"). It expires (24 hours unless made otherwise; 0: never) and may be limited to a number
 * of registrations. It is listed by its id, never by the token or its hash.
 */
import type { InitialAccessTokenRow, Store } from "../../store/types.ts";
import { random_token, sha256 } from "../crypto/secrets.ts";
import { invalid_field, not_found } from "./errors.ts";

/** A token is meant for the next few registrations, not for a standing credential. */
export const DEFAULT_EXPIRES_IN = 24 * 3600;
/** The longest lifetime but never (0): ten years. */
export const MAX_EXPIRES_IN = 10 * 365 * 24 * 3600;
export const MAX_USES = 1_000_000;

/** Seconds until it expires (0: never), and how many registrations it may make (null: no limit). */
export type RegistrationTokenInput = { expires_in: number; uses: number | null };

export type RegistrationTokenStatus = "active" | "expired" | "used up";

/** What may be shown of a token: never the token or its hash. */
export type RegistrationTokenView = { id: string; created_at: number; expires_at: number | null; uses_left: number | null; status: RegistrationTokenStatus };

export function registration_token_view(row: InitialAccessTokenRow, now: number): RegistrationTokenView {
  // The refusals of registration/access.ts, in the same order.
  const status = row.expires_at !== null && row.expires_at <= now ? "expired" : row.uses_left === 0 ? "used up" : "active";
  return { id: row.id, created_at: row.created_at, expires_at: row.expires_at, uses_left: row.uses_left, status };
}

/** Makes a token: the token itself (to be shown once) and its stored row. */
export async function create_registration_token(store: Store, input: RegistrationTokenInput, now: number): Promise<{ token: string; row: InitialAccessTokenRow }> {
  const { expires_in, uses } = input;
  if (!Number.isInteger(expires_in) || expires_in < 0 || expires_in > MAX_EXPIRES_IN) {
    throw invalid_field("expires_in", `must be a whole number of seconds from 0 (never) to ${MAX_EXPIRES_IN}`);
  }
  if (uses !== null && (!Number.isInteger(uses) || uses < 1 || uses > MAX_USES)) throw invalid_field("uses", `must be a whole number from 1 to ${MAX_USES}, or no limit`);
  const token = random_token(32);
  const row = await store.create_initial_access_token({ token_hash: sha256(token), created_at: now, expires_at: expires_in === 0 ? null : now + expires_in, uses_left: uses });
  return { token, row };
}

/** The token with that id; not_found when there is none (any more). */
export async function registration_token_of(store: Store, id: string): Promise<InitialAccessTokenRow> {
  const row = (await store.list_initial_access_tokens()).find((candidate) => candidate.id === id);
  if (row === undefined) throw not_found("registration token with id", id);
  return row;
}

/** Deletes the token with that id: POST /register no longer accepts it. Returns what it was. */
export async function revoke_registration_token(store: Store, id: string): Promise<InitialAccessTokenRow> {
  const row = await registration_token_of(store, id);
  if (!(await store.delete_initial_access_token(row.token_hash))) throw not_found("registration token with id", id);
  return row;
}
