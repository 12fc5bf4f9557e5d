/**
 * The ordered list of schema migrations. Each has one script per database; versions only grow,
 * and a released migration is never edited: add a new one instead.
 */
import { StoreError } from "../types.ts";
import { initial_schema } from "./001_initial.ts";
import { session_clients } from "./002_session_clients.ts";
import { partial_token_indexes } from "./003_partial_token_indexes.ts";
import { initial_access_token_limits } from "./004_initial_access_token_limits.ts";
import { username_nfkc } from "./005_username_nfkc.ts";
import { mail_outbox } from "./006_mail_outbox.ts";
import { user_tokens } from "./007_user_tokens.ts";
import { passkeys } from "./008_passkeys.ts";
import { groups } from "./009_groups.ts";
import { federation } from "./010_federation.ts";
import { user_email_index } from "./011_user_email_index.ts";
import { par_dpop } from "./012_par_dpop.ts";
import { device_authorizations } from "./013_device_authorizations.ts";
import { upstream_mfa } from "./014_upstream_mfa.ts";
import { resource_servers } from "./015_resource_servers.ts";
import { upstream_group_map } from "./017_upstream_group_map.ts";
import { user_locale } from "./018_user_locale.ts";
import { client_first_use } from "./019_client_first_use.ts";
import { row_versions } from "./020_row_versions.ts";
import { link_issuer } from "./021_link_issuer.ts";
import { revoked_grants } from "./022_revoked_grants.ts";
import { client_secret_grace } from "./023_client_secret_grace.ts";
import { saml_service_providers } from "./024_saml_service_providers.ts";
import { forward_auth } from "./025_forward_auth.ts";
import { ldap } from "./026_ldap.ts";
import { job_runs } from "./027_job_runs.ts";
import { user_attributes } from "./028_user_attributes.ts";
import { webhooks } from "./029_webhooks.ts";
import { scim } from "./030_scim.ts";
import { saml_session_participants } from "./032_saml_session_participants.ts";
import { forward_auth_hosts } from "./033_forward_auth_hosts.ts";
import { saml_encrypt } from "./034_saml_encrypt.ts";
import { scim_tokens } from "./035_scim_tokens.ts";
import type { Migration } from "./migration.ts";

export type { Migration } from "./migration.ts";

export const migrations: readonly Migration[] = [
  initial_schema,
  session_clients,
  partial_token_indexes,
  initial_access_token_limits,
  username_nfkc,
  mail_outbox,
  user_tokens,
  passkeys,
  groups,
  federation,
  user_email_index,
  par_dpop,
  device_authorizations,
  upstream_mfa,
  resource_servers,
  upstream_group_map,
  user_locale,
  client_first_use,
  row_versions,
  link_issuer,
  revoked_grants,
  client_secret_grace,
  saml_service_providers,
  forward_auth,
  ldap,
  job_runs,
  user_attributes,
  webhooks,
  scim,
  saml_session_participants,
  forward_auth_hosts,
  saml_encrypt,
  scim_tokens,
];

// Applied in this order: a version listed after a higher one (a merge that put 026 before 025)
// would be skipped by every database already past it, so the list must ascend.
for (const [index, migration] of migrations.entries()) {
  const before = migrations[index - 1];
  if (before !== undefined && migration.version <= before.version) throw new Error(`migration ${migration.version} is listed after ${before.version}`);
}

export const latest_version: number = migrations.reduce((max, m) => Math.max(max, m.version), 0);

/** Migrations not yet applied, in order. Raises when the database is newer than this build. */
export function pending_migrations(applied: ReadonlySet<number>): Migration[] {
  const newest = Math.max(0, ...applied);
  if (newest > latest_version) {
    throw new StoreError(`database schema version ${newest} is newer than this build knows (${latest_version}): upgrade the provider`);
  }
  return migrations.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
}

/** With `{ migrate: false }` a store only opens on an up-to-date schema. */
export function require_current_schema(version: number): void {
  if (version < latest_version) {
    throw new StoreError(`database schema is at version ${version} but this build needs ${latest_version}: run \`idp migrate\``);
  }
  if (version > latest_version) {
    throw new StoreError(`database schema version ${version} is newer than this build knows (${latest_version}): upgrade the provider`);
  }
}
