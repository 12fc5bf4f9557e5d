/**
 * Reading the audit log for `idp audit list` (src/cli/audit.ts) and the admin API: events with
 * the current username and client name of their ids (null once deleted).
 */
import type { AuditEvent, Store } from "../../store/types.ts";

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
