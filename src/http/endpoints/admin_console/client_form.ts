/**
 * The settings form of the application page (client.ts, saved by client_settings.ts): its fields
 * as the request contract reads them, the form as the page shows it (from the stored client, or
 * as typed when a change was refused, so nothing typed is lost), and the change it asks for in
 * the admin API's vocabulary (ClientInputSchema, RFC 7591 §2 members and the operator's settings:
 * null removes a member). No rule is written here: the rules are the API's
 * (admin/clients/metadata.ts); this module only turns text fields into those members.
 */
import { z } from "zod";
import { auth_method_of } from "../../../oidc/admin/clients.ts";
import { AdminError, type FieldProblem } from "../../../oidc/admin/errors.ts";
import type { ClientMetadata, ClientRow } from "../../../store/types.ts";
import { ClientInputSchema } from "../admin/schemas.ts";

const on = z.literal("on").optional();
const line = z.string().max(2048).optional();
const block = z.string().max(20000).optional();

/** RFC 8693 token exchange as the form offers it: off, or which of impersonation and delegation. */
export const EXCHANGE_MODES = ["off", "impersonation", "delegation", "both"] as const;
export type ExchangeMode = (typeof EXCHANGE_MODES)[number];

/** The fields of the settings form (the request contract of client_action.ts includes them). */
export const CLIENT_SETTINGS_FIELDS = {
  etag: z.string().max(64).optional(),
  client_name: z.string().max(256).optional(),
  client_uri: line,
  logo_uri: line,
  policy_uri: line,
  tos_uri: line,
  application_type: z.string().max(16).optional(),
  redirect_uris: block,
  post_logout_redirect_uris: block,
  backchannel_logout_uri: line,
  backchannel_logout_session_required: on,
  token_endpoint_auth_method: z.string().max(64).optional(),
  jwks_uri: line,
  jwks: z.string().max(65536).optional(),
  id_token_signed_response_alg: z.string().max(32).optional(),
  // One checkbox checked arrives as a string, several as a list.
  grant_types: z.union([z.string().max(128), z.array(z.string().max(128)).max(10)]).optional(),
  scope: z.string().max(1000).optional(),
  skip_consent: on,
  require_2fa: on,
  resource_server: on,
  require_pushed_authorization_requests: on,
  dpop_bound_access_tokens: on,
  fapi_profile: on,
  allowed_groups: z.string().max(6500).optional(),
  groups_claim: z.string().max(256).optional(),
  groups_prefix: z.string().max(256).optional(),
  groups_prefix_strip: on,
  roles: block,
  token_exchange: z.enum(EXCHANGE_MODES).optional(),
  token_exchange_subject_clients: block,
  token_exchange_resources: block,
};

const FieldsSchema = z.object(CLIENT_SETTINGS_FIELDS);
type Fields = z.output<typeof FieldsSchema>;

/** The form as the page shows it: text as typed, checkboxes as booleans. */
export type SettingsForm = {
  [K in keyof Fields]-?: NonNullable<Fields[K]> extends "on" ? boolean : K extends "grant_types" ? string[] : K extends "token_exchange" ? ExchangeMode : string;
};

/** The checkboxes of the form. */
const CHECKBOXES = [
  "backchannel_logout_session_required",
  "skip_consent",
  "require_2fa",
  "resource_server",
  "require_pushed_authorization_requests",
  "dpop_bound_access_tokens",
  "fapi_profile",
  "groups_prefix_strip",
] as const;

/** The form as it arrived: nothing dropped, so a refusal shows it again as typed. */
export function form_of_request(input: Partial<Fields>): SettingsForm {
  const form: Record<string, unknown> = {};
  for (const name of Object.keys(CLIENT_SETTINGS_FIELDS) as (keyof Fields)[]) form[name] = input[name] ?? "";
  for (const name of CHECKBOXES) form[name] = input[name] === "on";
  form.grant_types = input.grant_types === undefined ? [] : Array.isArray(input.grant_types) ? input.grant_types : [input.grant_types];
  form.token_exchange = input.token_exchange ?? "off";
  return form as SettingsForm;
}

/** The form showing the stored client (`etag`: of the client as shown, the API's If-Match rule). */
export function form_of_client(client: ClientRow, etag: string): SettingsForm {
  const m: ClientMetadata = client.metadata;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const exchange = m.token_exchange;
  const mode: ExchangeMode = exchange === undefined ? "off" : exchange.impersonation && exchange.delegation ? "both" : exchange.delegation ? "delegation" : "impersonation";
  return {
    etag,
    client_name: text(m.client_name),
    client_uri: text(m.client_uri),
    logo_uri: text(m.logo_uri),
    policy_uri: text(m.policy_uri),
    tos_uri: text(m.tos_uri),
    application_type: m.application_type ?? "web",
    redirect_uris: (m.redirect_uris ?? []).join("\n"),
    post_logout_redirect_uris: (m.post_logout_redirect_uris ?? []).join("\n"),
    backchannel_logout_uri: text(m.backchannel_logout_uri),
    backchannel_logout_session_required: m.backchannel_logout_session_required === true,
    token_endpoint_auth_method: auth_method_of(m),
    jwks_uri: text(m.jwks_uri),
    jwks: m.jwks === undefined ? "" : JSON.stringify(m.jwks, null, 2),
    id_token_signed_response_alg: text(m.id_token_signed_response_alg),
    // RFC 7591 §2: grant_types defaults to authorization_code.
    grant_types: m.grant_types ?? ["authorization_code"],
    scope: text(m.scope),
    skip_consent: m.skip_consent === true,
    require_2fa: m.require_2fa === true,
    resource_server: m.resource_server === true,
    require_pushed_authorization_requests: m.require_pushed_authorization_requests === true,
    dpop_bound_access_tokens: m.dpop_bound_access_tokens === true,
    fapi_profile: m.fapi_profile === "2.0",
    allowed_groups: (m.allowed_groups ?? []).join(", "),
    groups_claim: text(m.groups_claim),
    groups_prefix: text(m.groups_prefix),
    groups_prefix_strip: m.groups_prefix_strip === true,
    roles: Object.entries(m.roles ?? {})
      .map(([group, role]) => `${group}=${role}`)
      .join("\n"),
    token_exchange: mode,
    token_exchange_subject_clients: (exchange?.subject_clients ?? []).join(" "),
    token_exchange_resources: (exchange?.resources ?? []).join("\n"),
  };
}

const words = (text: string, separators = /\s+/) => text.split(separators).filter((word) => word !== "");
const or_null = (text: string) => (text.trim() === "" ? null : text.trim());
const flag = (on: boolean) => (on ? true : null);

/** `roles: one group=role a line`, as a map; a line without a group or a role is a problem of the field. */
function roles_of(text: string, problems: FieldProblem[]): Record<string, string> | null {
  const lines = words(text, /\r?\n/).map((line) => line.trim());
  const roles: Record<string, string> = {};
  for (const entry of lines.filter((line) => line !== "")) {
    const eq = entry.indexOf("=");
    if (eq <= 0 || eq === entry.length - 1) problems.push({ field: "roles", message: `"${entry}" is not group=role` });
    else roles[entry.slice(0, eq).trim()] = entry.slice(eq + 1).trim();
  }
  return Object.keys(roles).length === 0 ? null : roles;
}

/** The JWK Set pasted as JSON (RFC 7517 §5); its keys are checked by the registration rules. */
function jwks_of(text: string, problems: FieldProblem[]): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    problems.push({ field: "jwks", message: "is not valid JSON: paste the JWK Set as the application publishes it" });
    return null;
  }
}

/**
 * The change the form asks for, every member it shows (an empty field removes its member), in
 * the vocabulary of the admin API's PATCH; its members are checked against the API's request
 * contract. invalid_request naming each field that cannot be read.
 */
export function settings_input(form: SettingsForm): Record<string, unknown> {
  const problems: FieldProblem[] = [];
  const uses_code = form.grant_types.includes("authorization_code");
  const exchange =
    form.token_exchange === "off"
      ? null
      : {
          subject_clients: words(form.token_exchange_subject_clients, /[\s,]+/),
          resources: words(form.token_exchange_resources),
          impersonation: form.token_exchange !== "delegation",
          delegation: form.token_exchange !== "impersonation",
        };
  const input: Record<string, unknown> = {
    client_name: or_null(form.client_name),
    client_uri: or_null(form.client_uri),
    logo_uri: or_null(form.logo_uri),
    policy_uri: or_null(form.policy_uri),
    tos_uri: or_null(form.tos_uri),
    application_type: form.application_type,
    redirect_uris: words(form.redirect_uris),
    post_logout_redirect_uris: words(form.post_logout_redirect_uris).length === 0 ? null : words(form.post_logout_redirect_uris),
    backchannel_logout_uri: or_null(form.backchannel_logout_uri),
    backchannel_logout_session_required: flag(form.backchannel_logout_session_required),
    token_endpoint_auth_method: form.token_endpoint_auth_method,
    jwks_uri: or_null(form.jwks_uri),
    jwks: jwks_of(form.jwks, problems),
    id_token_signed_response_alg: or_null(form.id_token_signed_response_alg),
    grant_types: form.grant_types,
    // RFC 7591 §2.1: the code response type goes with the authorization_code grant.
    response_types: uses_code ? ["code"] : [],
    scope: words(form.scope).length === 0 ? null : words(form.scope).join(" "),
    skip_consent: form.skip_consent,
    require_2fa: form.require_2fa,
    resource_server: form.resource_server,
    require_pushed_authorization_requests: flag(form.require_pushed_authorization_requests),
    dpop_bound_access_tokens: flag(form.dpop_bound_access_tokens),
    fapi_profile: form.fapi_profile ? "2.0" : null,
    allowed_groups: words(form.allowed_groups, /[\s,]+/).length === 0 ? null : words(form.allowed_groups, /[\s,]+/),
    groups_claim: or_null(form.groups_claim),
    groups_prefix: or_null(form.groups_prefix),
    groups_prefix_strip: flag(form.groups_prefix_strip),
    roles: roles_of(form.roles, problems),
    token_exchange: exchange,
  };
  // The API's request contract, for the members sent (null removes a member, admin/clients/metadata.ts).
  const sent = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
  const parsed = ClientInputSchema.safeParse(sent);
  if (!parsed.success) for (const issue of parsed.error.issues) problems.push({ field: String(issue.path[0] ?? "form"), message: issue.message });
  if (problems.length > 0) throw new AdminError("invalid_request", problems.map((problem) => `${problem.field}: ${problem.message}`).join("; "), problems);
  return input;
}
