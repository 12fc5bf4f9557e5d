/**
 * Administering upstream identity providers (sign in with another provider) for the admin API:
 * created from a preset or explicit fields and checked by the rules `idp upstreams add` and the
 * config file use (federation/upstreams.ts `new_upstream`), changed by re-checking the whole
 * definition, removed with the identities linked through them (as `idp upstreams remove`).
 *
 * The client secret is write-only: accepted on create and change, sealed with AES-256-GCM under
 * IDP_SECRET_KEY (federation/secret_box.ts), never answered: the view says only whether there is one.
 */
import type { Config } from "../../config/schema.ts";
import type { NewUpstream, Store, UpstreamRow } from "../../store/types.ts";
import { StoreConflictError } from "../../store/types.ts";
import { identity_source, source_changes } from "../federation/identity_source.ts";
import { PRESETS, preset_input } from "../federation/presets.ts";
import { SecretKeyMissing } from "../federation/secret_box.ts";
import { UpstreamInputError, new_upstream, redirect_uri, type UpstreamInput } from "../federation/upstreams.ts";
import { AdminError, invalid_field } from "./errors.ts";
import { lost_write } from "./etag.ts";

/** What the admin API shows of an upstream: everything but the secret, with the redirect URI to register there. */
export type UpstreamView = Omit<UpstreamRow, "client_secret_enc" | "version"> & { has_client_secret: boolean; redirect_uri: string };

export function upstream_admin_view(config: Pick<Config, "issuer">, row: UpstreamRow): UpstreamView {
  // The version is the store's compare-and-set counter (store/types/common.ts IfVersion), not part of the view.
  const { client_secret_enc, version: _version, ...rest } = row;
  // Maps in name order: PostgreSQL's jsonb keeps its own key order, and the ETag is of this JSON.
  const sorted = <T>(map: Record<string, T>) => Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    ...rest,
    claim_mapping: sorted(row.claim_mapping),
    group_map: sorted(row.group_map),
    has_client_secret: client_secret_enc !== null,
    redirect_uri: redirect_uri(config, row.name),
  };
}

/** The fields of an upstream an administrator sets (UpstreamInput without the name). */
export type UpstreamFields = Partial<Omit<UpstreamInput, "name">>;

/** A new upstream's fields: a preset (its placeholders filled from `tenant`) under the fields sent. */
export type UpstreamCreateInput = UpstreamFields & { name: string; client_id: string; preset?: string; tenant?: string };

/** The rules' refusals in the admin API's words, naming the field. */
function checked<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof UpstreamInputError) throw invalid_field(error.field, error.message.slice(error.field.length + 2));
    if (error instanceof SecretKeyMissing) throw new AdminError("conflict", error.message, [{ field: "client_secret", message: "cannot be stored: IDP_SECRET_KEY is not set" }]);
    throw error;
  }
}

/**
 * The local groups a mapping names must exist (an upstream never creates one, federation/group_sync.ts): a typo
 * would otherwise map nobody without a word. Stored as the groups spell them.
 */
export async function existing_group_map(store: Store, group_map: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [upstream_group, local] of Object.entries(group_map)) {
    const group = await store.get_group_by_name(local);
    if (group === null) throw invalid_field("group_map", `no group "${local}" (create it first)`);
    out[upstream_group] = group.name;
  }
  return out;
}

/** The preset's fields, or invalid_request naming `preset` or `tenant`. */
function preset_fields(preset: string | undefined, tenant: string | undefined): UpstreamFields {
  if (preset === undefined) return {};
  const known = PRESETS[preset];
  if (known === undefined) throw invalid_field("preset", `unknown preset "${preset}" (${Object.keys(PRESETS).join(", ")})`);
  for (const [placeholder, meaning] of Object.entries(known.placeholders ?? {})) {
    if (placeholder === "tenant" && (tenant === undefined || tenant === "")) throw invalid_field("tenant", `is required with the preset ${preset}: ${meaning}`);
  }
  return preset_input(preset, tenant === undefined ? {} : { tenant });
}

/**
 * A new upstream's row checked by the rules (federation/upstreams.ts `new_upstream`), not stored:
 * the console's check step shows the redirect URI of a definition before it is added.
 */
export function check_upstream(config: Config, input: UpstreamCreateInput): NewUpstream {
  const { preset, tenant, ...fields } = input;
  const base = preset_fields(preset, tenant);
  const merged: UpstreamInput = { ...base, ...fields, claim_mapping: { ...(base.claim_mapping ?? {}), ...(fields.claim_mapping ?? {}) } };
  return checked(() => new_upstream(config, merged));
}

export async function create_upstream(store: Store, config: Config, input: UpstreamCreateInput): Promise<UpstreamRow> {
  const row = check_upstream(config, input);
  row.group_map = await existing_group_map(store, row.group_map);
  if ((await store.get_upstream(row.name)) !== null) throw upstream_taken(row.name);
  try {
    return await store.create_upstream(row);
  } catch (error) {
    if (error instanceof StoreConflictError) throw upstream_taken(row.name);
    throw error;
  }
}

/** The conflict of a name an upstream has already. */
export function upstream_taken(name: string): AdminError {
  return new AdminError("conflict", `an upstream named "${name}" exists already`, [{ field: "name", message: "is taken" }]);
}

/** The definition of a stored upstream as input to the rules (its secret aside: it is kept sealed). */
function input_of(row: UpstreamRow): UpstreamInput {
  const optional = (value: string | null) => value ?? undefined;
  return {
    name: row.name,
    kind: row.kind,
    display_name: row.display_name,
    issuer: optional(row.issuer),
    authorization_endpoint: optional(row.authorization_endpoint),
    token_endpoint: optional(row.token_endpoint),
    userinfo_endpoint: optional(row.userinfo_endpoint),
    emails_endpoint: optional(row.emails_endpoint),
    client_id: row.client_id,
    scopes: row.scopes,
    policy: row.policy,
    auto_link: row.auto_link,
    claim_mapping: row.claim_mapping as Record<string, string>,
    enabled: row.enabled,
    trust_upstream_mfa: row.trust_upstream_mfa,
    mfa_acr_values: row.mfa_acr_values,
    ...(row.token_endpoint_auth_method === null ? {} : { token_endpoint_auth_method: row.token_endpoint_auth_method }),
    group_map: row.group_map,
  };
}

/**
 * The upstream after a change: the fields sent replace the stored ones (null clears an optional
 * one), the result is checked whole as a new upstream would be. `client_secret`: a string sets a
 * new secret (the old one is gone at once), null removes it, absent keeps the sealed one. The
 * name cannot change: it is the redirect URI's path and the secret's additional data.
 *
 * A change of where its subjects come from (kind, issuer, subject claim: identity_source.ts)
 * while accounts are linked through the upstream is refused (conflict naming the field): the
 * same subject at the new issuer may be someone else, so the links would sign strangers in (a
 * sign-in ignores such a link anyway). With `drop_links` the change is made and those links are
 * deleted; their users sign in another way and link again. Returns how many were dropped.
 */
export async function change_upstream(
  store: Store,
  config: Config,
  row: UpstreamRow,
  patch: Record<string, unknown>,
  options: { drop_links?: boolean } = {},
): Promise<{ upstream: UpstreamRow; links_dropped: number }> {
  const { client_secret, ...fields } = patch;
  const merged: Record<string, unknown> = { ...input_of(row), ...fields };
  for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
  if (typeof client_secret === "string") merged.client_secret = client_secret;
  const checked_row: NewUpstream = checked(() => new_upstream(config, merged as UpstreamInput));
  checked_row.group_map = await existing_group_map(store, checked_row.group_map);
  let sealed: string | null;
  if (typeof client_secret === "string") sealed = checked_row.client_secret_enc;
  else if (client_secret === null || checked_row.token_endpoint_auth_method === "private_key_jwt")
    sealed = null; // private_key_jwt sends no secret
  else sealed = row.client_secret_enc;
  const moved = source_changes(row, checked_row);
  const source = identity_source(checked_row);
  if (moved.length > 0 && options.drop_links !== true) {
    const linked = await store.count_stale_identities(row.name, source);
    if (linked > 0) {
      const message = `${linked} account${linked === 1 ? " is" : "s are"} linked through this upstream under its current ${moved.join(", ")}: the same subject at the new one may be someone else. Drop the links to make this change (drop_links in the admin API, --drop-links on the command line); those users then sign in another way and link again`;
      throw new AdminError(
        "conflict",
        `upstream "${row.name}": ${message}`,
        moved.map((field) => ({ field, message: `cannot change while ${linked} account${linked === 1 ? " is" : "s are"} linked (drop the links to change it)` })),
      );
    }
  }
  const { name: _name, ...changes } = checked_row;
  // Compare-and-set on the version `row` was read at (store/types/common.ts IfVersion): the
  // change was checked against that row (its ETag), so a change written since makes it 412.
  const updated = await store.update_upstream(row.name, { ...changes, client_secret_enc: sealed }, { if_version: row.version });
  if (updated === null) throw await lost_write(store.get_upstream(row.name), "upstream", row.name);
  // After the change: a link made meanwhile under the old source is stale too (and ignored by sign-ins).
  const links_dropped = moved.length > 0 && options.drop_links === true ? await store.delete_stale_identities(row.name, source) : 0;
  return { upstream: updated, links_dropped };
}

/** The upstream of a name, or not_found. */
export async function upstream_of(store: Store, name: string): Promise<UpstreamRow> {
  const row = await store.get_upstream(name);
  if (row === null) throw new AdminError("not_found", `no upstream "${name}"`);
  return row;
}
