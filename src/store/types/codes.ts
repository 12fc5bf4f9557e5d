/** Store types: Authorization codes. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds, JsonObject } from "./common.ts";

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
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is bound to; null when unbound. */
  dpop_jkt: string | null;
  /** RFC 8707 §2.1: the resources the authorization was granted for; null when none was asked. */
  resources: string[] | null;
};

export type NewCode = Omit<
  CodeRow,
  "created_at" | "consumed_at" | "session_id_hash" | "nonce" | "code_challenge" | "code_challenge_method" | "acr" | "amr" | "claims" | "dpop_jkt" | "resources"
> &
  Partial<Pick<CodeRow, "created_at" | "session_id_hash" | "nonce" | "code_challenge" | "code_challenge_method" | "acr" | "amr" | "claims" | "dpop_jkt" | "resources">>;

/**
 * - ok: this call consumed the code.
 * - reused: it was consumed before (OAuth 2.0 Security BCP: revoke tokens with its grant_id).
 * - expired: past expires_at (it is now consumed too).
 */
export type ConsumeCodeResult = { status: "ok"; code: CodeRow } | { status: "reused"; code: CodeRow } | { status: "expired"; code: CodeRow } | { status: "not_found" };

export interface CodeStore {
  insert_code(code: NewCode): Promise<CodeRow>;
  get_code(code_hash: string): Promise<CodeRow | null>;
  /** Atomic: of any number of concurrent calls for one code, exactly one gets "ok". */
  consume_code(code_hash: string, now: UnixSeconds): Promise<ConsumeCodeResult>;
}
