/** Column specs and row defaults of the passkey tables, shared by both adapters (codec.ts does the rest). */
import type { TableSpec } from "./codec.ts";
import { now_seconds } from "./defaults.ts";
import type { NewPasskey, PasskeyRow, UnixSeconds, WebauthnChallengeRow } from "./types.ts";

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

export const webauthn_challenge_spec: TableSpec<WebauthnChallengeRow> = {
  challenge_hash: "text",
  purpose: "text",
  binding_hash: "text",
  user_id: "text",
  created_at: "int",
  expires_at: "int",
};

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

export function webauthn_challenge_row(input: Omit<WebauthnChallengeRow, "created_at"> & { created_at?: UnixSeconds }): WebauthnChallengeRow {
  return { ...input, user_id: input.user_id ?? null, created_at: input.created_at ?? now_seconds() };
}
