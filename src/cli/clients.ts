/**
 * `idp clients add|list|show|remove|rotate-secret`: relying parties registered by the operator.
 * A client secret is 256-bit random, printed once and stored only as its SHA-256 hash.
 */
import type { ClientMetadata, ClientRow, Store } from "../store/types.ts";
import { AdminError } from "../oidc/admin/errors.ts";
import { fapi_metadata_problem, with_fapi_defaults } from "../oidc/clients/fapi.ts";
import { create_client_with_secret, public_client, rotate_client_secret, set_admin, type GraceSeconds } from "../oidc/admin/clients.ts";
import { AUTH_METHODS, GRANT_TYPES, check_group_settings, client_metadata, group_flags, type GroupFlags } from "./client_metadata.ts";
import { GROUP_METADATA, group_settings, type GroupSettings } from "../oidc/claims/groups.ts";
import { must, type CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { format_time, secret_notice, write_record, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { client_called_urls } from "../oidc/outbound/preflight.ts";
import { warn_outbound } from "./outbound.ts";

// What the CLI shows of a client: the admin rules' allow-list (never a secret or token hash).
export { public_client, type PublicClient } from "../oidc/admin/clients.ts";

/** The admin flag (oidc/admin/scope.ts) set or cleared, a refusal in the CLI's words (exit 1). */
function admin_flag(metadata: ClientMetadata, on: boolean): void {
  try {
    set_admin(metadata, on);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(`--admin: ${error.message}`);
    throw error;
  }
}

/**
 * --fapi 2.0 (add, update) or off (update): the client runs the FAPI 2.0 Security Profile
 * (oidc/clients/fapi.ts), with its defaults (PS256/ES256/EdDSA signing, PAR, DPoP); metadata the profile
 * forbids is refused naming the member. Returns the metadata to store.
 */
function fapi_flag(ctx: CliContext, metadata: ClientMetadata, value: string | undefined, updating: boolean): ClientMetadata {
  if (value === undefined) return metadata;
  if (value === "off" && updating) {
    const out = { ...metadata };
    delete out.fapi_profile;
    return out;
  }
  if (value !== "2.0") throw new CliError(`--fapi "${value}" is not one of 2.0${updating ? ", off" : ""}`);
  const signing_algs = ctx.config().signing_algs;
  const profiled = with_fapi_defaults({ ...metadata, fapi_profile: "2.0" }, signing_algs);
  const problem = fapi_metadata_problem(profiled, signing_algs);
  if (problem !== null) throw new CliError(`--fapi 2.0: ${problem.field} ${problem.message}`);
  return profiled;
}

type TokenExchangeFlags = { token_exchange: string | undefined; token_exchange_from: string[]; token_exchange_resource: string[] };

const TOKEN_EXCHANGE_MODES = ["impersonation", "delegation", "both"];
const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";

/** The token exchange flags (RFC 8693) of add and update (update's --token-exchange also takes off). */
function token_exchange_flag_specs(modes: readonly string[]) {
  return {
    token_exchange: {
      type: "string",
      value: modes.join("|"),
      help: `exchange access tokens (RFC 8693; needs --grant-type ${TOKEN_EXCHANGE_GRANT}): impersonation, delegation (with an actor_token) or both`,
    },
    token_exchange_from: { type: "string", value: "CLIENT_ID|*", multiple: true, help: "a client whose access tokens it may exchange (* for any)" },
    token_exchange_resource: { type: "string", value: "URI", multiple: true, help: "a resource (idp resources add) the exchanged token may be for" },
  } as const;
}

/**
 * Sets the client's token exchange policy (grants/token_exchange.ts) from the flags; `off`
 * removes it. Operator-only, never registrable: it lets the client act as other clients' users.
 */
async function token_exchange_flags(store: Store, metadata: ClientMetadata, flags: TokenExchangeFlags, updating: boolean): Promise<boolean> {
  const { token_exchange: mode, token_exchange_from: from, token_exchange_resource: resources } = flags;
  if (mode === undefined) {
    if (from.length > 0 || resources.length > 0) throw new UsageError("--token-exchange-from and --token-exchange-resource need --token-exchange impersonation|delegation|both");
    return false;
  }
  if (updating && mode === "off") {
    delete metadata.token_exchange;
    return true;
  }
  if (!TOKEN_EXCHANGE_MODES.includes(mode)) throw new CliError(`--token-exchange "${mode}" is not one of ${[...TOKEN_EXCHANGE_MODES, ...(updating ? ["off"] : [])].join(", ")}`);
  if (!(metadata.grant_types ?? []).includes(TOKEN_EXCHANGE_GRANT))
    throw new CliError(`--token-exchange needs the client registered for the grant ${TOKEN_EXCHANGE_GRANT} (--grant-type)`);
  if ((metadata.token_endpoint_auth_method ?? "client_secret_basic") === "none") throw new CliError("--token-exchange needs an authenticating client (not --auth-method none)");
  if (from.length === 0) throw new CliError("--token-exchange needs --token-exchange-from CLIENT_ID (or *) naming whose tokens it may exchange");
  if (resources.length === 0) throw new CliError("--token-exchange needs --token-exchange-resource URI naming a registered resource");
  for (const uri of resources) {
    if ((await store.get_resource_server(uri)) === null) throw new CliError(`--token-exchange-resource: no resource "${uri}" (register it with idp resources add)`);
  }
  metadata.token_exchange = {
    subject_clients: [...new Set(from)],
    impersonation: mode !== "delegation",
    delegation: mode !== "impersonation",
    resources: [...new Set(resources)],
  };
  return true;
}

async function find_client(store: Store, client_id: string): Promise<ClientRow> {
  return must(await store.get_client(client_id), `no client "${client_id}"`);
}

/** The flags of the group settings, shared by add and update. */
const GROUP_FLAG_SPECS = {
  groups_claim: { type: "string", value: "NAME", help: "the name of the groups claim (default groups)" },
  groups_prefix: { type: "string", value: "P", help: "release only the groups whose names start with P" },
  strip_groups_prefix: { type: "boolean", help: "release the names without the prefix" },
  role: { type: "string", value: "GROUP=VALUE", multiple: true, help: 'members of GROUP get VALUE in a "roles" claim' },
  allowed_group: { type: "string", value: "G", multiple: true, help: "admit only the members of these groups" },
} as const;

/**
 * The groups that allowed_groups and roles name must exist: a typo would otherwise lock
 * everyone out (or map nobody) without a word. Names are stored as the groups spell them.
 */
async function existing_groups(store: Store, settings: GroupSettings): Promise<GroupSettings> {
  const spelled = async (name: string, flag: string) => {
    const group = await store.get_group_by_name(name);
    if (group === null) throw new CliError(`${flag}: no group "${name}" (create it with idp groups add)`);
    return group.name;
  };
  const out: GroupSettings = { ...settings };
  if (settings.allowed_groups !== undefined) {
    out.allowed_groups = [...new Set(await Promise.all(settings.allowed_groups.map((name) => spelled(name, "--allowed-group"))))];
  }
  if (settings.roles !== undefined) {
    const roles: Record<string, string> = {};
    for (const [name, role] of Object.entries(settings.roles)) roles[await spelled(name, "--role")] = role;
    out.roles = roles;
  }
  return out;
}

function group_options(flags: GroupFlags): GroupFlags {
  return {
    groups_claim: flags.groups_claim,
    groups_prefix: flags.groups_prefix,
    strip_groups_prefix: flags.strip_groups_prefix,
    role: flags.role,
    allowed_group: flags.allowed_group,
  };
}

function auth_method_of(client: ClientRow): string {
  return client.metadata.token_endpoint_auth_method ?? "client_secret_basic";
}

const ADD = {
  summary: "register a client; prints its client_id and its secret (shown only once)",
  options: {
    name: { type: "string", value: "N", required: true, help: "the application's name, shown on the consent page" },
    redirect_uri: { type: "string", value: "U", multiple: true, required: true, help: "where the authorization response goes (needed for the authorization_code grant)" },
    auth_method: { type: "string", value: AUTH_METHODS.join("|"), help: "how it authenticates at the token endpoint (default client_secret_basic; none: a public client)" },
    grant_type: { type: "string", value: "GRANT", multiple: true, help: `${GRANT_TYPES.join(", ")} (default authorization_code and refresh_token)` },
    post_logout_redirect_uri: { type: "string", value: "U", multiple: true, help: "where a logout may return" },
    skip_consent: { type: "boolean", help: "no consent page (a first-party application)" },
    scope: { type: "string", value: '"S ..."', help: "the client's registered scopes, space-separated" },
    application_type: { type: "string", value: "web|native", help: "native: an app on the user's device (default web)" },
    jwks_uri: { type: "string", value: "URL", help: "where it publishes its public keys (https)" },
    jwks_json: { type: "string", value: "JSON", help: "its public keys, a JWK Set (not with --jwks-uri)" },
    backchannel_logout_uri: { type: "string", value: "URL", help: "gets a logout token when a user's session ends (OIDC Back-Channel Logout)" },
    logo_uri: { type: "string", value: "URL", help: "its logo, on the consent page (https)" },
    policy_uri: { type: "string", value: "URL", help: "its privacy policy, linked from the consent page (https)" },
    tos_uri: { type: "string", value: "URL", help: "its terms of service, linked from the consent page (https)" },
    client_uri: { type: "string", value: "URL", help: "its home page, linked from the consent page (https)" },
    resource_server: { type: "boolean", help: "it may introspect access tokens issued to other clients (POST /introspect)" },
    ...GROUP_FLAG_SPECS,
    require_2fa: { type: "boolean", help: "every sign-in to it needs a second factor" },
    admin: { type: "boolean", help: "it may get the scope admin (the Admin API) from client_credentials" },
    require_par: { type: "boolean", help: "its authorization requests must be pushed to POST /par (RFC 9126 §6)" },
    dpop_bound: { type: "boolean", help: "its token requests must carry a DPoP proof (RFC 9449 §5.2)" },
    fapi: { type: "string", value: "2.0", help: "it runs the FAPI 2.0 Security Profile" },
    ...token_exchange_flag_specs(TOKEN_EXCHANGE_MODES),
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags }: ArgsOf<typeof ADD>): Promise<void> {
  let metadata = client_metadata({
    name: flags.name,
    redirect_uris: flags.redirect_uri,
    post_logout_redirect_uris: flags.post_logout_redirect_uri,
    auth_method: flags.auth_method,
    grant_types: flags.grant_type,
    scope: flags.scope,
    application_type: flags.application_type,
    skip_consent: flags.skip_consent,
    jwks_uri: flags.jwks_uri,
    jwks_json: flags.jwks_json,
    resource_server: flags.resource_server,
    backchannel_logout_uri: flags.backchannel_logout_uri,
    logo_uri: flags.logo_uri,
    policy_uri: flags.policy_uri,
    tos_uri: flags.tos_uri,
    client_uri: flags.client_uri,
    ...group_options(flags),
  });
  // Operator-only (never registrable over HTTP): every sign-in to this client needs a second factor.
  if (flags.require_2fa) metadata.require_2fa = true;
  // Operator-only: the client may get the admin API's scope from client_credentials.
  if (flags.admin) admin_flag(metadata, true);
  // RFC 9126 §6 and RFC 9449 §5.2 client metadata (registrable by dynamic registration too).
  if (flags.require_par) metadata.require_pushed_authorization_requests = true;
  if (flags.dpop_bound) metadata.dpop_bound_access_tokens = true;
  // FAPI 2.0 Security Profile (registrable by dynamic registration too).
  metadata = fapi_flag(ctx, metadata, flags.fapi, false);
  const store = await ctx.store();
  // Operator-only: RFC 8693 token exchange policy.
  await token_exchange_flags(store, metadata, flags, false);
  Object.assign(metadata, await existing_groups(store, group_settings(metadata)));
  const { client, secret } = await create_client_with_secret(store, metadata, Math.floor(Date.now() / 1000));
  await ctx.audit({ type: "client_registered", client_id: client.client_id, details: { client_name: metadata.client_name ?? null } });

  // Shaped like a registration response (RFC 7591 §3.2.1): the secret appears here and nowhere else.
  const shown = public_client(client);
  ctx.emit(secret === null ? shown : { ...shown, client_secret: secret }, (write) => {
    write(`Created client ${metadata.client_name}.\n\n`);
    write_record(write, secret === null ? { client_id: client.client_id } : { client_id: client.client_id, client_secret: secret });
    if (secret === null) write(`\nPublic client (${auth_method_of(client)}): no secret; it must use PKCE.\n`);
    else secret_notice(write, "client secret");
  });
  // A URL the outbound fence would refuse is said now, not found at logout time (cli/outbound.ts).
  await warn_outbound(ctx, client_called_urls(client.metadata));
}

const LIST = { summary: "list the clients" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const clients = await (await ctx.store()).list_clients();
  ctx.emit(clients.map(public_client), (write) => {
    if (clients.length === 0) return write("No clients.\n");
    write_table(
      write,
      ["client_id", "name", "auth method", "grant types", "created"],
      clients.map((c) => [c.client_id, c.metadata.client_name, auth_method_of(c), (c.metadata.grant_types ?? []).join(","), format_time(c.created_at)]),
    );
  });
}

const SHOW = { summary: "show a client's metadata (never its secret)", positionals: ["client_id"] } as const satisfies CommandSpec<OptionSpecs>;

async function show(ctx: CliContext, { positionals }: ArgsOf<typeof SHOW>): Promise<void> {
  const [client_id] = positionals as [string];
  const client = public_client(await find_client(await ctx.store(), client_id));
  ctx.emit(client, (write) =>
    write_record(write, {
      ...client,
      client_id_issued_at: format_time(client.client_id_issued_at),
      client_secret_expires_at: client.client_secret_expires_at === 0 ? "never" : format_time(client.client_secret_expires_at),
      created_at: format_time(client.created_at),
      updated_at: format_time(client.updated_at),
    }),
  );
}

const UPDATE = {
  summary: "change the settings the flags name; the rest of the metadata stays",
  positionals: ["client_id"],
  options: {
    ...GROUP_FLAG_SPECS,
    clear: { type: "string", value: GROUP_METADATA.join("|"), multiple: true, help: "remove a group setting" },
    require_2fa: { type: "string", value: "on|off", help: "every sign-in to it needs a second factor, or not" },
    admin: { type: "string", value: "on|off", help: "it may get the scope admin, or no longer (at once, tokens already issued included)" },
    fapi: { type: "string", value: "2.0|off", help: "it runs the FAPI 2.0 Security Profile, or not" },
    ...token_exchange_flag_specs([...TOKEN_EXCHANGE_MODES, "off"]),
  },
} as const satisfies CommandSpec<OptionSpecs>;

/**
 * `clients update <client_id>`: the operator-set group settings (oidc/claims/groups.ts). A flag given
 * replaces that member (--role and --allowed-group replace the whole map or list); --clear NAME
 * removes one. Other metadata is left as it is.
 */
async function update(ctx: CliContext, { flags, positionals }: ArgsOf<typeof UPDATE>): Promise<void> {
  const [client_id] = positionals as [string];
  const given = group_flags(group_options(flags));
  if (flags.require_2fa !== undefined && flags.require_2fa !== "on" && flags.require_2fa !== "off")
    throw new CliError(`--require-2fa "${flags.require_2fa}" is not one of on, off`);
  if (flags.admin !== undefined && flags.admin !== "on" && flags.admin !== "off") throw new CliError(`--admin "${flags.admin}" is not one of on, off`);
  for (const name of flags.clear) {
    if (!(GROUP_METADATA as readonly string[]).includes(name)) throw new CliError(`--clear "${name}" is not one of ${GROUP_METADATA.join(", ")}`);
    if (name in given) throw new UsageError(`--clear ${name} and a value for it: give one`);
  }
  if (
    Object.keys(given).length === 0 &&
    flags.clear.length === 0 &&
    flags.require_2fa === undefined &&
    flags.admin === undefined &&
    flags.token_exchange === undefined &&
    flags.fapi === undefined
  ) {
    throw new UsageError(
      "clients update needs a change: --groups-claim, --groups-prefix, --strip-groups-prefix, --role, --allowed-group, --require-2fa, --admin, --token-exchange, --fapi or --clear",
    );
  }
  const store = await ctx.store();
  const client = await find_client(store, client_id);
  let metadata: ClientMetadata = { ...client.metadata, ...(await existing_groups(store, given)) };
  for (const name of flags.clear) delete metadata[name];
  if (flags.require_2fa === "on") metadata.require_2fa = true;
  if (flags.require_2fa === "off") delete metadata.require_2fa;
  if (flags.admin !== undefined) admin_flag(metadata, flags.admin === "on");
  const exchange = await token_exchange_flags(store, metadata, flags, true);
  metadata = fapi_flag(ctx, metadata, flags.fapi, true);
  // Stripping needs a prefix: clearing the prefix clears the stripping with it.
  if (metadata.groups_prefix === undefined) delete metadata.groups_prefix_strip;
  check_group_settings(group_settings(metadata));
  const updated = must(await store.update_client(client.client_id, { metadata }), `no client "${client_id}"`);
  const changed = [
    ...Object.keys(given),
    ...flags.clear,
    ...(flags.require_2fa === undefined ? [] : ["require_2fa"]),
    ...(flags.admin === undefined ? [] : ["admin"]),
    ...(exchange ? ["token_exchange"] : []),
    ...(flags.fapi === undefined ? [] : ["fapi_profile"]),
  ];
  await ctx.audit({ type: "client_updated", client_id: client.client_id, details: { changed } });
  const shown = public_client(updated);
  ctx.emit(shown, (write) => {
    write(`Updated client ${updated.client_id} (${changed.join(", ")}).\n\n`);
    write_record(write, { client_id: updated.client_id, ...group_settings(updated.metadata) });
  });
  await warn_outbound(ctx, client_called_urls(updated.metadata));
}

const REMOVE = { summary: "remove a client with its grants and tokens", positionals: ["client_id"] } as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [client_id] = positionals as [string];
  const store = await ctx.store();
  const client = await find_client(store, client_id);
  if (!(await store.delete_client(client.client_id))) throw new CliError(`no client "${client_id}"`);
  await ctx.audit({ type: "client_deleted", client_id: client.client_id, details: { client_name: client.metadata.client_name ?? null } });
  ctx.emit({ removed: true, client_id: client.client_id }, (write) =>
    write(`Removed client ${client.client_id} (${client.metadata.client_name ?? "unnamed"}) with its grants and tokens.\n`),
  );
}

/** `--grace`: how long the old secret keeps working (oidc/admin/clients.ts GRACE_SECONDS). */
const GRACE: Record<string, GraceSeconds> = { "0": 0, "1h": 3600, "1d": 86400 };

const ROTATE_SECRET = {
  summary: "replace a client's secret and print the new one (once); the old one stops working, or after --grace",
  positionals: ["client_id"],
  options: {
    grace: {
      type: "string",
      value: Object.keys(GRACE).join("|"),
      help: "keep the old secret working for an hour or a day while the application moves to the new one (default 0: it stops now)",
    },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function rotate_secret(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ROTATE_SECRET>): Promise<void> {
  const [client_id] = positionals as [string];
  const given = flags.grace ?? "0";
  if (!Object.hasOwn(GRACE, given)) throw new UsageError(`--grace must be one of ${Object.keys(GRACE).join(", ")}`);
  const grace = GRACE[given]!;
  const store = await ctx.store();
  const client = await find_client(store, client_id);
  let rotated: { client: ClientRow; secret: string };
  try {
    rotated = await rotate_client_secret(store, client, Math.floor(Date.now() / 1000), grace);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
  const { client: updated, secret } = rotated;
  const until = updated.previous_secret_expires_at;
  await ctx.audit({ type: "client_secret_rotated", client_id: client.client_id, details: { grace_seconds: grace } });
  ctx.emit({ client_id: updated.client_id, client_secret: secret, client_secret_expires_at: 0, previous_secret_expires_at: until }, (write) => {
    write(`New secret for client ${updated.client_id}; ${until === null ? "the previous secret no longer works" : `the previous secret works until ${format_time(until)}`}.\n\n`);
    write_record(write, { client_id: updated.client_id, client_secret: secret });
    secret_notice(write, "client secret");
  });
}

/** The sub-commands, in the order the help lists them. */
export const clients_commands: Record<string, Command> = {
  add: command(ADD, add),
  list: command(LIST, list),
  show: command(SHOW, show),
  update: command(UPDATE, update),
  remove: command(REMOVE, remove),
  "rotate-secret": command(ROTATE_SECRET, rotate_secret),
};
