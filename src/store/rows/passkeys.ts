/**
 * Rows of `passkeys` and `webauthn_challenges`: the column specs (codec.ts encodes and decodes
 * by them) and the builders that complete new rows, shared by both adapters so they store
 * exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { NewPasskey, PasskeyRow, UnixSeconds, WebauthnChallengeRow } from "../types.ts";

/** The columns of `passkeys`. */
export const passkey_spec: TableSpec<PasskeyRow> = {
  id: "text",
  credential_id: "text",
  user_id: "text",
  public_key: "text",
  counter: "int",
  transports: "json",
  backup_eligible: "bool",
  backup_state: "bool",
  aaguid: "text",
  name: "text",
  created_at: "int",
  last_used_at: "int",
};

/** The columns of `webauthn_challenges`. */
export const webauthn_challenge_spec: TableSpec<WebauthnChallengeRow> = {
  challenge_hash: "text",
  purpose: "text",
  binding_hash: "text",
  user_id: "text",
  created_at: "int",
  expires_at: "int",
};

/** The complete row of a new passkey: a random id, never used yet unless given. */
export function passkey_row(input: NewPasskey): PasskeyRow {
  return {
    id: input.id ?? crypto.randomUUID(),
    credential_id: input.credential_id,
    user_id: input.user_id,
    public_key: input.public_key,
    counter: input.counter,
    transports: [...input.transports],
    backup_eligible: input.backup_eligible,
    backup_state: input.backup_state,
    aaguid: input.aaguid ?? null,
    name: input.name,
    created_at: input.created_at ?? now_seconds(),
    last_used_at: input.last_used_at ?? null,
  };
}

/** The complete row of a new challenge, with `created_at` filled in. */
export function webauthn_challenge_row(input: Omit<WebauthnChallengeRow, "created_at"> & { created_at?: UnixSeconds }): WebauthnChallengeRow {
  return { ...input, user_id: input.user_id ?? null, created_at: input.created_at ?? now_seconds() };
}
