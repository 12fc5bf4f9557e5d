/**
 * Pushed authorization requests (RFC 9126).
 *
 * - `push_request`: the client, authenticated as at /token (clients/authentication.ts), posts the
 *   parameters of an authorization request. They are validated as /authorize would (request
 *   object, redirect URI, then everything else, request.ts), and any error is answered
 *   to the client in the OAuth shape (§2.3), never to a browser. The parameters are stored under
 *   the SHA-256 of the random part of a `urn:ietf:params:oauth:request_uri:` reference that lives
 *   `par.request_uri_ttl` seconds (§2.2).
 * - /authorize consumes the reference (request_uri.ts).
 * - A DPoP proof sent with the push binds the code to its key (RFC 9449 §10.1).
 */
import { random_token, sha256 } from "../crypto/secrets.ts";
import { FAPI_SIGNING_ALGS, is_fapi, is_fapi_alg, jwt_header_alg } from "../clients/fapi.ts";
import { requested_response_mode, validate_request } from "./request.ts";
import { AuthorizationError, OAuthError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import { with_request_object, type RawParams } from "./request_object.ts";
import { has_redirect_uri } from "../clients/metadata.ts";
import { REQUEST_URI_PREFIX } from "./request_uri.ts";
import type { ClientRow, PushedParams } from "../../store/types.ts";

/** Client authentication parameters: they authenticate the push and are not part of the request. */
const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(["client_secret", "client_assertion", "client_assertion_type"]);

export type PushedRequest = { request_uri: string; expires_in: number };

/**
 * Validates and stores a pushed request of the authenticated `client`; OAuthError on any
 * problem (RFC 9126 §2.3).
 */
export async function push_request(idp: Provider, client: ClientRow, body: RawParams, dpop: { jkt: string } | null = null): Promise<PushedRequest> {
  // RFC 9126 §2.1: "The request_uri authorization request parameter is one exception, and it MUST NOT be provided."
  if (body.request_uri !== undefined) throw new OAuthError("invalid_request", "request_uri must not be sent to the pushed authorization request endpoint");
  // Null prototype: a "__proto__" field stays a plain (refused or ignored) name.
  const own: RawParams = Object.create(null) as RawParams;
  for (const [name, value] of Object.entries(body)) if (!CREDENTIAL_PARAMS.has(name)) own[name] = value;
  // With Basic or a client assertion the body may lack client_id: the request names its client (RFC 9126 §2.1).
  own.client_id = client.client_id;
  if (dpop !== null) {
    // RFC 9449 §10.1: a DPoP proof at PAR binds the code to its key, as dpop_jkt would; both must agree.
    if (own.dpop_jkt !== undefined && own.dpop_jkt !== dpop.jkt) throw new OAuthError("invalid_dpop_proof", "dpop_jkt differs from the key of the DPoP proof");
    own.dpop_jkt = dpop.jkt;
  }
  let params: RawParams;
  try {
    // FAPI 2.0 §5.4.1: a FAPI client's request object is signed with PS256, ES256 or EdDSA.
    if (typeof own.request === "string" && is_fapi(idp, client)) {
      const alg = jwt_header_alg(own.request);
      if (alg === null || !is_fapi_alg(alg))
        throw new OAuthError("invalid_request_object", `the request object must be signed with one of ${FAPI_SIGNING_ALGS.join(", ")} under FAPI 2.0 (§5.4.1)`);
    }
    params = await with_request_object(idp, client, own);
    const redirect_uri = params.redirect_uri;
    // RFC 9126 §2.1: the redirect URI is checked as at /authorize; §2.4 (any URI for a
    // confidential client) is not offered: it must be registered.
    if (typeof redirect_uri !== "string" || redirect_uri === "")
      throw new OAuthError("invalid_request", Array.isArray(redirect_uri) ? "redirect_uri was sent more than once" : "redirect_uri is required");
    if (!has_redirect_uri(client, redirect_uri)) throw new OAuthError("invalid_request", "redirect_uri is not registered for this client");
    const response_mode = requested_response_mode(typeof params.response_mode === "string" ? params.response_mode : undefined);
    const state = typeof params.state === "string" ? params.state : null;
    await validate_request(idp, { client, redirect_uri, state, response_mode }, params);
  } catch (error) {
    // §2.3: the error codes of an authorization request, in the OAuth JSON shape.
    if (error instanceof AuthorizationError) throw new OAuthError(error.error, error.description);
    throw error;
  }
  const stored: PushedParams = Object.create(null) as PushedParams;
  for (const [name, value] of Object.entries(params)) if (typeof value === "string") stored[name] = value;
  const reference = random_token();
  const now = idp.now();
  const ttl = idp.config.par.request_uri_ttl;
  await idp.store.insert_pushed_request({ request_uri_hash: sha256(reference), client_id: client.client_id, params: { ...stored }, created_at: now, expires_at: now + ttl });
  return { request_uri: `${REQUEST_URI_PREFIX}${reference}`, expires_in: ttl };
}
