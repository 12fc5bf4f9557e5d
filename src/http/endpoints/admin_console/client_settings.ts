/**
 * Saving the application page's settings form (client_form.ts) by the admin API's PATCH rules
 * (admin/clients/update.ts): the ETag the form carried (If-Match, oidc/admin/etag.ts), the
 * members checked as a registration and by the operator's rules (`changed_metadata`,
 * `with_operator_settings`, `checked_subject_type`), the secret following the authentication
 * method (oidc/clients/method_secret.ts: a new one is shown once), a compare-and-set write, and
 * the outbound fence's warnings for the URLs the provider will call. Unlike a token of the API
 * (oidc/admin/lasting_power.ts), an administrator may change an admin client's credentials here,
 * with their password.
 */
import { auth_method_of, public_client } from "../../../oidc/admin/clients.ts";
import { reauthentication_problem, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of, lost_write } from "../../../oidc/admin/etag.ts";
import { admin_credentials_changed } from "../../../oidc/admin/lasting_power.ts";
import { secret_for_method } from "../../../oidc/clients/method_secret.ts";
import { client_called_urls, outbound_warnings } from "../../../oidc/outbound/preflight.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ClientMetadata, ClientRow } from "../../../store/types.ts";
import { changed_metadata, checked_subject_type, with_operator_settings } from "../admin/clients/metadata.ts";
import { settings_input, type SettingsForm } from "./client_form.ts";

export type SavedSettings = {
  client: ClientRow;
  /** The metadata members whose value changed (for the audit). */
  changed: string[];
  /** A secret made because the client moved to a secret-based method: shown once. */
  secret: string | null;
  /** URLs of the client the outbound fence would refuse (oidc/outbound/preflight.ts). */
  warnings: string[];
};

/** The members whose stored value differs between `before` and `after`. */
function changed_members(before: ClientMetadata, after: ClientMetadata): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}

export async function save_client_settings(
  idp: Provider,
  admin: ConsoleSession,
  client: ClientRow,
  form: SettingsForm,
  password: string | undefined,
  ip: string,
): Promise<SavedSettings> {
  check_if_match(form.etag === "" ? null : form.etag, etag_of(public_client(client)));
  const input = settings_input(form);
  const metadata = await with_operator_settings(idp, changed_metadata(idp, client.metadata, input), input, client.metadata);
  await checked_subject_type(idp, metadata, client.client_id);
  const credentials = admin_credentials_changed(client, metadata);
  if (credentials.length > 0) {
    const problem = await reauthentication_problem(idp, admin.user, admin.session.auth_time, password, ip);
    if (problem !== null) throw new AdminError("forbidden", `${problem} (${credentials.join(", ")} of a client with the admin API)`, [{ field: "password", message: problem }]);
  }
  const { patch, secret } = secret_for_method(client, auth_method_of(metadata), idp.now());
  // Compare-and-set on the version whose ETag the form carried (store/types/common.ts IfVersion).
  const updated = await idp.store.update_client(client.client_id, { metadata, ...patch, updated_at: idp.now() }, { if_version: client.version });
  if (updated === null) throw await lost_write(idp.store.get_client(client.client_id), "client", client.client_id);
  const warnings = await outbound_warnings(client_called_urls(updated.metadata), idp.config.outbound);
  return { client: updated, changed: changed_members(client.metadata, updated.metadata), secret, warnings };
}
