/** Store types: Audit events. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds, JsonObject } from "./common.ts";

/**
 * Every event type recorded: by the provider (oidc/audit.ts lists what each means) and by the
 * CLI (`via: "cli"`). `idp audit list --type` accepts these only; a new event type is added here
 * (tests/cli/audit.test.ts checks every type the code records is listed).
 */
export const AUDIT_EVENT_TYPES = [
  "login",
  "login_locked",
  "two_factor",
  "two_factor_enrolled",
  "two_factor_removed",
  "passkey_added",
  "passkey_renamed",
  "passkey_removed",
  "passkey_counter_regressed",
  "recovery_codes_replaced",
  "password_change",
  "password_reset_requested",
  "password_reset",
  // A password hash imported from another provider replaced by argon2id at sign-in (signin/password.ts).
  "password_rehashed",
  // A reset proved the address for the first time: the earlier holder's ways in went (accounts/reclaim.ts).
  "account_reclaimed",
  "email_verification_sent",
  "email_verified",
  "email_change_requested",
  "email_change",
  "signup",
  "invitation_sent",
  "invitation_accepted",
  "logout",
  "consent_granted",
  "consent_revoked",
  "tokens_revoked",
  "code_reuse",
  "refresh_token_reuse",
  // RFC 8628 (oidc/authorize/device.ts, grants/device_code.ts).
  "device_approved",
  "device_denied",
  "device_code_reuse",
  "device_code_throttled",
  "dpop_key_mismatch",
  "client_registered",
  "client_updated",
  "client_deleted",
  "client_secret_rotated",
  "keys_rotated",
  "key_revoked",
  "outbound_refused",
  "registration_token_created",
  "registration_token_revoked",
  "user_created",
  "user_deleted",
  "user_password_changed",
  // `idp import --from keycloak|auth0|csv` (oidc/foreign_import/).
  "users_imported",
  "access_denied",
  "group_created",
  "group_deleted",
  "group_member_added",
  "group_member_removed",
  "admin_api",
  "token_exchange",
  "resource_created",
  "resource_deleted",
  // Forward authentication (oidc/forward_auth/, src/cli/apps.ts).
  "protected_app_created",
  "protected_app_updated",
  "protected_app_deleted",
  "protected_app_access",
  "admin_console",
  "federation_login",
  "federation_link",
  "federation_unlink",
  "federation_account_created",
  "upstream_created",
  "upstream_deleted",
  "upstream_enabled",
  "upstream_disabled",
  "upstream_updated",
  // The command line's break-glass (src/cli/users_status.ts, src/cli/admin.ts).
  "user_disabled",
  "user_enabled",
  "admin_granted",
  // SAML 2.0 (oidc/saml/, src/cli/saml.ts).
  "saml_login",
  "saml_logout",
  "saml_sp_created",
  "saml_sp_updated",
  "saml_sp_deleted",
  // The LDAP directory (oidc/ldap/binds.ts; src/cli/ldap.ts).
  "ldap_bind",
  "ldap_service_account_created",
  "ldap_service_account_removed",
  "ldap_service_account_rotated",
  // SCIM provisioning (http/middleware/scim.ts): each call, and each operation of a Bulk request.
  "scim",
  // Custom user attributes (oidc/attributes/; src/cli/attributes.ts, src/cli/users_update.ts, the account page).
  "attribute_created",
  "attribute_updated",
  "attribute_removed",
  "user_updated",
  "profile_updated",
  "account_deleted",
  // Webhook subscriptions (oidc/webhooks/subscriptions.ts; src/cli/webhooks.ts).
  "webhook_created",
  "webhook_deleted",
  // Long-lived SCIM tokens (oidc/scim/tokens.ts; src/cli/scim.ts).
  "scim_token_created",
  "scim_token_revoked",
  // idp export and idp import (app/transfer/): counts of rows, never their values.
  "data_exported",
  "data_imported",
] as const;

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

/**
 * `until` is inclusive like `since`; `before` continues a page (keyset pagination): only events
 * older than that one in the list's order (at, then id, both descending).
 */
export type AuditQuery = {
  user_id?: string;
  client_id?: string;
  type?: string;
  since?: UnixSeconds;
  until?: UnixSeconds;
  before?: { at: UnixSeconds; id: number };
  limit?: number;
};

/** The admin console's dashboard figures (oidc/admin/console.ts): counts, never rows. */
export type StoreOverview = { users: number; clients: number; groups: number; active_sessions: number; sign_ins: number; failed_sign_ins: number };

/** How many `login` events one key (an application's client_id, an address) has; the key is null when the event had none. */
export type KeyedCount = { key: string | null; count: number };

/** A day of sign-ins: `day` counts from the query's `days_from` (0: its first day of 24 hours). */
export type SignInDay = { day: number; successes: number; failures: number };

/** The dashboard's sign-in figures (oidc/admin/overview.ts), from the `login` audit events. */
export type SignInStats = {
  /** Failed sign-ins since `failures_since`, by application and by address: the `top` largest, largest first (then by key). */
  failed_by_client: KeyedCount[];
  failed_by_ip: KeyedCount[];
  /** Days from `days_from` with at least one sign-in, in order. */
  days: SignInDay[];
};

export type SignInStatsQuery = { failures_since: UnixSeconds; days_from: UnixSeconds; top: number };

export interface AuditStore {
  /** Users, applications, groups; sessions not expired at `now`; `login` events since `since` that succeeded, and that failed. */
  count_overview(now: UnixSeconds, since: UnixSeconds): Promise<StoreOverview>;
  /** Failed sign-ins grouped by application and by address, and sign-ins per day (SignInStats). */
  sign_in_stats(query: SignInStatsQuery): Promise<SignInStats>;
  add_audit_event(event: NewAuditEvent): Promise<AuditEvent>;
  /** Newest first; `limit` defaults to 100. */
  list_audit_events(query?: AuditQuery): Promise<AuditEvent[]>;
  /** Deletes events older than `before`; returns how many. */
  purge_audit_events(before: UnixSeconds, batch_size?: number): Promise<number>;
}
