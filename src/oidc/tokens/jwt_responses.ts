/**
 * Answers as signed JWTs, for clients that registered for them (encryption is not offered:
 * registration refuses the *_encrypted_response_* members):
 * - UserInfo (OIDC Core §5.3.2, OIDC Registration §2 `userinfo_signed_response_alg`): the claims
 *   as a JWT with iss and aud, served as application/jwt.
 * - Token introspection (RFC 9701): on `Accept: application/token-introspection+jwt`, the
 *   answer as a JWT typed `token-introspection+jwt` with iss, aud, iat and the RFC 7662 answer
 *   in `token_introspection` (§5); the alg is the client's `introspection_signed_response_alg`
 *   or RS256.
 * - Authorization responses (JARM, JWT Secured Authorization Response Mode for OAuth 2.0):
 *   response_mode jwt, query.jwt, fragment.jwt, form_post.jwt; the parameters (code, state,
 *   error, iss) as claims of one JWT with iss, aud and a short exp, sent as `response`.
 */
import type { Alg } from "../keys/keyring.ts";
import type { ClientResponse } from "../authorize/decision.ts";
import { OAuthError } from "../errors.ts";
import type { ResponseMode } from "../authorize/interactions.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

/** RFC 9701 §4: the media type a resource server asks for. */
export const INTROSPECTION_JWT_TYPE = "application/token-introspection+jwt";

/** JARM §2.1: "The JWT MUST contain" exp; §4.1 recommends a short lifetime (10 minutes at most). */
export const JARM_TTL_SECONDS = 300;

/** JARM §2.3 response modes; `jwt` is query.jwt for the code flow (§2.3.4). */
export const JARM_MODES = ["jwt", "query.jwt", "fragment.jwt", "form_post.jwt"] as const;

/** The alg of a registered signing member, or RS256; server_error for an alg no longer configured. */
function alg_of(idp: Provider, wanted: string | undefined, field: string): Alg {
  const name = wanted ?? "RS256";
  const alg = idp.keys.signing_algs().find((a) => a === name);
  if (alg === undefined) throw new OAuthError("server_error", `${field} ${name} is not available on this provider`);
  return alg;
}

/** Whether this client gets UserInfo as a JWT (it registered userinfo_signed_response_alg). */
export function wants_signed_userinfo(client: ClientRow): boolean {
  return typeof client.metadata.userinfo_signed_response_alg === "string";
}

/** OIDC Core §5.3.2: "the UserInfo Response SHOULD contain the Claims iss and aud". */
export async function sign_userinfo(idp: Provider, client: ClientRow, claims: Record<string, unknown>): Promise<string> {
  const alg = alg_of(idp, client.metadata.userinfo_signed_response_alg, "userinfo_signed_response_alg");
  return idp.keys.sign({ ...claims, iss: idp.config.issuer, aud: client.client_id }, { alg });
}

/** Whether the Accept header asks for RFC 9701's JWT answer. */
export function accepts_introspection_jwt(accept: string | null): boolean {
  if (accept === null) return false;
  return accept.split(",").some((range) => range.split(";")[0]!.trim().toLowerCase() === INTROSPECTION_JWT_TYPE);
}

/** RFC 9701 §5: the JWT answer to `client` (the caller: the resource server). */
export async function sign_introspection(idp: Provider, client: ClientRow, answer: Record<string, unknown>): Promise<string> {
  const alg = alg_of(idp, client.metadata.introspection_signed_response_alg, "introspection_signed_response_alg");
  // §5: iss, aud (the resource server), iat; the RFC 7662 answer in token_introspection. No exp
  // or sub at the top level (§5: they would make it look like an access token, §8.1).
  return idp.keys.sign({ iss: idp.config.issuer, aud: client.client_id, iat: idp.now(), token_introspection: answer }, { alg, typ: "token-introspection+jwt" });
}

export function is_jarm_mode(mode: ResponseMode): boolean {
  return (JARM_MODES as readonly string[]).includes(mode);
}

/**
 * JARM §2: the response as one JWT in `response`, delivered by the base mode (query for `jwt`
 * with the code flow, §2.3.4). Responses of other modes are returned unchanged.
 */
export async function jarm_encoded(idp: Provider, response: ClientResponse): Promise<ClientResponse> {
  if (!is_jarm_mode(response.response_mode)) return response;
  const client = await idp.store.get_client(response.client_id);
  const alg = alg_of(idp, client?.metadata.authorization_signed_response_alg, "authorization_signed_response_alg");
  const now = idp.now();
  // §2.1: iss, aud (the client_id), exp, and the authorization response parameters.
  const jwt = await idp.keys.sign({ ...response.params, iss: idp.config.issuer, aud: response.client_id, exp: now + JARM_TTL_SECONDS, iat: now }, { alg });
  const base: ResponseMode = response.response_mode === "form_post.jwt" ? "form_post" : response.response_mode === "fragment.jwt" ? "fragment" : "query";
  return { ...response, response_mode: base, params: { response: jwt } };
}
