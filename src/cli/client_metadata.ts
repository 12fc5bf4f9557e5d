/**
 * Builds and checks the metadata of a client added from the command line (`idp clients add`),
 * with the same vocabulary as dynamic registration (RFC 7591 §2, OIDC Registration §2).
 */
import type { ClientMetadata, JsonObject } from "../store/types.ts";
import { CliError, UsageError } from "./errors.ts";
import { redirect_uris_problem, web_url_problem, type ApplicationType } from "../oidc/clients/redirect_uris.ts";
import { backchannel_uri_problem } from "../oidc/logout/backchannel.ts";
import { public_jwks_problem } from "../oidc/clients/public_jwks.ts";
import { group_settings_problem, type GroupSettings } from "../oidc/claims/groups.ts";
import { GRANT_TYPES, TOKEN_AUTH_METHODS } from "../oidc/discovery/metadata.ts";
import { operator_metadata_problem } from "../oidc/admin/clients.ts";
import { DISPLAY_LINKS } from "../oidc/clients/metadata.ts";

/** The client authentication methods and grant types the provider accepts: discovery's lists (oidc/discovery/metadata.ts). */
export { TOKEN_AUTH_METHODS as AUTH_METHODS, GRANT_TYPES } from "../oidc/discovery/metadata.ts";
export type AuthMethod = (typeof TOKEN_AUTH_METHODS)[number];
export type GrantType = (typeof GRANT_TYPES)[number];

export const DEFAULT_GRANT_TYPES: readonly GrantType[] = ["authorization_code", "refresh_token"];

/** Methods whose client holds a shared secret (the ones `rotate-secret` applies to). */
export { SECRET_AUTH_METHODS } from "../oidc/admin/clients.ts";

/** The flag of each member `operator_metadata_problem` may name, for messages. */
const OPERATOR_FLAG: Record<string, string> = { grant_types: "grant-type", logo_uri: "logo-uri", policy_uri: "policy-uri", tos_uri: "tos-uri", client_uri: "client-uri" };

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** JWK members that only a private (or symmetric) key has (RFC 7518 §6). */

export type ClientAddOptions = {
  name: string | undefined;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  auth_method: string | undefined;
  grant_types: string[];
  scope: string | undefined;
  application_type: string | undefined;
  skip_consent: boolean;
  jwks_uri: string | undefined;
  jwks_json: string | undefined;
  /** May introspect other clients' access tokens (introspect.ts); never registrable over HTTP. */
  resource_server: boolean;
  backchannel_logout_uri: string | undefined;
  /** OIDC Registration §2 display metadata, shown on the consent page: https URLs. */
  logo_uri?: string | undefined;
  policy_uri?: string | undefined;
  tos_uri?: string | undefined;
  client_uri?: string | undefined;
} & GroupFlags;

/** The group flags of `clients add` and `clients update` (oidc/claims/groups.ts); operator-set only. */
export type GroupFlags = {
  groups_claim: string | undefined;
  groups_prefix: string | undefined;
  strip_groups_prefix: boolean;
  /** `GROUP=VALUE`, repeated. */
  role: string[];
  allowed_group: string[];
};

/** The flag of each group metadata member, for messages. */
const GROUP_FLAG: Record<string, string> = {
  groups_claim: "--groups-claim",
  groups_prefix: "--groups-prefix",
  groups_prefix_strip: "--strip-groups-prefix",
  roles: "--role",
  allowed_groups: "--allowed-group",
};

/** The group settings the flags give (only the members a flag was given for); exit 1 on a bad value. */
export function group_flags(flags: GroupFlags): GroupSettings {
  const settings: GroupSettings = {};
  if (flags.groups_claim !== undefined) settings.groups_claim = flags.groups_claim;
  if (flags.groups_prefix !== undefined) settings.groups_prefix = flags.groups_prefix;
  if (flags.strip_groups_prefix) settings.groups_prefix_strip = true;
  if (flags.role.length > 0) {
    const roles: Record<string, string> = {};
    for (const entry of flags.role) {
      const eq = entry.indexOf("=");
      if (eq <= 0 || eq === entry.length - 1) throw new CliError(`--role "${entry}" must be GROUP=VALUE (e.g. --role grafana-admins=Admin)`);
      roles[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    settings.roles = roles;
  }
  if (flags.allowed_group.length > 0) settings.allowed_groups = [...new Set(flags.allowed_group)];
  return settings;
}

/** Checks merged group settings with the rules of oidc/claims/groups.ts, naming the flag; exit 1. */
export function check_group_settings(settings: GroupSettings): void {
  const problem = group_settings_problem(settings);
  if (problem === null) return;
  // Longest first: "groups_prefix_strip ..." is not about groups_prefix.
  const member = Object.keys(GROUP_FLAG)
    .sort((a, b) => b.length - a.length)
    .find((name) => problem.startsWith(name));
  throw new CliError(member === undefined ? problem : `${GROUP_FLAG[member]}: ${problem}`);
}

function one_of<T extends string>(option: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CliError(`--${option} "${value}" is not one of ${allowed.join(", ")}`);
}

function parse_jwks(json: string): { keys: JsonObject[] } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new CliError("--jwks-json is not valid JSON");
  }
  const problem = public_jwks_problem(value);
  if (problem !== null) throw new CliError(`--jwks-json ${problem}`);
  return value as { keys: JsonObject[] };
}

/** Checks the options of `clients add` and returns the metadata to store; exit 1/2 on a problem. */
export function client_metadata(options: ClientAddOptions): ClientMetadata {
  if (options.name === undefined || options.name.trim() === "") throw new UsageError("clients add needs --name");
  const auth_method = one_of<AuthMethod>("auth-method", options.auth_method ?? "client_secret_basic", TOKEN_AUTH_METHODS);
  const application_type = one_of<ApplicationType>("application-type", options.application_type ?? "web", ["web", "native"]);
  const grant_types = [...new Set(options.grant_types.length ? options.grant_types : DEFAULT_GRANT_TYPES)].map((g) => one_of<GrantType>("grant-type", g, GRANT_TYPES));
  const redirect_uris = [...new Set(options.redirect_uris)];
  const post_logout_redirect_uris = [...new Set(options.post_logout_redirect_uris)];

  const uses_code = grant_types.includes("authorization_code");
  if (uses_code && redirect_uris.length === 0) {
    throw new UsageError("clients add needs at least one --redirect-uri for the authorization_code grant");
  }
  // The operator's rules the admin API and the console keep too (oidc/admin/clients.ts): refresh
  // tokens come with codes or device authorizations; the consent page shows https links only.
  const operator_problem = operator_metadata_problem({ grant_types, ...display_links(options) });
  if (operator_problem !== null) throw new CliError(`--${OPERATOR_FLAG[operator_problem.field]} ${operator_problem.message}`);
  if (grant_types.includes("client_credentials") && auth_method === "none") {
    throw new CliError("--grant-type client_credentials needs an authenticating client (not --auth-method none)");
  }
  // The check and the words of registration (POST /register), so the two never disagree.
  const uris_problem = redirect_uris_problem(redirect_uris, post_logout_redirect_uris, application_type);
  if (uris_problem !== null) throw new CliError(uris_problem.description);

  let scope: string | undefined;
  if (options.scope !== undefined) {
    const tokens = options.scope.split(/\s+/).filter(Boolean);
    if (tokens.length === 0) throw new CliError("--scope must name at least one scope");
    const bad = tokens.find((t) => !SCOPE_TOKEN.test(t));
    if (bad) throw new CliError(`--scope: "${bad}" is not a valid scope name`);
    scope = [...new Set(tokens)].join(" ");
  }

  const metadata: ClientMetadata = {
    client_name: options.name.trim(),
    application_type,
    redirect_uris,
    grant_types,
    response_types: uses_code ? ["code"] : [],
    token_endpoint_auth_method: auth_method,
  };
  if (post_logout_redirect_uris.length) metadata.post_logout_redirect_uris = post_logout_redirect_uris;
  if (scope) metadata.scope = scope;
  if (options.skip_consent) metadata.skip_consent = true;
  if (options.resource_server) {
    // RFC 7662 §2.1: introspection needs an authenticated caller.
    if (auth_method === "none") throw new CliError("--resource-server needs an authenticating client (not --auth-method none)");
    metadata.resource_server = true;
  }
  // OIDC Registration §2: shown on the consent page (oidc/clients/metadata.ts safe_link), checked above.
  Object.assign(metadata, display_links(options));
  if (options.backchannel_logout_uri !== undefined) {
    const uri = options.backchannel_logout_uri;
    // The rule the provider applies when it calls the URI (OIDC Back-Channel Logout §2.2: no fragment).
    const problem = backchannel_uri_problem(uri);
    if (problem) throw new CliError(`--backchannel-logout-uri "${uri}" ${problem}`);
    metadata.backchannel_logout_uri = uri;
  }

  if (options.jwks_uri !== undefined && options.jwks_json !== undefined) {
    throw new UsageError("give --jwks-uri or --jwks-json, not both");
  }
  if (options.jwks_uri !== undefined) {
    const problem = web_url_problem(options.jwks_uri, { https_only: true });
    if (problem) throw new CliError(`--jwks-uri "${options.jwks_uri}" ${problem}`);
    metadata.jwks_uri = options.jwks_uri;
  }
  if (options.jwks_json !== undefined) metadata.jwks = parse_jwks(options.jwks_json);
  const groups = group_flags(options);
  check_group_settings(groups);
  Object.assign(metadata, groups);
  if (auth_method === "private_key_jwt" && !metadata.jwks && !metadata.jwks_uri) {
    throw new UsageError("--auth-method private_key_jwt needs the client's public keys: --jwks-uri or --jwks-json");
  }
  return metadata;
}

/** The display links given (OIDC Registration §2), as metadata members. */
function display_links(options: ClientAddOptions): Partial<Record<(typeof DISPLAY_LINKS)[number], string>> {
  const links: Partial<Record<(typeof DISPLAY_LINKS)[number], string>> = {};
  for (const field of DISPLAY_LINKS) if (options[field] !== undefined) links[field] = options[field];
  return links;
}
