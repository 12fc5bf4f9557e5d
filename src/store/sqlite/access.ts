/**
 * How the SQLite adapter runs each data method (group_commit.ts), declared once per method:
 * - "read": SELECT only. With no batch open it runs at once, without a transaction; with one
 *   open it joins it (and may see its uncommitted rows).
 * - "write": changes rows. Runs inside the open batch (opening one), settles after its COMMIT.
 * - "alone": commits the open batch first, then runs outside any batch, committing as it goes
 *   (batched deletes that must not hold the write lock for long).
 *
 * The table is typed against the store interface: a method added to the Store without a line
 * here does not compile. Declaring a read as a write is still correct (it only opens a batch);
 * declaring a write as a read would run it outside any transaction, so a new method that changes
 * rows must be "write".
 */
import type { DataStore } from "../types.ts";

export type Access = "read" | "write" | "alone";

export const SQLITE_ACCESS: { readonly [M in keyof DataStore]-?: Access } = {
  // users
  create_user: "write",
  get_user_by_id: "read",
  get_user_by_username: "read",
  list_users: "read",
  search_users: "read",
  browse_users: "read",
  update_user: "write",
  delete_user: "write",
  delete_stale_users: "alone",
  set_recovery_codes: "write",
  consume_recovery_code: "write",
  count_recovery_codes: "read",
  count_foreign_password_hashes: "read",
  find_users_by_email: "read",
  // user tokens
  create_user_token: "write",
  find_user_token: "read",
  consume_user_token: "write",
  delete_user_tokens: "write",
  // pushed authorization requests (RFC 9126)
  insert_pushed_request: "write",
  consume_pushed_request: "write",
  // device authorizations (RFC 8628)
  insert_device_authorization: "write",
  find_device_authorization: "read",
  decide_device_authorization: "write",
  poll_device_authorization: "write",
  // clients
  create_client: "write",
  get_client: "read",
  list_clients: "read",
  update_client: "write",
  delete_client: "write",
  get_client_by_registration_token_hash: "read",
  mark_client_used: "write",
  delete_unused_clients: "alone",
  note_client_secret_use: "write",
  // sessions
  create_session: "write",
  get_session: "read",
  list_sessions_for_user: "read",
  touch_session: "write",
  delete_session: "write",
  delete_sessions_for_user: "write",
  add_session_client: "write",
  list_session_clients: "read",
  // interactions
  create_interaction: "write",
  get_interaction: "read",
  update_interaction: "write",
  delete_interaction: "write",
  // grants
  upsert_grant: "write",
  get_grant: "read",
  list_grants_for_user: "read",
  delete_grant: "write",
  // codes
  insert_code: "write",
  get_code: "read",
  consume_code: "write",
  // tokens
  insert_token: "write",
  get_token: "read",
  revoke_token: "write",
  revoke_by_grant: "write",
  revoke_family: "write",
  revoke_for_user_client: "write",
  revoke_for_user: "write",
  revoke_by_session: "write",
  rotate_refresh_token: "write",
  // keys
  insert_key: "write",
  list_keys: "read",
  update_key_status: "write",
  delete_key: "write",
  replace_private_jwk: "write",
  keys_version: "read",
  // registration
  create_initial_access_token: "write",
  find_initial_access_token: "read",
  use_initial_access_token: "write",
  delete_initial_access_token: "write",
  list_initial_access_tokens: "read",
  // limits
  use_jti: "write",
  hit: "write",
  get_counter: "read",
  reset_counter: "write",
  reserve: "write",
  release: "write",
  // groups
  create_group: "write",
  get_group_by_name: "read",
  get_group_by_id: "read",
  rename_group: "write",
  list_groups: "read",
  delete_group: "write",
  add_group_member: "write",
  remove_group_member: "write",
  list_group_members: "read",
  list_user_groups: "read",
  sync_upstream_group_members: "write",
  // federation
  create_upstream: "write",
  get_upstream: "read",
  list_upstreams: "read",
  update_upstream: "write",
  delete_upstream: "write",
  link_identity: "write",
  get_identity: "read",
  list_identities_for_user: "read",
  unlink_identity: "write",
  touch_identity: "write",
  count_stale_identities: "read",
  delete_stale_identities: "write",
  create_upstream_state: "write",
  take_upstream_state: "write",
  // resource servers
  create_resource_server: "write",
  get_resource_server: "read",
  list_resource_servers: "read",
  delete_resource_server: "write",
  // SAML service providers
  create_saml_service_provider: "write",
  get_saml_service_provider: "read",
  list_saml_service_providers: "read",
  update_saml_service_provider: "write",
  delete_saml_service_provider: "write",
  add_saml_participant: "write",
  list_saml_participants: "read",
  find_saml_participants: "read",
  // the LDAP directory
  create_ldap_service_account: "write",
  get_ldap_service_account: "read",
  list_ldap_service_accounts: "read",
  set_ldap_service_account_secret: "write",
  delete_ldap_service_account: "write",
  ldap_posix_numbers: "write",
  // custom user attributes
  create_attribute_definition: "write",
  get_attribute_definition: "read",
  list_attribute_definitions: "read",
  update_attribute_definition: "write",
  delete_attribute_definition: "write",
  list_user_attribute_values: "read",
  set_user_attribute_values: "write",
  // idp export and import (transfer.ts)
  export_rows: "read",
  import_rows: "write",
  list_directory_memberships: "read",
  // forward authentication
  create_protected_app: "write",
  get_protected_app: "read",
  list_protected_apps: "read",
  list_protected_apps_for_host: "read",
  update_protected_app: "write",
  delete_protected_app: "write",
  create_forward_auth_token: "write",
  get_forward_auth_session: "read",
  create_forward_auth_code: "write",
  take_forward_auth_code: "write",
  record_protected_app_access: "write",
  // audit
  add_audit_event: "write",
  list_audit_events: "read",
  count_overview: "read",
  sign_in_stats: "read",
  purge_audit_events: "alone",
  // mail outbox
  enqueue_mail: "write",
  claim_mail: "write",
  mark_mail_sent: "write",
  mark_mail_failed: "write",
  retry_mail: "write",
  get_mail: "read",
  list_mail: "read",
  count_mail: "read",
  mail_queue: "read",
  // webhooks
  add_webhook: "write",
  get_webhook: "read",
  list_webhooks: "read",
  delete_webhook: "write",
  enqueue_webhook_deliveries: "write",
  claim_webhook_deliveries: "write",
  mark_webhook_delivery_sent: "write",
  mark_webhook_delivery_failed: "write",
  retry_webhook_delivery: "write",
  get_webhook_delivery: "read",
  list_webhook_deliveries: "read",
  webhook_queue: "read",
  // passkeys
  create_passkey: "write",
  get_passkey_by_credential_id: "read",
  list_passkeys_for_user: "read",
  count_passkeys_for_user: "read",
  rename_passkey: "write",
  use_passkey: "write",
  delete_passkey: "write",
  create_webauthn_challenge: "write",
  consume_webauthn_challenge: "write",
  // scim
  get_scim_user: "read",
  put_scim_user: "write",
  find_scim_users_by_external_id: "read",
  get_scim_group: "read",
  put_scim_group: "write",
  find_scim_groups_by_external_id: "read",
};
