/**
 * The metadata of a client the admin API creates or changes (and the console, the same way): the
 * registrable members checked as POST /register checks them (oidc/registration: one vocabulary,
 * one set of rules) and by the operator's rules `idp clients add` keeps too
 * (oidc/admin/clients.ts `operator_metadata_problem`), then the operator's flags no registration
 * can set (skip_consent, resource_server, admin: kept or removed, granted only by the CLI) and
 * settings (group claims and access policy, require_2fa, the token exchange policy:
 * `with_operator_settings`).
 */
import { AdminError, invalid_field } from "../../../../oidc/admin/errors.ts";
import { checked_token_exchange, operator_metadata_problem, set_admin, with_group_settings } from "../../../../oidc/admin/clients.ts";
import { GROUP_METADATA, group_settings, type GroupSettings } from "../../../../oidc/claims/groups.ts";
import { ADMIN_SCOPE } from "../../../../oidc/admin/scope.ts";
import { split_scope } from "../../../../oidc/claims/scopes.ts";
import { RegistrationError } from "../../../../oidc/registration/errors.ts";
import { registration_policy, type RegistrationPolicy } from "../../../../oidc/registration/policy.ts";
import { REGISTRABLE, parse_metadata } from "../../../../oidc/registration/schema.ts";
import { validate_metadata } from "../../../../oidc/registration/validate.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { check_subject_type } from "../../../../oidc/claims/pairwise.ts";
import type { ClientMetadata, TokenExchangePolicy } from "../../../../store/types.ts";

const OPERATOR_FLAGS = ["skip_consent", "resource_server", "admin"] as const;

/**
 * Operator settings no registration can set, applied after the metadata checks by
 * `with_operator_settings` (they need the store): the group settings (oidc/claims/groups.ts), a second
 * factor for every sign-in, and the RFC 8693 token exchange policy.
 */
const OPERATOR_SETTINGS = [...GROUP_METADATA, "require_2fa", "token_exchange"] as const;

/**
 * The registration rules' verdict; a refusal as invalid_request naming the metadata members its
 * words start with (`redirect_uris: …`, `scope "x" …`), so the API's problem lists them in `errors`.
 */
function registration_checked(registrable: Record<string, unknown>, policy: RegistrationPolicy): ClientMetadata {
  try {
    return validate_metadata(parse_metadata(registrable), policy);
  } catch (error) {
    if (!(error instanceof RegistrationError)) throw error;
    const errors = error.message
      .split("; ")
      .map((part) => /^([a-z_]+)(?:\.\d+)?(?::\s*|\s+)(.+)$/.exec(part))
      .filter((match) => match !== null && (REGISTRABLE as readonly string[]).includes(match[1]!))
      .map((match) => ({ field: match![1]!, message: match![2]! }));
    // RFC 7591 §3.2.2: invalid_redirect_uri is about redirect_uris, whatever its words.
    if (errors.length === 0 && error.error === "invalid_redirect_uri") errors.push({ field: "redirect_uris", message: error.message });
    throw new AdminError("invalid_request", error.message, errors);
  }
}

/**
 * OIDC Core §8.1, OIDC Registration §5: subject_type pairwise needs the salt, and a
 * sector_identifier_uri is fetched and must list every redirect URI — as at POST /register.
 */
export async function checked_subject_type(idp: Provider, metadata: ClientMetadata, client_id: string | null): Promise<void> {
  try {
    await check_subject_type(idp, metadata, client_id);
  } catch (error) {
    if (!(error instanceof RegistrationError)) throw error;
    const field = metadata.sector_identifier_uri !== undefined && error.message.includes("sector_identifier_uri") ? "sector_identifier_uri" : "subject_type";
    throw new AdminError("invalid_request", error.message, [{ field, message: error.message }]);
  }
}

/** The registrable members of stored metadata (what a PATCH starts from). */
export function registrable_of(metadata: ClientMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of REGISTRABLE) if (metadata[key] !== undefined) out[key] = metadata[key];
  return out;
}

/** Checked metadata from `input` (registrable members and operator flags); `base` holds server-side members to keep. */
export function checked_metadata(idp: Provider, input: Record<string, unknown>, base: ClientMetadata = {}): ClientMetadata {
  const registrable: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if ((OPERATOR_FLAGS as readonly string[]).includes(key) || (OPERATOR_SETTINGS as readonly string[]).includes(key)) continue;
    if ((REGISTRABLE as readonly string[]).includes(key)) registrable[key] = value;
    else unknown.push(key);
  }
  if (unknown.length > 0)
    throw new AdminError(
      "invalid_request",
      `unknown client metadata: ${unknown.join(", ")}`,
      unknown.map((field) => ({ field, message: "is not client metadata this API sets" })),
    );
  // The admin scope comes with the admin flag only (set_admin below), never as a scope value sent.
  if (typeof registrable.scope === "string") {
    const scopes = split_scope(registrable.scope).filter((scope) => scope !== ADMIN_SCOPE);
    if (scopes.length > 0) registrable.scope = scopes.join(" ");
    else delete registrable.scope;
  }
  // Unlike a self-registered client, an operator may name its own API scopes (as `idp clients add --scope` may).
  const policy = registration_policy(idp);
  const own_scopes = typeof registrable.scope === "string" ? split_scope(registrable.scope) : [];
  const metadata: ClientMetadata = { ...base, ...registration_checked(registrable, { ...policy, scopes: [...new Set([...policy.scopes, ...own_scopes])] }) };
  // The operator's rules beyond registration's (oidc/admin/clients.ts), as `idp clients add` keeps them.
  const problem = operator_metadata_problem(metadata);
  if (problem !== null) throw invalid_field(problem.field, problem.message);
  for (const flag of ["skip_consent", "resource_server"] as const) {
    const value = input[flag];
    if (value === true) metadata[flag] = true;
    else if (value === false || value === null) delete metadata[flag];
  }
  if (metadata.resource_server === true && metadata.token_endpoint_auth_method === "none") {
    // RFC 7662 §2.1: introspection needs an authenticated caller.
    throw new AdminError("invalid_request", "resource_server: needs an authenticating client", [{ field: "resource_server", message: "needs an authenticating client" }]);
  }
  // The admin flag is the command line's to give (idp clients add|update --admin): a caller of the
  // API may keep it or take it away, never grant it, so a leaked admin token cannot mint lasting
  // admin credentials for itself.
  if (input.admin === true && base.admin !== true)
    throw new AdminError("invalid_request", "admin: is granted only with the command line (idp clients add|update --admin)", [
      { field: "admin", message: "is granted only with the command line (idp clients add|update --admin)" },
    ]);
  const admin = input.admin === undefined ? base.admin === true : input.admin === true;
  set_admin(metadata, admin);
  return metadata;
}

/**
 * `metadata` with the operator settings of `input` (OPERATOR_SETTINGS) applied: members sent
 * replace the current ones (`current`, for a change), null removes one; the group settings are
 * checked together (oidc/admin/clients.ts with_group_settings: the groups named must exist), the
 * token exchange policy against the final metadata.
 */
export async function with_operator_settings(idp: Provider, metadata: ClientMetadata, input: Record<string, unknown>, current: ClientMetadata = {}): Promise<ClientMetadata> {
  const sent = (name: string) => Object.hasOwn(input, name) && input[name] !== undefined;
  let out = metadata;
  if (GROUP_METADATA.some(sent)) {
    const settings: Record<string, unknown> = { ...group_settings(current) };
    for (const name of GROUP_METADATA) {
      if (!sent(name)) continue;
      if (input[name] === null) delete settings[name];
      else settings[name] = input[name];
    }
    out = await with_group_settings(idp.store, out, settings as GroupSettings);
  }
  if (sent("require_2fa")) {
    if (input.require_2fa === true) out.require_2fa = true;
    else delete out.require_2fa;
  }
  if (sent("token_exchange")) {
    if (input.token_exchange === null) delete out.token_exchange;
    else out.token_exchange = await checked_token_exchange(idp.store, out, input.token_exchange as TokenExchangePolicy);
  } else if (out.token_exchange !== undefined && (sent("grant_types") || sent("token_endpoint_auth_method"))) {
    // The policy kept must still fit the changed metadata (the grant, an authenticating client).
    out.token_exchange = await checked_token_exchange(idp.store, out, out.token_exchange);
  }
  return out;
}

/**
 * The metadata after a change (the API's PATCH, the console's edit form): the members sent
 * replace the stored ones (null removes one), checked like a new client; server-side members
 * (group settings, require_2fa, the operator flags) are kept unless sent.
 */
export function changed_metadata(idp: Provider, current: ClientMetadata, input: Record<string, unknown>): ClientMetadata {
  const merged: Record<string, unknown> = { ...registrable_of(current), ...input };
  for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
  const base: ClientMetadata = {};
  for (const [key, value] of Object.entries(current)) if (!(REGISTRABLE as readonly string[]).includes(key)) base[key] = value;
  return checked_metadata(idp, merged, base);
}
