/**
 * Errors of the admin rules (users, clients, keys, audit for the admin API and the console):
 * the problem and the words, nothing of HTTP. src/http/middleware/admin_api.ts maps them once to
 * RFC 9457 problem documents; the CLI turns them into its own errors.
 */
import { ProtocolError } from "../errors.ts";

/**
 * - invalid_request: the input breaks a rule (`errors` names each field);
 * - not_found: no such user, client, group, session…;
 * - conflict: the state does not allow it (a taken username, nothing to reset, no secret to
 *   rotate, mail off);
 * - forbidden: not through this door (lasting_power.ts: an admin token may not mint lasting
 *   admin power);
 * - precondition_required / precondition_failed: an update without If-Match, or with a stale
 *   one (RFC 6585 §3, RFC 9110 §13.1.1).
 */
export type AdminErrorCode = "invalid_request" | "not_found" | "conflict" | "forbidden" | "precondition_required" | "precondition_failed";

export type FieldProblem = { field: string; message: string };

export class AdminError extends ProtocolError {
  constructor(
    readonly error: AdminErrorCode,
    message: string,
    readonly errors: readonly FieldProblem[] = [],
  ) {
    super(message);
    this.name = "AdminError";
  }
}

/** invalid_request naming one field: `field: message`. */
export function invalid_field(field: string, message: string): AdminError {
  return new AdminError("invalid_request", `${field}: ${message}`, [{ field, message }]);
}

export function not_found(what: string, id: string): AdminError {
  return new AdminError("not_found", `no ${what} "${id}"`);
}
