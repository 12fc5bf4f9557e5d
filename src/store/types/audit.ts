/** Store types: Audit events. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds, JsonObject } from "./common.ts";

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

export type AuditQuery = { user_id?: string; client_id?: string; type?: string; since?: UnixSeconds; limit?: number };

export interface AuditStore {
  add_audit_event(event: NewAuditEvent): Promise<AuditEvent>;
  /** Newest first; `limit` defaults to 100. */
  list_audit_events(query?: AuditQuery): Promise<AuditEvent[]>;
  /** Deletes events older than `before`; returns how many. */
  purge_audit_events(before: UnixSeconds, batch_size?: number): Promise<number>;
}
