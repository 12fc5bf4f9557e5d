/**
 * Administering resource servers (RFC 8707 resource indicators, RFC 9068 JWT access tokens):
 * the rules `idp resources` (src/cli/resources.ts), the admin API and the console apply. A
 * resource is its URI (an absolute URI without fragment, RFC 8707 §2), the scope values it
 * accepts, the format of its access tokens (opaque by default, `jwt` for RFC 9068) and
 * optionally their lifetime.
 */
import { resource_uri_problem } from "../tokens/resources.ts";
import { StoreConflictError, type AccessTokenFormat, type ClientRow, type ResourceServerRow, type Store } from "../../store/types.ts";
import { AdminError, invalid_field as invalid, not_found } from "./errors.ts";

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
export const ACCESS_TOKEN_FORMATS: readonly AccessTokenFormat[] = ["opaque", "jwt"];
/** Seconds: a minute to a day (an access token is short-lived: RFC 9700 §4.14). */
export const RESOURCE_TTL_LIMITS = { min: 60, max: 86_400 } as const;

export type ResourceInput = { uri: string; scopes: readonly string[]; access_token_format?: string | undefined; access_token_ttl?: number | undefined };

export async function create_resource_server(store: Store, input: ResourceInput, now: number): Promise<ResourceServerRow> {
  const problem = resource_uri_problem(input.uri);
  if (problem !== null) throw invalid("uri", problem);
  const scopes = [...new Set(input.scopes)];
  const bad = scopes.find((scope) => !SCOPE_TOKEN.test(scope));
  if (bad !== undefined) throw invalid("scopes", `"${bad}" is not a valid scope name (RFC 6749 §3.3)`);
  if (scopes.length === 0) throw invalid("scopes", "needs at least one scope the resource accepts");
  const format = input.access_token_format ?? "opaque";
  if (!(ACCESS_TOKEN_FORMATS as readonly string[]).includes(format)) throw invalid("access_token_format", `"${format}" is not one of ${ACCESS_TOKEN_FORMATS.join(", ")}`);
  const ttl = input.access_token_ttl;
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < RESOURCE_TTL_LIMITS.min || ttl > RESOURCE_TTL_LIMITS.max)) {
    throw invalid("access_token_ttl", `must be a whole number of seconds from ${RESOURCE_TTL_LIMITS.min} to ${RESOURCE_TTL_LIMITS.max}`);
  }
  const taken = () => new AdminError("conflict", `resource ${input.uri} is already registered`, [{ field: "uri", message: "is taken" }]);
  if ((await store.get_resource_server(input.uri)) !== null) throw taken();
  try {
    return await store.create_resource_server({ uri: input.uri, scopes, access_token_format: format as AccessTokenFormat, access_token_ttl: ttl ?? null, created_at: now });
  } catch (error) {
    if (error instanceof StoreConflictError) throw taken();
    throw error;
  }
}

/** Scope values typed as text (a repeated option, a form field): space-separated (RFC 6749 §3.3), in any number of parts. */
export function scope_list(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(/\s+/)).filter(Boolean);
}

/**
 * An access token lifetime typed as text (`--ttl`, the console's field): undefined when blank
 * (IDP_ACCESS_TOKEN_TTL applies), else a whole number of seconds, whose range
 * create_resource_server checks.
 */
export function resource_ttl_of(text: string | undefined): number | undefined {
  const value = text?.trim() ?? "";
  if (value === "") return undefined;
  if (!/^\d{1,6}$/.test(value)) throw invalid("access_token_ttl", `"${value}" is not a whole number of seconds`);
  return Number(value);
}

/** The clients whose token exchange policy (grants/token_exchange.ts) names the resource `uri`. */
export async function clients_exchanging_for(store: Store, uri: string): Promise<ClientRow[]> {
  return (await store.list_clients()).filter((client) => client.metadata.token_exchange?.resources.includes(uri) === true);
}

/**
 * Removes the resource `uri`: from now on a request naming it gets invalid_target (RFC 8707 §2),
 * so no new token is issued for it, a refresh included; tokens issued already stay valid until
 * they expire. A client whose token exchange policy names it keeps the name, and its exchanges
 * for it are refused the same way until the resource is registered again.
 */
export async function remove_resource_server(store: Store, uri: string): Promise<void> {
  if (!(await store.delete_resource_server(uri))) throw not_found("resource", uri);
}
