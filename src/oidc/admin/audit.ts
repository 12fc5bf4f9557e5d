/**
 * Reading the audit log for `idp audit list` (src/cli/audit.ts), the admin API and the admin
 * console: events with the current username and client name of their ids (null once deleted).
 */
import type { AuditEvent, Store } from "../../store/types.ts";
import { decode_cursor, page_of } from "./cursor.ts";

export type NamedAuditEvent = AuditEvent & { username: string | null; client_name: string | null };

export async function named_events(store: Store, events: readonly AuditEvent[]): Promise<NamedAuditEvent[]> {
  const user_ids = [...new Set(events.map((e) => e.user_id).filter((id): id is string => id !== null))];
  const client_ids = [...new Set(events.map((e) => e.client_id).filter((id): id is string => id !== null))];
  const [users, clients] = await Promise.all([
    Promise.all(user_ids.map(async (id) => [id, (await store.get_user_by_id(id))?.username ?? null] as const)),
    Promise.all(client_ids.map(async (id) => [id, (await store.get_client(id))?.metadata.client_name ?? null] as const)),
  ]);
  const usernames = new Map(users);
  const client_names = new Map(clients);
  return events.map((e) => ({
    ...e,
    username: e.user_id === null ? null : (usernames.get(e.user_id) ?? null),
    client_name: e.client_id === null ? null : (client_names.get(e.client_id) ?? null),
  }));
}

/** The filters of the audit log's list (admin API and console); `user` is an id or a username. */
export type AuditFilters = { type?: string | undefined; user?: string | undefined; client?: string | undefined; since?: number | undefined; until?: number | undefined };

type Position = [number, number];
const is_position = (v: unknown): v is Position => Array.isArray(v) && v.length === 2 && v.every((n) => Number.isSafeInteger(n));

/** One page of the audit log, newest first, after `cursor` (the last event's time and id). */
export async function audit_page(
  store: Store,
  filters: AuditFilters,
  limit: number,
  cursor: string | undefined,
): Promise<{ items: NamedAuditEvent[]; next_cursor: string | null }> {
  const { type, user, client, since, until } = filters;
  const before = cursor === undefined ? undefined : decode_cursor(cursor, is_position);
  // Events of a deleted user are still found by their id.
  const user_id = user === undefined ? undefined : ((await store.get_user_by_username(user))?.id ?? user);
  const events = await store.list_audit_events({
    ...(user_id !== undefined && { user_id }),
    ...(client !== undefined && { client_id: client }),
    ...(type !== undefined && { type }),
    ...(since !== undefined && { since }),
    ...(until !== undefined && { until }),
    ...(before !== undefined && { before: { at: before[0], id: before[1] } }),
    limit: limit + 1,
  });
  const page = page_of(events, limit, (last) => [last.at, last.id]);
  return { items: await named_events(store, page.items), next_cursor: page.next_cursor };
}
