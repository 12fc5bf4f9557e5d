/**
 * `idp upstreams add|update|list|show|remove|disable|enable`: other identity providers users may sign in
 * with (oidc/federation). The client secret is read from standard input and stored encrypted
 * under IDP_SECRET_KEY; no command prints it. `add` prints the redirect URI to register at the
 * upstream.
 */
import { PRESETS, preset_input } from "../oidc/federation/presets.ts";
import { SecretKeyMissing } from "../oidc/federation/secret_box.ts";
import { AdminError } from "../oidc/admin/errors.ts";
import { change_upstream, existing_group_map } from "../oidc/admin/upstreams.ts";
import { UpstreamInputError, checked_group_map, new_upstream, redirect_uri, upstream_view, type UpstreamInput } from "../oidc/federation/upstreams.ts";
import { StoreConflictError, type Store, type UpstreamKind, type UpstreamPolicy } from "../store/types.ts";
import { must, type CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { upstream_called_urls } from "../oidc/outbound/preflight.ts";
import { warn_outbound } from "./outbound.ts";

function claim_mapping(entries: string[]): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf("=");
    if (at <= 0 || at === entry.length - 1) throw new CliError(`--claim must be LOCAL=UPSTREAM (email=mail), not "${entry}"`);
    mapping[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return mapping;
}

/** `--group-map UPSTREAM=LOCAL`: the upstream group's members join the local group (the last `=` splits: upstream names may hold one). */
function group_map(entries: string[]): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.lastIndexOf("=");
    if (at <= 0 || at === entry.length - 1) throw new CliError(`--group-map must be UPSTREAM_GROUP=LOCAL_GROUP (gitlab-org/ops=ops), not "${entry}"`);
    mapping[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return mapping;
}

const ADD = {
  summary: "add an upstream: an OpenID provider (--issuer), a preset (--preset) or an OAuth 2.0 provider (--kind oauth2)",
  positionals: ["name"],
  options: {
    client_id: { type: "string", value: "ID", required: true, help: "the client id registered at the upstream" },
    client_secret_stdin: { type: "boolean", help: "read the client secret from standard input" },
    issuer: { type: "string", value: "URL", help: "the upstream's issuer (OpenID Connect, endpoints from its discovery document)" },
    preset: { type: "string", value: Object.keys(PRESETS).join("|"), help: "a well-known provider: its issuer or endpoints, scopes and claims filled in" },
    tenant: { type: "string", value: "T", help: "the Entra ID tenant (directory id or verified domain) of --preset microsoft" },
    kind: { type: "string", value: "oidc|oauth2", help: "oauth2: OAuth 2.0 without OpenID Connect, the user read from --userinfo-endpoint (default oidc)" },
    authorization_endpoint: { type: "string", value: "URL", help: "authorization endpoint (--kind oauth2)" },
    token_endpoint: { type: "string", value: "URL", help: "token endpoint (--kind oauth2)" },
    userinfo_endpoint: { type: "string", value: "URL", help: "where the user's claims are read (--kind oauth2)" },
    emails_endpoint: { type: "string", value: "URL", help: "where the verified e-mail addresses are listed (--kind oauth2, as GitHub's /user/emails)" },
    scope: { type: "string", value: "S", multiple: true, help: "scopes to ask for (repeatable or space-separated)" },
    display_name: { type: "string", value: "N", help: 'the name on the sign-in button, e.g. "Company SSO"' },
    policy: { type: "string", value: "jit|link", help: "jit (default): a local account is created at the first sign-in; link: the user links from the account page" },
    auto_link: { type: "boolean", help: "link to the existing account with the same e-mail address (verified by the upstream and here; an active account)" },
    claim: {
      type: "string",
      value: "LOCAL=UPSTREAM",
      multiple: true,
      help: "read the local claim from the upstream's (subject, name, email, email_verified, picture, preferred_username, groups)",
    },
    group_map: { type: "string", value: "UPSTREAM_GROUP=LOCAL_GROUP", multiple: true, help: "members of the upstream group are members of the local group" },
    trust_upstream_mfa: { type: "boolean", help: "the upstream's multi-factor sign-in stands in for the local second factor" },
    mfa_acr: { type: "string", value: "ACR", multiple: true, help: "an acr value of the upstream that counts as multi-factor (with --trust-upstream-mfa)" },
    auth: { type: "string", value: "private_key_jwt", help: "authenticate at the upstream with an assertion signed by our key instead of a secret" },
    disabled: { type: "boolean", help: "add it disabled: not offered until idp upstreams enable" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ADD>): Promise<void> {
  const [name] = positionals as [string];
  if (flags.client_id === undefined) throw new CliError("--client-id is required (the client id registered at the upstream)");
  let preset = {};
  if (flags.preset !== undefined) {
    try {
      preset = preset_input(flags.preset, flags.tenant === undefined ? {} : { tenant: flags.tenant });
    } catch (error) {
      throw new CliError(`--preset: ${(error as Error).message}`);
    }
  }
  const given: Partial<UpstreamInput> = {
    ...(flags.kind === undefined ? {} : { kind: flags.kind as UpstreamKind }),
    ...(flags.issuer === undefined ? {} : { issuer: flags.issuer }),
    ...(flags.authorization_endpoint === undefined ? {} : { authorization_endpoint: flags.authorization_endpoint }),
    ...(flags.token_endpoint === undefined ? {} : { token_endpoint: flags.token_endpoint }),
    ...(flags.userinfo_endpoint === undefined ? {} : { userinfo_endpoint: flags.userinfo_endpoint }),
    ...(flags.emails_endpoint === undefined ? {} : { emails_endpoint: flags.emails_endpoint }),
    ...(flags.scope.length === 0 ? {} : { scopes: flags.scope.flatMap((s) => s.split(/\s+/)).filter(Boolean) }),
    ...(flags.display_name === undefined ? {} : { display_name: flags.display_name }),
    ...(flags.policy === undefined ? {} : { policy: flags.policy as UpstreamPolicy }),
  };
  const base = preset as Partial<UpstreamInput>;
  const input: UpstreamInput = {
    ...base,
    ...given,
    name,
    client_id: flags.client_id,
    claim_mapping: { ...(base.claim_mapping ?? {}), ...claim_mapping(flags.claim) },
    auto_link: flags.auto_link,
    enabled: !flags.disabled,
    trust_upstream_mfa: flags.trust_upstream_mfa === true,
    ...(flags.group_map.length === 0 ? {} : { group_map: group_map(flags.group_map) }),
    ...(flags.mfa_acr.length === 0 ? {} : { mfa_acr_values: flags.mfa_acr }),
    ...(flags.auth === undefined ? {} : { token_endpoint_auth_method: flags.auth }),
    ...(flags.client_secret_stdin ? { client_secret: await ctx.read_stdin() } : {}),
  };
  if (flags.client_secret_stdin && input.client_secret === "") throw new CliError("--client-secret-stdin: standard input is empty");
  const config = ctx.config();
  let row;
  try {
    row = new_upstream(config, input);
  } catch (error) {
    if (error instanceof UpstreamInputError) throw new CliError(error.message);
    if (error instanceof SecretKeyMissing) throw new CliError(error.message);
    throw error;
  }
  const store = await ctx.store();
  row.group_map = await existing_groups(store, row.group_map);
  let created;
  try {
    created = await store.create_upstream(row);
  } catch (error) {
    if (error instanceof StoreConflictError) throw new CliError(`an upstream named "${name}" exists already (remove it first)`);
    throw error;
  }
  await ctx.audit({ type: "upstream_created", details: { upstream: name, kind: created.kind } });
  const view = upstream_view(config, created);
  ctx.emit(view, (write) => {
    write(`Added upstream ${name} (${created.kind}, ${created.display_name}).\n`);
    write(`Register this redirect URI at the upstream: ${redirect_uri(config, name)}\n`);
  });
  // Its issuer and endpoints go through the outbound fence: what it would refuse is said now (cli/outbound.ts).
  await warn_outbound(ctx, upstream_called_urls(created));
}

const LIST = { summary: "list the upstreams" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const config = ctx.config();
  const rows = await (await ctx.store()).list_upstreams();
  ctx.emit(
    rows.map((row) => upstream_view(config, row)),
    (write) => {
      if (rows.length === 0) return write("No upstreams.\n");
      write_table(
        write,
        ["name", "kind", "display name", "enabled", "policy", "auto-link", "created"],
        rows.map((row) => [row.name, row.kind, row.display_name, row.enabled ? "yes" : "no", row.policy, row.auto_link ? "yes" : "no", format_time(row.created_at)]),
      );
    },
  );
}

const SHOW = { summary: "show an upstream and the redirect URI to register there (never the secret)", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

async function show(ctx: CliContext, { positionals }: ArgsOf<typeof SHOW>): Promise<void> {
  const [name] = positionals as [string];
  const config = ctx.config();
  const row = must(await (await ctx.store()).get_upstream(name), `no upstream "${name}"`);
  const view = upstream_view(config, row);
  ctx.emit(view, (write) => {
    for (const [key, value] of Object.entries(view)) write(`${key}: ${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}\n`);
  });
}

const REMOVE = { summary: "remove an upstream and unlink every account linked through it", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [name] = positionals as [string];
  if (!(await (await ctx.store()).delete_upstream(name))) throw new CliError(`no upstream "${name}"`);
  await ctx.audit({ type: "upstream_deleted", details: { upstream: name } });
  ctx.emit({ removed: true, name }, (write) => write(`Removed upstream ${name} and the accounts linked through it.\n`));
}

const DISABLE = { summary: "hide an upstream from the sign-in page and refuse sign-ins through it", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;
const ENABLE = { summary: "offer a disabled upstream again", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

function set_enabled(enabled: boolean): (ctx: CliContext, args: ArgsOf<typeof ENABLE>) => Promise<void> {
  return async (ctx, { positionals }) => {
    const [name] = positionals as [string];
    const row = must(await (await ctx.store()).update_upstream(name, { enabled }), `no upstream "${name}"`);
    await ctx.audit({ type: enabled ? "upstream_enabled" : "upstream_disabled", details: { upstream: name } });
    ctx.emit(upstream_view(ctx.config(), row), (write) => write(`${enabled ? "Enabled" : "Disabled"} upstream ${name}.\n`));
  };
}

const GROUP_MAP = {
  summary: "replace the upstream's group mapping (none: clear it)",
  positionals: ["name"],
  rest: "UPSTREAM_GROUP=LOCAL_GROUP",
} as const satisfies CommandSpec<OptionSpecs>;

/** `group-map NAME [UPSTREAM=LOCAL ...]`: replaces the upstream's group mapping (none clears it). */
async function set_group_map(ctx: CliContext, { positionals }: ArgsOf<typeof GROUP_MAP>): Promise<void> {
  const [name, ...entries] = positionals;
  if (name === undefined) throw new CliError("missing <name>");
  const store = await ctx.store();
  const current = must(await store.get_upstream(name), `no upstream "${name}"`);
  let checked;
  try {
    checked = checked_group_map(group_map(entries));
  } catch (error) {
    if (error instanceof UpstreamInputError) throw new CliError(error.message);
    throw error;
  }
  const row = must(await store.update_upstream(current.name, { group_map: await existing_groups(store, checked) }), `no upstream "${name}"`);
  await ctx.audit({ type: "upstream_updated", details: { upstream: name, group_map: row.group_map } });
  ctx.emit(upstream_view(ctx.config(), row), (write) => {
    const pairs = Object.entries(row.group_map);
    write(pairs.length === 0 ? `Upstream ${name} maps no groups.\n` : `Upstream ${name} maps ${pairs.map(([u, l]) => `${u} → ${l}`).join(", ")}.\n`);
  });
}

/**
 * `update NAME [--issuer URL] [--kind K] [--claim LOCAL=UPSTREAM ...] … [--drop-links]`: changes
 * the fields given (a --claim joins the stored mapping), checked whole by the admin API's rule
 * (oidc/admin/upstreams.ts change_upstream). A new issuer, kind or subject claim while accounts
 * are linked is refused unless --drop-links (the links go; the audit says how many).
 */
const UPDATE = {
  summary: "change an upstream's endpoints, client, scopes, policy or claims (the fields given; the rest stay)",
  positionals: ["name"],
  options: {
    kind: ADD.options.kind,
    issuer: ADD.options.issuer,
    authorization_endpoint: ADD.options.authorization_endpoint,
    token_endpoint: ADD.options.token_endpoint,
    userinfo_endpoint: ADD.options.userinfo_endpoint,
    emails_endpoint: ADD.options.emails_endpoint,
    client_id: { type: "string", value: "ID", help: "the client id registered at the upstream" },
    client_secret_stdin: ADD.options.client_secret_stdin,
    scope: ADD.options.scope,
    display_name: ADD.options.display_name,
    policy: ADD.options.policy,
    claim: ADD.options.claim,
    mfa_acr: ADD.options.mfa_acr,
    auth: ADD.options.auth,
    drop_links: {
      type: "boolean",
      help: "allow a change of issuer, kind, user endpoint or subject claim while users have linked accounts: the links are dropped (audited), those users link again",
    },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function update(ctx: CliContext, { flags, positionals }: ArgsOf<typeof UPDATE>): Promise<void> {
  const [name] = positionals as [string];
  const store = await ctx.store();
  const current = must(await store.get_upstream(name), `no upstream "${name}"`);
  const patch: Record<string, unknown> = {};
  for (const field of ["kind", "issuer", "authorization_endpoint", "token_endpoint", "userinfo_endpoint", "emails_endpoint", "client_id", "display_name", "policy"] as const) {
    if (flags[field] !== undefined) patch[field] = flags[field];
  }
  if (flags.scope.length > 0) patch.scopes = flags.scope.flatMap((s) => s.split(/\s+/)).filter(Boolean);
  if (flags.claim.length > 0) patch.claim_mapping = { ...current.claim_mapping, ...claim_mapping(flags.claim) };
  if (flags.mfa_acr.length > 0) patch.mfa_acr_values = flags.mfa_acr;
  if (flags.auth !== undefined) patch.token_endpoint_auth_method = flags.auth;
  if (flags.client_secret_stdin) {
    patch.client_secret = await ctx.read_stdin();
    if (patch.client_secret === "") throw new CliError("--client-secret-stdin: standard input is empty");
  }
  if (Object.keys(patch).length === 0) throw new CliError("nothing to change: give the fields to change (idp upstreams --help)");
  let changed;
  try {
    changed = await change_upstream(store, ctx.config(), current, patch, { drop_links: flags.drop_links });
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
  const { upstream: row, links_dropped } = changed;
  await ctx.audit({ type: "upstream_updated", details: { upstream: name, changed: Object.keys(patch), ...(flags.drop_links ? { links_dropped } : {}) } });
  ctx.emit(upstream_view(ctx.config(), row), (write) => {
    write(`Updated upstream ${name}.\n`);
    if (links_dropped > 0) write(`Dropped ${links_dropped} linked account${links_dropped === 1 ? "" : "s"}: those users sign in another way and link ${row.display_name} again.\n`);
  });
}

/** The local groups of a mapping must exist, as the admin API checks (oidc/admin/upstreams.ts). */
async function existing_groups(store: Store, mapping: Record<string, string>): Promise<Record<string, string>> {
  try {
    return await existing_group_map(store, mapping);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(`--group-map: ${error.errors[0]?.message ?? error.message}`);
    throw error;
  }
}

/** The sub-commands, in the order the help lists them. */
export const upstreams_commands: Record<string, Command> = {
  add: command(ADD, add),
  update: command(UPDATE, update),
  "group-map": command(GROUP_MAP, set_group_map),
  list: command(LIST, list),
  show: command(SHOW, show),
  remove: command(REMOVE, remove),
  disable: command(DISABLE, set_enabled(false)),
  enable: command(ENABLE, set_enabled(true)),
};
