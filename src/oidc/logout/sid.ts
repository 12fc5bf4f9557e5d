/**
 * The session id (`sid`) the provider gives relying parties: in ID Tokens (OIDC Back-Channel
 * Logout §2.1, with backchannel_logout_session_supported) and in logout tokens (§2.4), so an RP
 * can tell which of its sessions a logout is about.
 *
 * It is derived from the session row's id_hash (itself the SHA-256 of the cookie value), so it
 * is stable for the life of the session, needs no storage, and gives away neither the cookie
 * nor the database key.
 */
import { sha256 } from "../crypto/secrets.ts";

export function session_sid(session_id_hash: string): string {
  return sha256(`oidc-sid:${session_id_hash}`);
}
