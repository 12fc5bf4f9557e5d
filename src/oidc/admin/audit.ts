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

/**
 * The areas the console groups the event types by (its filter's option groups, the export's
 * `area`): each type of AUDIT_EVENT_TYPES in exactly one (tests/oidc/admin/audit_view.test.ts).
 * Their readable names are catalog keys: `admin.audit.area.<area>`, `admin.audit.type.<type>`.
 */
export const AUDIT_AREAS = {
  sign_in: ["login", "login_locked", "two_factor", "access_denied", "device_approved", "device_denied", "federation_login", "saml_login", "ldap_bind", "protected_app_access"],
  account: [
    "signup",
    "invitation_sent",
    "invitation_accepted",
    "password_change",
    "password_reset_requested",
    "password_reset",
    "password_rehashed",
    "account_reclaimed",
    "email_verification_sent",
    "email_verified",
    "email_change_requested",
    "email_change",
    "two_factor_enrolled",
    "two_factor_removed",
    "passkey_added",
    "passkey_renamed",
    "passkey_removed",
    "recovery_codes_replaced",
    "profile_updated",
    "account_deleted",
  ],
  sessions: ["logout", "saml_logout", "consent_granted", "consent_revoked", "tokens_revoked", "token_exchange"],
  threats: ["code_reuse", "refresh_token_reuse", "device_code_reuse", "device_code_throttled", "dpop_key_mismatch", "passkey_counter_regressed", "outbound_refused"],
  applications: [
    "client_registered",
    "client_updated",
    "client_deleted",
    "client_secret_rotated",
    "registration_token_created",
    "registration_token_revoked",
    "resource_created",
    "resource_deleted",
    "saml_sp_created",
    "saml_sp_updated",
    "saml_sp_deleted",
    "ldap_service_account_created",
    "ldap_service_account_rotated",
    "ldap_service_account_removed",
    "protected_app_created",
    "protected_app_updated",
    "protected_app_deleted",
  ],
  administration: [
    "admin_console",
    "data_exported",
    "data_imported",
    "admin_api",
    "scim",
    "user_created",
    "user_deleted",
    "user_password_changed",
    "users_imported",
    "user_disabled",
    "user_enabled",
    "user_updated",
    "attribute_created",
    "attribute_updated",
    "attribute_removed",
    "admin_granted",
    "group_created",
    "group_deleted",
    "group_member_added",
    "group_member_removed",
    "keys_rotated",
    "key_revoked",
    "webhook_created",
    "webhook_deleted",
    "scim_token_created",
    "scim_token_revoked",
  ],
  federation: [
    "upstream_created",
    "upstream_updated",
    "upstream_enabled",
    "upstream_disabled",
    "upstream_deleted",
    "federation_link",
    "federation_unlink",
    "federation_account_created",
  ],
} as const satisfies Record<string, readonly string[]>;

export type AuditArea = keyof typeof AUDIT_AREAS;

/** The area of an event type; null for a type the list does not know (an older or newer release's). */
export function audit_area(type: string): AuditArea | null {
  for (const [area, types] of Object.entries(AUDIT_AREAS)) if ((types as readonly string[]).includes(type)) return area as AuditArea;
  return null;
}

/**
 * Who did it: the administrator in the console (`details.actor_username`, as recorded then), the
 * admin API's client (by its current name, else its id), the command line (`details.via: "cli"`),
 * or the user the event is about (a sign-in, a change on their account page). `none` when the
 * event names nobody (a sign-in with an unknown username, the purge of unused clients).
 */
export type AuditActor =
  | { kind: "admin"; name: string }
  | { kind: "api_client"; name: string }
  | { kind: "cli"; name: null }
  | { kind: "user"; name: string }
  | { kind: "none"; name: null };

export function audit_actor(event: NamedAuditEvent): AuditActor {
  const details = event.details ?? {};
  if (details.via === "cli") return { kind: "cli", name: null };
  if (event.type === "admin_console") {
    const name = typeof details.actor_username === "string" ? details.actor_username : typeof details.actor === "string" ? details.actor : null;
    if (name !== null) return { kind: "admin", name };
  }
  if ((event.type === "admin_api" || event.type === "scim") && event.client_id !== null) return { kind: "api_client", name: event.client_name ?? event.client_id };
  if (event.user_id !== null) return { kind: "user", name: event.username ?? event.user_id };
  return { kind: "none", name: null };
}

/** How many events one export holds at most (newest first); the rest needs a narrower filter. */
export const AUDIT_EXPORT_LIMIT = 10_000;

/** Every event the filters match, newest first, up to `limit`, read a page at a time. */
export async function audit_export(store: Store, filters: AuditFilters, limit = AUDIT_EXPORT_LIMIT): Promise<{ events: NamedAuditEvent[]; truncated: boolean }> {
  const events: NamedAuditEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await audit_page(store, filters, Math.min(500, limit - events.length), cursor);
    events.push(...page.items);
    if (page.next_cursor === null) return { events, truncated: false };
    if (events.length >= limit) return { events, truncated: true };
    cursor = page.next_cursor;
  }
}
