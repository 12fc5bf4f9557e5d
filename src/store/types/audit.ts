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

export type AuditQuery = { userId?: string; clientId?: string; type?: string; since?: UnixSeconds; limit?: number };

export interface AuditStore {
  addAuditEvent(event: NewAuditEvent): Promise<AuditEvent>;
  /** Newest first; `limit` defaults to 100. */
  listAuditEvents(query?: AuditQuery): Promise<AuditEvent[]>;
  /** Deletes events older than `before`; returns how many. */
  purgeAuditEvents(before: UnixSeconds, batchSize?: number): Promise<number>;
}
