/**
 * The audit log of the admin console (views/admin/audit.eta) and its exports: the filters the
 * page and the exports share (type, user, client, since/until, or a period: the last hour, 24 h
 * or 7 days), the rows with who did it and readable names (catalog keys, oidc/admin/audit.ts),
 * and the CSV (RFC 4180) and JSON of the filtered events. An export holds what the page shows:
 * the events' ids, names, addresses and details, which never hold a secret (oidc/audit.ts).
 */
import { z } from "zod";
import { AUDIT_AREAS, audit_actor, audit_area, type AuditActor, type AuditFilters, type NamedAuditEvent } from "../../oidc/admin/audit.ts";
import type { JsonObject } from "../../store/types.ts";
import { AUDIT_EVENT_TYPES } from "../../store/types.ts";
import { instant } from "../endpoints/admin/audit/list.ts";
import type { Message } from "./admin_confirm.ts";

const blank_to_undefined = (value: unknown) => (value === "" ? undefined : value);

/** The periods a link on the page sets (`period=`), in seconds back from now. */
export const AUDIT_PERIODS = { "1h": 3600, "24h": 86_400, "7d": 7 * 86_400 } as const;
export type AuditPeriod = keyof typeof AUDIT_PERIODS;

/** The query of the page and of its exports. */
export const audit_query = z.object({
  type: z.preprocess(blank_to_undefined, z.enum(AUDIT_EVENT_TYPES).optional()),
  user: z.preprocess(blank_to_undefined, z.string().trim().max(256).optional()),
  client: z.preprocess(blank_to_undefined, z.string().trim().max(256).optional()),
  since: z.preprocess(blank_to_undefined, instant.optional()),
  until: z.preprocess(blank_to_undefined, instant.optional()),
  period: z.preprocess(blank_to_undefined, z.enum(Object.keys(AUDIT_PERIODS) as [AuditPeriod, ...AuditPeriod[]]).optional()),
});

export type AuditQuery = z.infer<typeof audit_query>;

/** The store's filters of a query: a period replaces `since` (and ends now). */
export function audit_filters(query: AuditQuery, now: number): AuditFilters {
  const since = query.period === undefined ? query.since : now - AUDIT_PERIODS[query.period];
  return { type: query.type, user: query.user, client: query.client, since, until: query.period === undefined ? query.until : undefined };
}

/** The query's fields as typed (the page's form, the links that keep the filters). */
export function audit_form(query: AuditQuery, raw: Record<string, unknown>): Record<"type" | "user" | "client" | "since" | "until" | "period", string> {
  const text = (name: string) => (typeof raw[name] === "string" ? (raw[name] as string) : "");
  return { type: query.type ?? "", user: query.user ?? "", client: query.client ?? "", since: text("since"), until: text("until"), period: query.period ?? "" };
}

/** `?name=value…` of the non-empty fields (with `extra`), "" when none. */
export function audit_search(fields: Record<string, string>, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams({ ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== "")), ...extra }).toString();
  return search === "" ? "" : `?${search}`;
}

/** The filter's options: the event types as readable names, grouped by area. */
export function audit_type_groups(): { label: string; types: { value: string; label: string }[] }[] {
  return Object.entries(AUDIT_AREAS).map(([area, types]) => ({
    label: `admin.audit.area.${area}`,
    types: types.map((type) => ({ value: type, label: `admin.audit.type.${type}` })),
  }));
}

export function actor_message(actor: AuditActor): Message {
  if (actor.kind === "cli") return { key: "admin.audit.actor.cli" };
  if (actor.kind === "none") return { key: "admin.audit.actor.none" };
  return { key: `admin.audit.actor.${actor.kind}`, values: { name: actor.name } };
}

/** An event type's readable name; a type this release does not know stays as it is. */
export function type_message(type: string): Message {
  return audit_area(type) === null ? { key: "admin.audit.type.unknown", values: { type } } : { key: `admin.audit.type.${type}` };
}

/** The details as `name: value` pairs (each kept on one line by the page), not one long JSON text. */
export function details_pairs(details: JsonObject | null): string[] {
  if (details === null) return [];
  return Object.entries(details).map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
}

export function iso(at: number): string {
  return new Date(at * 1000).toISOString().replace(/\.000Z$/, "Z");
}

/** One event of an export: machine-readable, English names, the actor as kind and name. */
export function export_record(event: NamedAuditEvent) {
  const actor = audit_actor(event);
  return {
    id: event.id,
    at: iso(event.at),
    type: event.type,
    area: audit_area(event.type),
    outcome: event.outcome,
    actor_kind: actor.kind,
    actor: actor.name,
    user_id: event.user_id,
    username: event.username,
    client_id: event.client_id,
    client_name: event.client_name,
    ip: event.ip,
    details: event.details,
  };
}

export const CSV_COLUMNS = ["id", "at", "type", "area", "outcome", "actor_kind", "actor", "user_id", "username", "client_id", "client_name", "ip", "details"] as const;

/**
 * One CSV field (RFC 4180 §2): quoted when it holds a quote, comma or line break, quotes doubled.
 * A text a spreadsheet would take for a formula (= + - @, a tab or CR first) gets a leading `'`
 * (OWASP CSV injection): a username is chosen by its user.
 */
export function csv_field(value: unknown): string {
  let text = value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The events as CSV: a header row, then one row per event, CRLF line ends (RFC 4180). */
export function audit_csv(events: readonly NamedAuditEvent[]): string {
  const rows = events.map((event) => {
    const record = export_record(event);
    return CSV_COLUMNS.map((column) => csv_field(record[column])).join(",");
  });
  return [CSV_COLUMNS.join(","), ...rows].map((row) => `${row}\r\n`).join("");
}

/** The file name of an export: `audit-<date and time, UTC>.<ext>`. */
export function export_filename(now: number, extension: "csv" | "json"): string {
  return `audit-${iso(now).replace(/[-:]/g, "").replace("T", "-").replace("Z", "")}.${extension}`;
}
