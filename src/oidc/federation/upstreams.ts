/**
 * Upstream identity providers as the operator configures them (CLI, config): validation of a new
 * upstream, its redirect URI, and the sign-in buttons. The sign-in itself is in flow.ts.
 */
import type { Provider } from "../provider.ts";
import type { Config } from "../../config/schema.ts";
import type { JsonObject, NewUpstream, UpstreamKind, UpstreamPolicy, UpstreamRow } from "../../store/types.ts";
import { seal_secret } from "./secret_box.ts";

/** A path segment: lower-case letters, digits and hyphens. */
export const UPSTREAM_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Local claim → upstream claim, unless the operator maps it otherwise. */
export const DEFAULT_CLAIM_MAPPING: Record<string, string> = {
  subject: "sub",
  name: "name",
  email: "email",
  email_verified: "email_verified",
  picture: "picture",
  preferred_username: "preferred_username",
  groups: "groups",
};

const MAPPED_CLAIMS = Object.keys(DEFAULT_CLAIM_MAPPING);

/** The `login_hint` prefix that sends the browser straight to one upstream (`idp:NAME`). */
export const LOGIN_HINT_UPSTREAM_PREFIX = "idp:";

export function redirect_uri(config: Pick<Config, "issuer">, name: string): string {
  return `${config.issuer}/federation/${name}/callback`;
}

export function start_url(idp: Provider, name: string, interaction_id: string | null): string {
  const base = `${idp.config.issuer}/federation/${name}/start`;
  return interaction_id === null ? base : `${base}?interaction=${encodeURIComponent(interaction_id)}`;
}

/** One field error of an upstream definition, naming the field. */
export class UpstreamInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

export type UpstreamInput = {
  name: string;
  kind?: UpstreamKind;
  display_name?: string;
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  userinfo_endpoint?: string;
  emails_endpoint?: string;
  client_id: string;
  client_secret?: string;
  scopes?: string[];
  policy?: UpstreamPolicy;
  auto_link?: boolean;
  claim_mapping?: Record<string, string>;
  enabled?: boolean;
  /**
   * Default false: the local second factor is asked for after the upstream's sign-in. True lets the
   * upstream's multi-factor sign-in stand in for it (an operator's explicit trust, per upstream).
   */
  trust_upstream_mfa?: boolean;
  /** The upstream's acr values that count as our `mfa`. */
  mfa_acr_values?: string[];
  /** "private_key_jwt": authenticate at the upstream with an assertion signed by our key (no secret). */
  token_endpoint_auth_method?: string;
  /** Upstream group → local group name; the only memberships this upstream's sign-ins change. Default none. */
  group_map?: Record<string, string>;
};

/** The longest upstream group name kept in a mapping (GitLab group paths reach 255). */
const MAX_UPSTREAM_GROUP = 255;

function url_field(field: string, value: string | undefined, required: boolean): string | null {
  if (value === undefined || value === "") {
    if (required) throw new UpstreamInputError(field, "is required");
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UpstreamInputError(field, `"${value}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UpstreamInputError(field, "must be an https URL");
  if (url.hash !== "" || url.username !== "" || url.password !== "") throw new UpstreamInputError(field, "must have no fragment and no credentials");
  return value;
}

/** An upstream's group mapping, checked (UpstreamInputError names `group_map`). */
export function checked_group_map(input: Record<string, string> | undefined): Record<string, string> {
  const group_map: Record<string, string> = {};
  for (const [upstream_group, local_group] of Object.entries(input ?? {})) {
    if (upstream_group === "" || upstream_group.length > MAX_UPSTREAM_GROUP)
      throw new UpstreamInputError("group_map", `"${upstream_group}" must be an upstream group name of 1–${MAX_UPSTREAM_GROUP} characters`);
    if (typeof local_group !== "string" || local_group === "") throw new UpstreamInputError("group_map", `"${upstream_group}" must name a local group`);
    group_map[upstream_group] = local_group;
  }
  return group_map;
}

/** The row to store for a new upstream (secret encrypted); UpstreamInputError names the bad field. */
export function new_upstream(config: Config, input: UpstreamInput): NewUpstream {
  if (!UPSTREAM_NAME.test(input.name)) throw new UpstreamInputError("name", "must be 1–63 lower-case letters, digits or hyphens, starting with a letter or digit");
  const kind = input.kind ?? "oidc";
  if (kind !== "oidc" && kind !== "oauth2") throw new UpstreamInputError("kind", "must be oidc or oauth2");
  if (input.client_id === "") throw new UpstreamInputError("client_id", "is required");
  const policy = input.policy ?? "jit";
  if (policy !== "jit" && policy !== "link") throw new UpstreamInputError("policy", "must be jit or link");
  const mapping = { ...DEFAULT_CLAIM_MAPPING, ...(kind === "oauth2" ? { subject: "id" } : {}), ...(input.claim_mapping ?? {}) };
  for (const [local, upstream] of Object.entries(mapping)) {
    if (!MAPPED_CLAIMS.includes(local)) throw new UpstreamInputError("claim_mapping", `"${local}" is not a mapped claim (${MAPPED_CLAIMS.join(", ")})`);
    if (typeof upstream !== "string" || upstream === "") throw new UpstreamInputError("claim_mapping", `"${local}" must name an upstream claim`);
  }
  const scopes = input.scopes ?? (kind === "oidc" ? ["openid", "email", "profile"] : []);
  if (kind === "oidc" && !scopes.includes("openid")) throw new UpstreamInputError("scopes", "an OpenID Connect upstream needs the scope openid");
  const issuer = url_field("issuer", input.issuer, kind === "oidc");
  const mfa_acr_values = input.mfa_acr_values ?? [];
  for (const value of mfa_acr_values) {
    if (typeof value !== "string" || value === "" || value.length > 255 || /\s/.test(value))
      throw new UpstreamInputError("mfa_acr_values", `"${String(value)}" must be an acr value: 1–255 characters, no spaces`);
  }
  const group_map = checked_group_map(input.group_map);
  const auth = input.token_endpoint_auth_method;
  if (auth !== undefined && auth !== "private_key_jwt" && auth !== "client_secret_post")
    throw new UpstreamInputError("token_endpoint_auth_method", `"${auth}" must be client_secret_post or private_key_jwt`);
  if (auth === "private_key_jwt" && input.client_secret !== undefined && input.client_secret !== "")
    throw new UpstreamInputError("client_secret", "is not used with private_key_jwt (the upstream checks our signature with our JWKS)");
  const row: NewUpstream = {
    name: input.name,
    kind,
    display_name: (input.display_name ?? input.name).trim() || input.name,
    issuer,
    authorization_endpoint: url_field("authorization_endpoint", input.authorization_endpoint, kind === "oauth2"),
    token_endpoint: url_field("token_endpoint", input.token_endpoint, kind === "oauth2"),
    userinfo_endpoint: url_field("userinfo_endpoint", input.userinfo_endpoint, kind === "oauth2"),
    emails_endpoint: url_field("emails_endpoint", input.emails_endpoint, false),
    client_id: input.client_id,
    client_secret_enc: input.client_secret === undefined || input.client_secret === "" ? null : seal_secret(config.federation.secret_key, input.name, input.client_secret),
    scopes,
    policy,
    auto_link: input.auto_link ?? false,
    claim_mapping: mapping as JsonObject,
    enabled: input.enabled ?? true,
    trust_upstream_mfa: input.trust_upstream_mfa ?? false,
    mfa_acr_values: [...new Set(mfa_acr_values)],
    token_endpoint_auth_method: auth === "private_key_jwt" ? "private_key_jwt" : null,
    group_map,
  };
  return row;
}

/** What the CLI and `--json` show of an upstream: never the secret, only whether there is one. */
export function upstream_view(config: Config, row: UpstreamRow): Record<string, unknown> {
  const { client_secret_enc, version: _version, ...rest } = row;
  return { ...rest, client_secret: client_secret_enc === null ? null : "(encrypted)", redirect_uri: redirect_uri(config, row.name) };
}

/** The sign-in page's buttons: one per enabled upstream. */
export async function upstream_buttons(idp: Provider, interaction_id: string | null): Promise<{ label: string; href: string }[]> {
  const rows = await idp.store.list_upstreams();
  return rows.filter((row) => row.enabled).map((row) => ({ label: row.display_name, href: start_url(idp, row.name, interaction_id) }));
}

/** `login_hint=idp:NAME` names an enabled upstream to go to directly; null otherwise. */
export async function hinted_upstream(idp: Provider, login_hint: string | null | undefined): Promise<string | null> {
  if (login_hint === null || login_hint === undefined || !login_hint.startsWith(LOGIN_HINT_UPSTREAM_PREFIX)) return null;
  const row = await idp.store.get_upstream(login_hint.slice(LOGIN_HINT_UPSTREAM_PREFIX.length));
  return row?.enabled ? row.name : null;
}

/** The account page's list: the user's linked upstream accounts, and the upstreams to link. */
export async function identities_of(
  idp: Provider,
  user_id: string,
): Promise<{ linked: { upstream: string; label: string; subject: string; email: string | null }[]; available: { name: string; label: string; href: string }[] }> {
  const rows = await idp.store.list_upstreams();
  const label = (name: string) => rows.find((row) => row.name === name)?.display_name ?? name;
  const linked = (await idp.store.list_identities_for_user(user_id)).map((identity) => ({
    upstream: identity.upstream,
    label: label(identity.upstream),
    subject: identity.subject,
    email: identity.email,
  }));
  const available = rows
    .filter((row) => row.enabled && !linked.some((identity) => identity.upstream === row.name))
    .map((row) => ({ name: row.name, label: row.display_name, href: start_url(idp, row.name, null) }));
  return { linked, available };
}

/**
 * Whether the user keeps a way to sign in without this linked identity: a password, a passkey,
 * or another linked identity (never unlink the last way in).
 */
export async function can_unlink(idp: Provider, user_id: string, upstream: string, subject: string): Promise<boolean> {
  const user = await idp.store.get_user_by_id(user_id);
  if (user === null) return false;
  if (user.password_hash !== "") return true;
  if ((await idp.store.count_passkeys_for_user(user_id)) > 0) return true;
  const others = (await idp.store.list_identities_for_user(user_id)).filter((identity) => identity.upstream !== upstream || identity.subject !== subject);
  return others.length > 0;
}
