/**
 * Writes an import plan (plan.ts) to the store, or with `dry_run` only says what it would do.
 * While the plan has an error nothing is written. A username, group or client_id that exists
 * already is left as it is and reported as skipped (an import never overwrites); the groups of
 * an imported user are created when missing. Confidential clients without a secret in the file
 * get a new one, answered here once.
 */
import { random_token, sha256 } from "../crypto/secrets.ts";
import { is_foreign_hash } from "../crypto/foreign_hashes.ts";
import { StoreConflictError, type ClientMetadata, type Store, type UnixSeconds } from "../../store/types.ts";
import { redirect_uris_problem } from "../clients/redirect_uris.ts";
import type { ImportPlan, ImportSource, PlannedClient, RowError } from "./plan.ts";

export type Skipped = { at: string; name: string; reason: string };

export type ImportReport = {
  source: ImportSource;
  dry_run: boolean;
  /** False when the plan had errors: nothing was written. */
  written: boolean;
  users_created: string[];
  users_with_foreign_hash: number;
  users_without_password: string[];
  groups_created: string[];
  clients_created: { client_id: string; client_secret?: string }[];
  skipped: Skipped[];
  errors: RowError[];
  ignored: RowError[];
};

function client_metadata(client: PlannedClient): ClientMetadata {
  return {
    client_name: client.client_name,
    redirect_uris: client.redirect_uris,
    ...(client.post_logout_redirect_uris.length > 0 ? { post_logout_redirect_uris: client.post_logout_redirect_uris } : {}),
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: client.public ? "none" : "client_secret_basic",
    application_type: "web",
  };
}

export async function apply_plan(store: Store, plan: ImportPlan, options: { dry_run: boolean; now: UnixSeconds }): Promise<ImportReport> {
  const report: ImportReport = {
    source: plan.source,
    dry_run: options.dry_run,
    written: false,
    users_created: [],
    users_with_foreign_hash: 0,
    users_without_password: [],
    groups_created: [],
    clients_created: [],
    skipped: [],
    errors: plan.errors,
    ignored: plan.ignored,
  };
  if (plan.errors.length > 0) return report;
  const write = !options.dry_run;

  const group_ids = new Map<string, string>();
  for (const name of plan.groups) {
    const existing = await store.get_group_by_name(name);
    if (existing !== null) group_ids.set(name.toLowerCase(), existing.id);
    else {
      report.groups_created.push(name);
      if (write) group_ids.set(name.toLowerCase(), (await store.create_group({ name, description: `imported from ${plan.source}` })).id);
    }
  }

  for (const user of plan.users) {
    const taken = () => report.skipped.push({ at: user.at, name: user.username, reason: "a user with this username exists" });
    if ((await store.get_user_by_username(user.username)) !== null) {
      taken();
      continue;
    }
    if (write) {
      const { at: _at, groups, ...fields } = user;
      let id: string;
      try {
        id = (await store.create_user({ ...fields, created_at: options.now })).id;
      } catch (error) {
        if (error instanceof StoreConflictError) {
          taken();
          continue;
        }
        throw error;
      }
      for (const group of groups) await store.add_group_member(group_ids.get(group.toLowerCase())!, id, options.now);
    }
    report.users_created.push(user.username);
    if (is_foreign_hash(user.password_hash)) report.users_with_foreign_hash++;
    if (user.password_hash === "") report.users_without_password.push(user.username);
  }

  for (const client of plan.clients) {
    const metadata = client_metadata(client);
    const problem = redirect_uris_problem(client.redirect_uris, client.post_logout_redirect_uris, "web");
    if (problem !== null) {
      report.skipped.push({ at: client.at, name: client.client_id, reason: problem.description });
      continue;
    }
    if ((await store.get_client(client.client_id)) !== null) {
      report.skipped.push({ at: client.at, name: client.client_id, reason: "a client with this client_id exists" });
      continue;
    }
    const secret = client.public ? null : (client.secret ?? random_token(32));
    if (write) {
      await store.create_client({
        client_id: client.client_id,
        client_secret_hash: secret === null ? null : sha256(secret),
        client_secret_expires_at: 0,
        client_id_issued_at: options.now,
        client_secret_created_at: secret === null ? null : options.now,
        metadata,
      });
    }
    // A secret kept from the file is the operator's already: only a new one is shown.
    report.clients_created.push(
      secret !== null && client.secret === null ? { client_id: client.client_id, client_secret: write ? secret : "(made at import)" } : { client_id: client.client_id },
    );
  }
  report.written = write;
  return report;
}
