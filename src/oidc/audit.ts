/**
 * Records one audit event (store.add_audit_event) the same way everywhere: the provider's clock,
 * an empty address as null, every field present. The audit log answers "who did what, from
 * where, with which client, and did it work" — never with a secret: `details` holds ids, names,
 * counts and methods, never a password, client secret, code or token (tests/security/audit.test.ts
 * greps every event for the ones it used).
 *
 * Event types of the provider (the CLI adds its own with `via: "cli"`):
 *   login, login_locked, two_factor, two_factor_enrolled, two_factor_removed,
 *   passkey_added, passkey_renamed, passkey_removed, passkey_counter_regressed (a passkey whose
 *   signature counter went backwards: a cloned authenticator? passkeys/ceremony.ts),
 *   recovery_codes_replaced, password_change, password_rehashed (a password hash imported from another provider replaced by argon2id
 *   at the user's first password sign-in: `details.from` its kind; signin/password.ts),
 *   password_reset_requested (forgot password: the
 *   outcome says whether a link was mailed, `details.reason` why not; never what was typed),
 *   password_reset, account_reclaimed (a reset proved a never verified address: the TOTP,
 *   recovery codes, passkeys, linked upstream accounts and pending links went, counted in
 *   `details`; accounts/reclaim.ts), email_verification_sent, email_verified, signup (`details.reason` of a
 *   refusal: email_in_use, throttled), invitation_sent, invitation_accepted,
 *   email_change_requested, email_change, logout, consent_granted, consent_revoked,
 *   tokens_revoked, code_reuse, refresh_token_reuse, device_approved, device_denied (a user's
 *   decision on a device authorization, RFC 8628: device.ts), device_code_reuse (a device code
 *   polled again after it yielded tokens), device_code_throttled (an address filled its window
 *   of wrong user codes at /device), dpop_key_mismatch (a DPoP-bound refresh
 *   token presented without a proof of its key: stolen? grants/refresh_token.ts), token_exchange (an RFC 8693
 *   exchange granted, or refused by the client's policy: `details.mode`, `subject_client`, `resource`,
 *   `details.reason`; grants/token_exchange.ts), client_registered, client_updated,
 *   client_deleted (by the purge too: `details.reason` never_used, registration/unused_clients.ts), keys_rotated, key_revoked (a compromised signing key revoked by `idp keys revoke`: `details.kid`), outbound_refused (a URL a client registered named a destination
 *   the provider does not call: outbound/fetch.ts), access_denied (a client's
 *   allowed_groups refused the user: groups.ts; a protected application's groups: `details.stage`
 *   "forward_auth", `details.app`, forward_auth/access_log.ts), protected_app_access (a session's
 *   first request to a protected application: `details.app`, `details.host`), federation_login (a sign-in through an upstream
 *   identity provider refused or failed: `details.upstream`, `details.reason`), federation_link,
 *   federation_unlink, federation_account_created (federation/flow.ts), admin_api (one call of the admin REST API:
 *   `client_id` the admin client that made it, `user_id` the user it acted on, `details` the
 *   method, path, status and action; http/middleware/admin_api.ts), scim (one SCIM provisioning call, or one
 *   operation of a Bulk request, shaped like admin_api: http/middleware/scim.ts), admin_console (one change made
 *   in the admin web console, or refused: `user_id` the user it acted on, `details.actor`
 *   `user:<id>` of the administrator, `details.action`; oidc/admin/console.ts), saml_login (a SAML
 *   sign-in to a service provider, or its refusal: `details.entity_id`, `details.binding`,
 *   `details.reason`; saml/sso.ts), saml_logout (a service provider's LogoutRequest, answered or
 *   refused: `details.entity_id`, `details.binding`, `details.sessions` ended, `details.reason`;
 *   saml/slo.ts), ldap_bind (a
 *   bind to the LDAP directory that named an account: `details.kind` user or service, with the
 *   service account's name, or `details.reason` of a refusal; a wrong user password is a `login`
 *   failure with `details.via` "ldap"; ldap/binds.ts).
 */
import type { Provider } from "./provider.ts";
import type { AuditEvent, JsonObject, UnixSeconds } from "../store/types.ts";
import { fan_out } from "./webhooks/fan_out.ts";

export type EventInput = {
  type: string;
  outcome: "success" | "failure";
  user_id?: string | null;
  client_id?: string | null;
  /** The client address (proxy.ts client_ip); "" when unknown. */
  ip?: string | null;
  details?: JsonObject | null;
  /** Defaults to idp.now(); pass the `now` an action already used so the event matches it. */
  at?: UnixSeconds;
};

/**
 * Records the event, then queues the webhook deliveries it causes (webhooks/fan_out.ts) and wakes
 * this instance's webhook worker.
 */
export async function record_event(idp: Pick<Provider, "store" | "now"> & Partial<Pick<Provider, "wake_webhooks">>, event: EventInput): Promise<AuditEvent> {
  const recorded = await idp.store.add_audit_event({
    type: event.type,
    outcome: event.outcome,
    at: event.at ?? idp.now(),
    user_id: event.user_id ?? null,
    client_id: event.client_id ?? null,
    ip: event.ip === undefined || event.ip === "" ? null : event.ip,
    details: event.details ?? null,
  });
  if ((await fan_out(idp.store, recorded, recorded.at)) > 0) idp.wake_webhooks?.();
  return recorded;
}
