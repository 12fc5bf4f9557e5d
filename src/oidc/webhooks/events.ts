/**
 * The webhook event catalogue: which audit events (store/types/audit.ts AUDIT_EVENT_TYPES) a
 * receiver hears of, under which webhook type. Webhooks are derived from the audit log, so every
 * place that records an event (the provider, the admin API, the console, the CLI) notifies
 * subscribers without knowing of them: oidc/audit.ts and the CLI's audit call `fan_out` (fan_out.ts).
 *
 * README "Webhooks" lists the catalogue; tests/oidc/webhooks/events.test.ts checks that list
 * against this table.
 */
import { AUDIT_AREAS } from "../admin/audit.ts";
import type { AuditEvent } from "../../store/types.ts";

type Outcome = "success" | "failure";
/** An audit event type, with the outcome it needs (any when absent). */
type Source = { audit: string; outcome?: Outcome };

/** Account, session, group and client events: the webhook type and the audit events it stands for. */
const NAMED: Record<string, readonly Source[]> = {
  "user.created": [
    { audit: "user_created" },
    { audit: "signup", outcome: "success" },
    { audit: "federation_account_created" },
    { audit: "invitation_accepted", outcome: "success" },
  ],
  "user.updated": [{ audit: "user_updated" }, { audit: "user_enabled" }, { audit: "email_change", outcome: "success" }, { audit: "email_verified", outcome: "success" }],
  "user.disabled": [{ audit: "user_disabled" }],
  "user.deleted": [{ audit: "user_deleted" }],
  "user.signed_in": [{ audit: "login", outcome: "success" }],
  "user.sign_in_failed": [{ audit: "login", outcome: "failure" }],
  "session.ended": [{ audit: "logout" }],
  "group.member_added": [{ audit: "group_member_added" }],
  "group.member_removed": [{ audit: "group_member_removed" }],
  "client.created": [{ audit: "client_registered" }],
  "client.updated": [{ audit: "client_updated" }, { audit: "client_secret_rotated" }],
  "client.deleted": [{ audit: "client_deleted" }],
};

/**
 * `security.<audit type>`: the audit log's threats (reused codes and tokens, a cloned passkey, a
 * refused outbound destination…) and a few more an operator watches: a locked sign-in, a
 * reclaimed account, a revoked signing key, an administrator granted.
 */
export const SECURITY_AUDIT_EVENTS: readonly string[] = [...AUDIT_AREAS.threats, "login_locked", "account_reclaimed", "key_revoked", "admin_granted"];

/** Every webhook event type, in catalogue order. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [...Object.keys(NAMED), ...SECURITY_AUDIT_EVENTS.map((audit) => `security.${audit}`)];

/** The catalogue: each webhook type with the audit events (and outcome) it stands for (README "Webhooks" is generated from it). */
export function webhook_event_catalogue(): { type: string; sources: string[] }[] {
  return [
    ...Object.entries(NAMED).map(([type, sources]) => ({ type, sources: sources.map((s) => (s.outcome === undefined ? s.audit : `${s.audit} (${s.outcome})`)) })),
    ...SECURITY_AUDIT_EVENTS.map((audit) => ({ type: `security.${audit}`, sources: [audit] })),
  ];
}

/** The webhook event type of a test delivery (`idp webhooks test`): sent whatever the subscription. */
export const TEST_EVENT_TYPE = "webhook.test";

const BY_AUDIT = new Map<string, { type: string; outcome?: Outcome }[]>();
for (const [type, sources] of Object.entries(NAMED)) {
  for (const source of sources) BY_AUDIT.set(source.audit, [...(BY_AUDIT.get(source.audit) ?? []), { type, ...(source.outcome && { outcome: source.outcome }) }]);
}
for (const audit of SECURITY_AUDIT_EVENTS) BY_AUDIT.set(audit, [...(BY_AUDIT.get(audit) ?? []), { type: `security.${audit}` }]);

/**
 * The audit type an event stands for: the admin API and the console record their changes as
 * `admin_api` / `admin_console` with the change in `details.action` (`user_created`…).
 */
function acted_type(event: Pick<AuditEvent, "type" | "details">): string {
  if (event.type !== "admin_api" && event.type !== "admin_console") return event.type;
  const action = event.details?.action;
  return typeof action === "string" ? action : event.type;
}

/** The webhook types an audit event is delivered as (none for most). */
export function webhook_types_of(event: Pick<AuditEvent, "type" | "outcome" | "details">): string[] {
  // A refused webhook delivery is audited (outbound/fetch.ts) but never delivered as a webhook itself: no loop.
  if (event.type === "outbound_refused" && event.details?.purpose === WEBHOOK_PURPOSE) return [];
  const type = acted_type(event);
  // The admin API and the console audit refusals too; only a change that happened is an event.
  if (type !== event.type && event.outcome !== "success") return [];
  return (BY_AUDIT.get(type) ?? []).filter((entry) => entry.outcome === undefined || entry.outcome === event.outcome).map((entry) => entry.type);
}

/** The outbound fence's purpose for webhook deliveries (logs and `outbound_refused` audit events). */
export const WEBHOOK_PURPOSE = "webhook";

/** The groups a wildcard may name: `user.*`, `security.*`… */
export const WEBHOOK_EVENT_GROUPS: readonly string[] = [...new Set(WEBHOOK_EVENT_TYPES.map((type) => type.slice(0, type.indexOf("."))))];

/** Why a subscription pattern is not one: null when it is `*`, `<group>.*` or a type of the catalogue. */
export function event_pattern_problem(pattern: string): string | null {
  if (pattern === "*" || WEBHOOK_EVENT_TYPES.includes(pattern)) return null;
  if (pattern.endsWith(".*") && WEBHOOK_EVENT_GROUPS.includes(pattern.slice(0, -2))) return null;
  return `"${pattern}" is no webhook event: use one of ${WEBHOOK_EVENT_GROUPS.map((g) => `${g}.*`).join(", ")}, * or a type that \`idp webhooks events\` lists`;
}

/** Whether a subscription to `patterns` receives `type`. */
export function subscribed(patterns: readonly string[], type: string): boolean {
  return patterns.some((pattern) => pattern === "*" || pattern === type || (pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1))));
}
