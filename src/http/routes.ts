/**
 * Every URL of the provider, in one place: the handler chain (outermost first), then one
 * instance of each endpoint bound to a provider. An endpoint lives in
 * src/http/endpoints/<area>/<name>.ts; docs/ARCHITECTURE.md says where a new one goes.
 */
import { Fw, type Item } from "../fw/index.ts";
import { PATHS } from "../oidc/discovery/paths.ts";
import type { Provider } from "../oidc/provider.ts";
import { Account } from "./endpoints/account/home.ts";
import { AccountEmail } from "./endpoints/account/email.ts";
import { AccountProfile } from "./endpoints/account/profile.ts";
import { AccountDelete } from "./endpoints/account/delete.ts";
import { EmailConfirm } from "./endpoints/account/email_confirm.ts";
import { AccountGrants } from "./endpoints/account/grants.ts";
import { Locale } from "./endpoints/account/locale.ts";
import { AccountSessions } from "./endpoints/account/sessions.ts";
import { Invitation } from "./endpoints/account/invitation.ts";
import { AccountLogin } from "./endpoints/account/login.ts";
import { AccountIdentities } from "./endpoints/account/identities.ts";
import { AccountIdentityLink } from "./endpoints/account/identity_link.ts";
import { FederationStart } from "./endpoints/federation/start.ts";
import { FederationCallback } from "./endpoints/federation/callback.ts";
import { ForwardAuth } from "./endpoints/forward_auth/check.ts";
import { ForwardAuthCallback } from "./endpoints/forward_auth/callback.ts";
import { ForwardAuthStart } from "./endpoints/forward_auth/start.ts";
import { AccountPassword } from "./endpoints/account/password.ts";
import { Signup } from "./endpoints/account/signup.ts";
import { AccountTotp } from "./endpoints/account/totp.ts";
import { ForgotPassword } from "./endpoints/account/forgot_password.ts";
import { ResetPassword } from "./endpoints/account/reset_password.ts";
import { ResetPasskeyOptions } from "./endpoints/account/reset_password_passkey.ts";
import { VerifyEmail } from "./endpoints/account/verify_email.ts";
import { ResendVerification } from "./endpoints/account/resend_verification.ts";
import { DemoCallback, type Backchannel } from "./endpoints/demo/callback.ts";
import { DemoDevice } from "./endpoints/demo/device.ts";
import { Demo } from "./endpoints/demo/start.ts";
import { Consent } from "./endpoints/interaction/consent.ts";
import { Login } from "./endpoints/interaction/login.ts";
import { TwoFactor } from "./endpoints/interaction/two_factor.ts";
import { PasskeySignIn } from "./endpoints/interaction/passkey.ts";
import { EnrolTotp } from "./endpoints/interaction/enrol_totp.ts";
import { PasskeyOptions } from "./endpoints/interaction/passkey_options.ts";
import { AccountPasskeyLogin } from "./endpoints/account/passkey_login.ts";
import { AccountPasskeyLoginOptions } from "./endpoints/account/passkey_login_options.ts";
import { AccountPasskeyOptions } from "./endpoints/account/passkey_options.ts";
import { AccountPasskeys } from "./endpoints/account/passkeys.ts";
import { Authorize } from "./endpoints/oauth/authorize.ts";
import { Introspect } from "./endpoints/oauth/introspect.ts";
import { ParPreflight, DeviceAuthorizationPreflight, RevokePreflight, TokenPreflight, UserinfoPreflight } from "./endpoints/oauth/preflight.ts";
import { Par } from "./endpoints/oauth/par.ts";
import { DeviceAuthorization } from "./endpoints/oauth/device_authorization.ts";
import { DeviceVerification } from "./endpoints/device/verification.ts";
import { Revoke } from "./endpoints/oauth/revoke.ts";
import { Token } from "./endpoints/oauth/token.ts";
import { Discovery } from "./endpoints/oidc/discovery.ts";
import { Jwks } from "./endpoints/oidc/jwks.ts";
import { Logout } from "./endpoints/oidc/logout.ts";
import { LogoutConfirm } from "./endpoints/oidc/logout_confirm.ts";
import { Userinfo } from "./endpoints/oidc/userinfo.ts";
import { Healthz, Readyz } from "./endpoints/ops/health.ts";
import { MetricsEndpoint } from "./endpoints/ops/metrics.ts";
import { Static, load_static, type StaticFile } from "./endpoints/ops/static.ts";
import { RegisterDelete } from "./endpoints/registration/delete.ts";
import { RegisterRead } from "./endpoints/registration/read.ts";
import { Register } from "./endpoints/registration/register.ts";
import { RegisterUpdate } from "./endpoints/registration/update.ts";
import { AdminAttributeCreate } from "./endpoints/admin/attributes/create.ts";
import { AdminAttributeDelete } from "./endpoints/admin/attributes/delete.ts";
import { AdminAttributeList } from "./endpoints/admin/attributes/list.ts";
import { AdminAttributeRead } from "./endpoints/admin/attributes/read.ts";
import { AdminAttributeUpdate } from "./endpoints/admin/attributes/update.ts";
import { AdminAuditList } from "./endpoints/admin/audit/list.ts";
import { AdminClientCreate } from "./endpoints/admin/clients/create.ts";
import { AdminClientDelete } from "./endpoints/admin/clients/delete.ts";
import { AdminClientList } from "./endpoints/admin/clients/list.ts";
import { AdminClientRead } from "./endpoints/admin/clients/read.ts";
import { AdminClientRotateSecret } from "./endpoints/admin/clients/rotate_secret.ts";
import { AdminClientUpdate } from "./endpoints/admin/clients/update.ts";
import { AdminGroupAddMember } from "./endpoints/admin/groups/add_member.ts";
import { AdminGroupCreate } from "./endpoints/admin/groups/create.ts";
import { AdminGroupDelete } from "./endpoints/admin/groups/delete.ts";
import { AdminGroupList } from "./endpoints/admin/groups/list.ts";
import { AdminGroupMembers } from "./endpoints/admin/groups/members.ts";
import { AdminGroupRemoveMember } from "./endpoints/admin/groups/remove_member.ts";
import { AdminResourceCreate } from "./endpoints/admin/resources/create.ts";
import { AdminResourceDelete } from "./endpoints/admin/resources/delete.ts";
import { AdminResourceList } from "./endpoints/admin/resources/list.ts";
import { AdminKeyList } from "./endpoints/admin/keys/list.ts";
import { AdminKeyRevoke } from "./endpoints/admin/keys/revoke.ts";
import { AdminKeyRotate } from "./endpoints/admin/keys/rotate.ts";
import { AdminWebhookCreate } from "./endpoints/admin/webhooks/create.ts";
import { AdminWebhookDelete } from "./endpoints/admin/webhooks/delete.ts";
import { AdminWebhookDeliveries } from "./endpoints/admin/webhooks/deliveries.ts";
import { AdminWebhookList } from "./endpoints/admin/webhooks/list.ts";
import { AdminWebhookRetry } from "./endpoints/admin/webhooks/retry.ts";
import { AdminWebhookTest } from "./endpoints/admin/webhooks/test.ts";
import { AdminUpstreamCreate } from "./endpoints/admin/upstreams/create.ts";
import { AdminUpstreamDelete } from "./endpoints/admin/upstreams/delete.ts";
import { AdminUpstreamList } from "./endpoints/admin/upstreams/list.ts";
import { AdminUpstreamRead } from "./endpoints/admin/upstreams/read.ts";
import { AdminUpstreamUpdate } from "./endpoints/admin/upstreams/update.ts";
import { AdminOpenApi } from "./endpoints/admin/openapi.ts";
import { AdminUserCreate } from "./endpoints/admin/users/create.ts";
import { AdminUserDelete } from "./endpoints/admin/users/delete.ts";
import { AdminUserEndSessions } from "./endpoints/admin/users/end_sessions.ts";
import { AdminUserGrants } from "./endpoints/admin/users/grants.ts";
import { AdminUserList } from "./endpoints/admin/users/list.ts";
import { AdminUserRead } from "./endpoints/admin/users/read.ts";
import { AdminUserResetSecondFactors } from "./endpoints/admin/users/reset_second_factors.ts";
import { AdminUserRevokeGrant } from "./endpoints/admin/users/revoke_grant.ts";
import { AdminUserSendReset } from "./endpoints/admin/users/send_reset.ts";
import { AdminUserSessions } from "./endpoints/admin/users/sessions.ts";
import { AdminUserUpdate } from "./endpoints/admin/users/update.ts";
import { AdminAppCreate } from "./endpoints/admin/apps/create.ts";
import { AdminAppDelete } from "./endpoints/admin/apps/delete.ts";
import { AdminAppList } from "./endpoints/admin/apps/list.ts";
import { AdminAppRead } from "./endpoints/admin/apps/read.ts";
import { AdminAppUpdate } from "./endpoints/admin/apps/update.ts";
import { AdminLdapAccountCreate } from "./endpoints/admin/ldap/create.ts";
import { AdminLdapAccountDelete } from "./endpoints/admin/ldap/delete.ts";
import { AdminLdapAccountList } from "./endpoints/admin/ldap/list.ts";
import { AdminLdapAccountRead } from "./endpoints/admin/ldap/read.ts";
import { AdminLdapAccountRotate } from "./endpoints/admin/ldap/rotate.ts";
import { AdminSamlCreate } from "./endpoints/admin/saml/create.ts";
import { AdminSamlDelete } from "./endpoints/admin/saml/delete.ts";
import { AdminSamlList } from "./endpoints/admin/saml/list.ts";
import { AdminSamlRead } from "./endpoints/admin/saml/read.ts";
import { AdminSamlUpdate } from "./endpoints/admin/saml/update.ts";
import { AdminApiHandler } from "./middleware/admin_api.ts";
import { AdminConsoleLdapAccounts } from "./endpoints/admin_console/ldap_accounts.ts";
import { AdminConsoleLdapAccountCreate } from "./endpoints/admin_console/ldap_account_create.ts";
import { AdminConsoleLdapAccountConfirm } from "./endpoints/admin_console/ldap_account_confirm.ts";
import { AdminConsoleLdapAccountRotate } from "./endpoints/admin_console/ldap_account_rotate.ts";
import { AdminConsoleLdapAccountRemove } from "./endpoints/admin_console/ldap_account_remove.ts";
import { AdminConsoleWebhooks } from "./endpoints/admin_console/webhooks.ts";
import { AdminConsoleWebhookCreate } from "./endpoints/admin_console/webhook_create.ts";
import { AdminConsoleWebhook } from "./endpoints/admin_console/webhook.ts";
import { AdminConsoleWebhookTest } from "./endpoints/admin_console/webhook_test.ts";
import { AdminConsoleWebhookRetry } from "./endpoints/admin_console/webhook_retry.ts";
import { AdminConsoleWebhookConfirm } from "./endpoints/admin_console/webhook_confirm.ts";
import { AdminConsoleWebhookRemove } from "./endpoints/admin_console/webhook_remove.ts";
import { AdminConsoleApps } from "./endpoints/admin_console/apps.ts";
import { AdminConsoleAppCreate } from "./endpoints/admin_console/app_create.ts";
import { AdminConsoleApp } from "./endpoints/admin_console/app.ts";
import { AdminConsoleAppUpdate } from "./endpoints/admin_console/app_update.ts";
import { AdminConsoleAppConfirm } from "./endpoints/admin_console/app_confirm.ts";
import { AdminConsoleAppRemove } from "./endpoints/admin_console/app_remove.ts";
import { AdminConsoleSaml } from "./endpoints/admin_console/saml.ts";
import { AdminConsoleSamlCreate } from "./endpoints/admin_console/saml_create.ts";
import { AdminConsoleSamlSp } from "./endpoints/admin_console/saml_sp.ts";
import { AdminConsoleSamlUpdate } from "./endpoints/admin_console/saml_update.ts";
import { AdminConsoleSamlConfirm } from "./endpoints/admin_console/saml_confirm.ts";
import { AdminConsoleSamlRemove } from "./endpoints/admin_console/saml_remove.ts";
import { ScimHandler } from "./middleware/scim.ts";
import { scim_endpoints } from "./endpoints/scim/index.ts";
import { AdminConsoleAttributeConfirm } from "./endpoints/admin_console/attribute_confirm.ts";
import { AdminConsoleAttributeCreate } from "./endpoints/admin_console/attribute_create.ts";
import { AdminConsoleAttributeRemove } from "./endpoints/admin_console/attribute_remove.ts";
import { AdminConsoleAttributeUpdate } from "./endpoints/admin_console/attribute_update.ts";
import { AdminConsoleAttributes } from "./endpoints/admin_console/attributes.ts";
import { AdminConsoleAudit } from "./endpoints/admin_console/audit.ts";
import { AdminConsoleAuditCsv } from "./endpoints/admin_console/audit_csv.ts";
import { AdminConsoleAuditJson } from "./endpoints/admin_console/audit_json.ts";
import { AdminConsoleSignOut } from "./endpoints/admin_console/sign_out.ts";
import { AdminConsoleClient } from "./endpoints/admin_console/client.ts";
import { AdminConsoleClientAction } from "./endpoints/admin_console/client_action.ts";
import { AdminConsoleClientConfirm } from "./endpoints/admin_console/client_confirm.ts";
import { AdminConsoleClientCreate } from "./endpoints/admin_console/client_create.ts";
import { AdminConsoleClientNew } from "./endpoints/admin_console/client_new.ts";
import { AdminConsoleClients } from "./endpoints/admin_console/clients.ts";
import { AdminConsoleDashboard } from "./endpoints/admin_console/dashboard.ts";
import { AdminConsoleGroupAction } from "./endpoints/admin_console/group_action.ts";
import { AdminConsoleGroupConfirm } from "./endpoints/admin_console/group_confirm.ts";
import { AdminConsoleGroups } from "./endpoints/admin_console/groups.ts";
import { AdminConsoleKeyConfirm } from "./endpoints/admin_console/key_confirm.ts";
import { AdminConsoleKeyRevoke } from "./endpoints/admin_console/key_revoke.ts";
import { AdminConsoleKeyRotate } from "./endpoints/admin_console/key_rotate.ts";
import { AdminConsoleKeys } from "./endpoints/admin_console/keys.ts";
import { AdminConsoleRegistrationTokenConfirm } from "./endpoints/admin_console/registration_token_confirm.ts";
import { AdminConsoleRegistrationTokenCreate } from "./endpoints/admin_console/registration_token_create.ts";
import { AdminConsoleRegistrationTokenRevoke } from "./endpoints/admin_console/registration_token_revoke.ts";
import { AdminConsoleRegistrationTokens } from "./endpoints/admin_console/registration_tokens.ts";
import { AdminConsoleResourceConfirm } from "./endpoints/admin_console/resource_confirm.ts";
import { AdminConsoleResourceCreate } from "./endpoints/admin_console/resource_create.ts";
import { AdminConsoleResourceRemove } from "./endpoints/admin_console/resource_remove.ts";
import { AdminConsoleResources } from "./endpoints/admin_console/resources.ts";
import { AdminConsoleSettings } from "./endpoints/admin_console/settings.ts";
import { AdminConsoleTestMail } from "./endpoints/admin_console/settings_test_mail.ts";
import { AdminConsoleUser } from "./endpoints/admin_console/user.ts";
import { AdminConsoleUserAction } from "./endpoints/admin_console/user_action.ts";
import { AdminConsoleUserConfirm } from "./endpoints/admin_console/user_confirm.ts";
import { AdminConsoleUserCreate } from "./endpoints/admin_console/user_create.ts";
import { AdminConsoleUserInvite } from "./endpoints/admin_console/user_invite.ts";
import { AdminConsoleUserNew } from "./endpoints/admin_console/user_new.ts";
import { AdminConsoleUserUpdate } from "./endpoints/admin_console/user_update.ts";
import { AdminConsoleUsers } from "./endpoints/admin_console/users.ts";
import { AdminConsoleUsersBulkAction } from "./endpoints/admin_console/users_bulk_action.ts";
import { AdminConsoleUsersBulkConfirm } from "./endpoints/admin_console/users_bulk_confirm.ts";
import { AdminConsoleUpstreamAction } from "./endpoints/admin_console/upstream_action.ts";
import { AdminConsoleUpstreamConfirm } from "./endpoints/admin_console/upstream_confirm.ts";
import { AdminConsoleUpstreams } from "./endpoints/admin_console/upstreams.ts";
import { SamlMetadata } from "./endpoints/saml/metadata.ts";
import { SamlResume } from "./endpoints/saml/resume.ts";
import { SamlSlo } from "./endpoints/saml/slo.ts";
import { SamlSso } from "./endpoints/saml/sso.ts";
import { SamlStart } from "./endpoints/saml/start.ts";
import { ProviderErrorHandler, error_page } from "./errors.ts";
import { LocaleHandler } from "./middleware/locale.ts";
import { MetricsHandler } from "./middleware/metrics.ts";
import { ProtocolHandler } from "./middleware/protocol.ts";
import { RateLimitHandler } from "./middleware/rate_limit.ts";
import { RegistrationHandler } from "./middleware/registration.ts";
import { SecurityHeadersHandler } from "./middleware/security_headers.ts";
import { TracingHandler } from "./middleware/tracing.ts";
import { current_tracing } from "../oidc/ops/tracing.ts";
import { UnavailableHandler } from "./middleware/unavailable.ts";

/** The handlers (outermost first), then one instance of every endpoint, bound to `idp`. */
export function build_items(idp: Provider, static_files: Map<string, StaticFile> = load_static()): Item[] {
  const handlers: Item[] = [];
  // Outermost: the request's span covers every handler, and the log line carries its ids.
  const tracing = current_tracing();
  if (tracing !== null) handlers.push(new TracingHandler(tracing));
  handlers.push(new Fw.RequestIdHandler());
  if (idp.config.log_requests) handlers.push(new Fw.LoggingHandler());
  // Outside the error handler: counts error responses with their status.
  if (idp.config.metrics_token !== undefined) handlers.push(new MetricsHandler(idp.metrics));
  handlers.push(
    new SecurityHeadersHandler(idp.secure),
    // Outside the error handler, so the error page is in the chosen language too.
    new LocaleHandler(idp),
    new ProviderErrorHandler({ html: error_page(idp) }),
    // Inside the error handler, so the 503 it raises for a database outage is rendered there.
    new UnavailableHandler(idp.config.request_timeout_seconds * 1000),
    new ProtocolHandler([PATHS.token, PATHS.userinfo, PATHS.revoke, PATHS.introspect, PATHS.par, PATHS.device_authorization]),
  );
  if (idp.config.registration !== "off") handlers.push(new RegistrationHandler());
  // The admin API (IDP_ADMIN_API): its token check, audit and problem documents.
  if (idp.config.admin_api) handlers.push(new AdminApiHandler(idp));
  // SCIM provisioning (IDP_SCIM): its token check (scope scim), audit and error documents.
  if (idp.config.scim) handlers.push(new ScimHandler(idp));
  // Inside the protocol and registration handlers: a 429 keeps their CORS and no-store headers.
  if (idp.config.rate_limits.enabled) handlers.push(new RateLimitHandler(idp));
  const endpoints: Item[] = [
    Discovery(idp),
    Jwks(idp),
    Authorize(idp),
    Login(idp),
    TwoFactor(idp),
    EnrolTotp(idp),
    // Passkeys (WebAuthn): not mounted when they are off (IDP_PASSKEYS=off).
    ...(idp.config.passkeys
      ? [PasskeyOptions(idp), PasskeySignIn(idp), AccountPasskeyLoginOptions(idp), AccountPasskeyLogin(idp), AccountPasskeyOptions(idp), AccountPasskeys(idp)]
      : []),
    Consent(idp),
    Logout(idp),
    LogoutConfirm(idp),
    Token(idp),
    TokenPreflight(idp),
    Revoke(idp),
    RevokePreflight(idp),
    Introspect(idp),
    // Pushed authorization requests (RFC 9126).
    Par(idp),
    ParPreflight(idp),
    // The device authorization grant (RFC 8628): the device's endpoint and the user's verification page.
    DeviceAuthorization(idp),
    DeviceAuthorizationPreflight(idp),
    DeviceVerification(idp),
    Userinfo(idp),
    UserinfoPreflight(idp),
    // Dynamic registration (RFC 7591, RFC 7592) is not mounted at all when it is off.
    ...(idp.config.registration === "off" ? [] : [Register(idp), RegisterRead(idp), RegisterUpdate(idp), RegisterDelete(idp)]),
    Healthz(idp),
    Readyz(idp),
    // Off (404) unless a token protects it.
    ...(idp.config.metrics_token === undefined ? [] : [MetricsEndpoint(idp, idp.config.metrics_token)]),
    // The account page: profile, password, two-step verification, applications allowed.
    Account(idp),
    AccountLogin(idp),
    AccountPassword(idp),
    AccountTotp(idp),
    AccountGrants(idp),
    Locale(idp),
    // Forgot password and e-mail verification (links mailed to the user; the pages say so when mail is off).
    ForgotPassword(idp),
    ResetPassword(idp),
    // A reset of an account with a passkey can be confirmed with it (oidc/accounts/password_reset.ts).
    ...(idp.config.passkeys ? [ResetPasskeyOptions(idp)] : []),
    VerifyEmail(idp),
    ResendVerification(idp),
    AccountSessions(idp),
    AccountEmail(idp),
    AccountProfile(idp),
    AccountDelete(idp),
    // Sign-in with other identity providers (upstreams), and the account page's link (after
    // re-authentication) and unlink.
    FederationStart(idp),
    FederationCallback(idp),
    AccountIdentities(idp),
    AccountIdentityLink(idp),
    EmailConfirm(idp),
    // The SAML 2.0 identity provider (oidc/saml/): metadata, single sign-on, IdP-initiated sign-in, single logout.
    SamlMetadata(idp),
    SamlSso(idp),
    SamlResume(idp),
    SamlStart(idp),
    SamlSlo(idp),
    // Forward authentication for applications behind a reverse proxy (IDP_FORWARD_AUTH_COOKIE_DOMAIN):
    // the proxy's check, the start step a browser is sent to for signing in, and the callback that
    // sets the host-only cookie of an application outside the cookie domain.
    ForwardAuth(idp),
    ForwardAuthStart(idp),
    ForwardAuthCallback(idp),
    // Sign-up (IDP_SIGNUP): the public page only when open; invitation links unless sign-up is off.
    ...(idp.config.signup.mode === "open" ? [Signup(idp)] : []),
    ...(idp.config.signup.mode === "off" ? [] : [Invitation(idp)]),
    // The admin REST API under /admin/api/v1 (IDP_ADMIN_API), with its OpenAPI document.
    ...(idp.config.admin_api ? admin_api(idp) : []),
    // SCIM 2.0 provisioning under /scim/v2 (IDP_SCIM).
    ...(idp.config.scim ? scim_endpoints(idp) : []),
    // The admin web console at /admin (IDP_ADMIN_CONSOLE): admins' own browser sessions, with a second factor.
    ...(idp.config.admin_console.enabled ? admin_console(idp) : []),
    // The built-in demo relying party, in development mode only.
    ...(idp.config.production ? [] : demo_endpoints(idp, backchannel(idp, static_files))),
    Static(idp, static_files),
  ];
  return [...handlers, ...endpoints];
}

/** The built-in demo relying party: the code flow (/demo), and a device (/demo/device, RFC 8628). */
function demo_endpoints(idp: Provider, channel: Backchannel): Item[] {
  return [Demo(idp), DemoCallback(idp, channel), DemoDevice(idp, channel)];
}

/** The admin API's endpoints, then its OpenAPI document, generated from theirs. */
function admin_api(idp: Provider): Item[] {
  const endpoints = [
    AdminUserList(idp),
    AdminUserCreate(idp),
    AdminUserRead(idp),
    AdminUserUpdate(idp),
    AdminUserDelete(idp),
    AdminUserResetSecondFactors(idp),
    AdminUserSendReset(idp),
    AdminUserSessions(idp),
    AdminUserEndSessions(idp),
    AdminUserGrants(idp),
    AdminUserRevokeGrant(idp),
    AdminGroupList(idp),
    AdminGroupCreate(idp),
    AdminGroupDelete(idp),
    AdminGroupMembers(idp),
    AdminGroupAddMember(idp),
    AdminGroupRemoveMember(idp),
    AdminResourceList(idp),
    AdminResourceCreate(idp),
    AdminResourceDelete(idp),
    AdminClientList(idp),
    AdminClientCreate(idp),
    AdminClientRead(idp),
    AdminClientUpdate(idp),
    AdminClientDelete(idp),
    AdminClientRotateSecret(idp),
    AdminAuditList(idp),
    AdminKeyList(idp),
    AdminKeyRotate(idp),
    AdminKeyRevoke(idp),
    AdminWebhookList(idp),
    AdminWebhookCreate(idp),
    AdminWebhookDelete(idp),
    AdminWebhookDeliveries(idp),
    AdminWebhookTest(idp),
    AdminWebhookRetry(idp),
    AdminUpstreamList(idp),
    AdminUpstreamCreate(idp),
    AdminUpstreamRead(idp),
    AdminUpstreamUpdate(idp),
    AdminUpstreamDelete(idp),
    AdminSamlList(idp),
    AdminSamlCreate(idp),
    AdminSamlRead(idp),
    AdminSamlUpdate(idp),
    AdminSamlDelete(idp),
    AdminAppList(idp),
    AdminAppCreate(idp),
    AdminAppRead(idp),
    AdminAppUpdate(idp),
    AdminAppDelete(idp),
    AdminLdapAccountList(idp),
    AdminLdapAccountCreate(idp),
    AdminLdapAccountRead(idp),
    AdminLdapAccountRotate(idp),
    AdminLdapAccountDelete(idp),
    AdminAttributeList(idp),
    AdminAttributeCreate(idp),
    AdminAttributeRead(idp),
    AdminAttributeUpdate(idp),
    AdminAttributeDelete(idp),
  ];
  return [...endpoints, AdminOpenApi(idp, endpoints)];
}

/** The admin console's pages (views/admin/), one endpoint per page or form. */
function admin_console(idp: Provider): Item[] {
  return [
    AdminConsoleDashboard(idp),
    AdminConsoleUsers(idp),
    AdminConsoleUsersBulkConfirm(idp),
    AdminConsoleUsersBulkAction(idp),
    AdminConsoleUserCreate(idp),
    AdminConsoleUserInvite(idp),
    AdminConsoleUserNew(idp),
    AdminConsoleUser(idp),
    AdminConsoleUserUpdate(idp),
    AdminConsoleUserAction(idp),
    AdminConsoleUserConfirm(idp),
    AdminConsoleGroups(idp),
    AdminConsoleGroupAction(idp),
    AdminConsoleGroupConfirm(idp),
    AdminConsoleClients(idp),
    AdminConsoleClientNew(idp),
    AdminConsoleClientCreate(idp),
    AdminConsoleClient(idp),
    AdminConsoleClientAction(idp),
    AdminConsoleClientConfirm(idp),
    AdminConsoleResources(idp),
    AdminConsoleResourceCreate(idp),
    AdminConsoleResourceConfirm(idp),
    AdminConsoleResourceRemove(idp),
    AdminConsoleAttributes(idp),
    AdminConsoleAttributeCreate(idp),
    AdminConsoleAttributeUpdate(idp),
    AdminConsoleAttributeConfirm(idp),
    AdminConsoleAttributeRemove(idp),
    AdminConsoleRegistrationTokens(idp),
    AdminConsoleRegistrationTokenCreate(idp),
    AdminConsoleRegistrationTokenConfirm(idp),
    AdminConsoleRegistrationTokenRevoke(idp),
    AdminConsoleUpstreams(idp),
    AdminConsoleUpstreamAction(idp),
    AdminConsoleUpstreamConfirm(idp),
    AdminConsoleSaml(idp),
    AdminConsoleSamlCreate(idp),
    AdminConsoleSamlSp(idp),
    AdminConsoleSamlUpdate(idp),
    AdminConsoleSamlConfirm(idp),
    AdminConsoleSamlRemove(idp),
    AdminConsoleApps(idp),
    AdminConsoleAppCreate(idp),
    AdminConsoleAppConfirm(idp),
    AdminConsoleApp(idp),
    AdminConsoleAppUpdate(idp),
    AdminConsoleAppRemove(idp),
    AdminConsoleLdapAccounts(idp),
    AdminConsoleLdapAccountCreate(idp),
    AdminConsoleLdapAccountConfirm(idp),
    AdminConsoleLdapAccountRotate(idp),
    AdminConsoleLdapAccountRemove(idp),
    AdminConsoleWebhooks(idp),
    AdminConsoleWebhookCreate(idp),
    AdminConsoleWebhook(idp),
    AdminConsoleWebhookTest(idp),
    AdminConsoleWebhookRetry(idp),
    AdminConsoleWebhookConfirm(idp),
    AdminConsoleWebhookRemove(idp),
    AdminConsoleAudit(idp),
    AdminConsoleAuditCsv(idp),
    AdminConsoleAuditJson(idp),
    AdminConsoleSignOut(idp),
    AdminConsoleKeys(idp),
    AdminConsoleKeyRotate(idp),
    AdminConsoleKeyConfirm(idp),
    AdminConsoleKeyRevoke(idp),
    AdminConsoleSettings(idp),
    AdminConsoleTestMail(idp),
  ];
}

/** The provider's own endpoints, answered in-process (built on first use): the demo's /token and /userinfo calls. */
function backchannel(idp: Provider, static_files: Map<string, StaticFile>): Backchannel {
  let app: ReturnType<typeof Fw.build> | undefined;
  return (request) => (app ??= Fw.build({ body_limit: idp.config.body_limit, log: idp.log }, build_items(idp, static_files))).fetch(request);
}
