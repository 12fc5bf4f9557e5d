/**
 * Administering resource servers (RFC 8707 resource indicators, RFC 9068 JWT access tokens):
 * the rules `idp resources` (src/cli/resources.ts) applies. A resource is its URI (an absolute
 * URI without fragment, RFC 8707 §2), the scope values it accepts, the format of its access
 * tokens (opaque by default, `jwt` for RFC 9068) and optionally their lifetime.
 */
import { resource_uri_problem } from "../tokens/resources.ts";
import { StoreConflictError, type AccessTokenFormat, type ResourceServerRow, type Store } from "../../store/types.ts";
import { AdminError, invalid_field as invalid } from "./errors.ts";

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const FORMATS: readonly AccessTokenFormat[] = ["opaque", "jwt"];
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
  if (!(FORMATS as readonly string[]).includes(format)) throw invalid("access_token_format", `"${format}" is not one of ${FORMATS.join(", ")}`);
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
