/**
 * Rows of `audit_events`: the column spec (codec.ts encodes and decodes by it) and the builder
 * that completes a new event, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { AuditEvent, NewAuditEvent } from "../types.ts";

/** The columns of `audit_events`. */
export const audit_spec: TableSpec<AuditEvent> = {
  id: "int",
  at: "int",
  type: "text",
  user_id: "text",
  client_id: "text",
  ip: "text",
  outcome: "text",
  details: "json",
};

/** The complete row of a new event but its id, which the database assigns. */
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
