/**
 * The OpenID Provider Metadata (OIDC Discovery 1.0 §3, RFC 8414 §2), built once from the
 * configuration. It advertises only what works today: every endpoint listed answers, every
 * value listed is accepted.
 */
import { LOCALES } from "../ui/catalogs.ts";
import { acr_values_supported } from "../signin/methods.ts";
import { USER_CLAIMS } from "../claims/user_claims.ts";
import type { Config } from "../../config/schema.ts";
import { CHALLENGE_METHODS } from "../authorize/pkce.ts";
import { DPOP_ALGS } from "../tokens/dpop.ts";
import { REQUEST_OBJECT_ALGS } from "../authorize/request_object.ts";
import { JARM_MODES } from "../tokens/jwt_responses.ts";
import { ADVERTISED_SCOPES } from "../claims/scopes.ts";
import { sha256 } from "../crypto/secrets.ts";
import { FAPI_GRANT_TYPES, FAPI_SIGNING_ALGS, is_fapi_alg, server_fapi } from "../clients/fapi.ts";
import type { Discovery } from "../provider.ts";
import { PATHS } from "./paths.ts";

export type { Discovery } from "../provider.ts";

/** Client authentication methods /token and /revoke accept (RFC 6749 §2.3.1, OIDC Core §9). */
export const TOKEN_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"] as const;

/** Introspection needs an authenticated client (RFC 7662 §2.1): not `none`. */
export const INTROSPECTION_AUTH_METHODS = TOKEN_AUTH_METHODS.filter((method) => method !== "none");

/** Algorithms a private_key_jwt client assertion may use (clients/assertion.ts). */
export const ASSERTION_SIGNING_ALGS = ["RS256", "PS256", "ES256", "EdDSA"] as const;

/** Grant types /token accepts (RFC 6749 §4.1, §4.4, §6; RFC 8628 §3.4 the device grant, grants/device_code.ts). */
// RFC 8693: token exchange, allowed per client by an operator-set policy (grants/token_exchange.ts).
export const GRANT_TYPES = [
  "authorization_code",
  "refresh_token",
  "client_credentials",
  "urn:ietf:params:oauth:grant-type:device_code",
  "urn:ietf:params:oauth:grant-type:token-exchange",
] as const;

/** Response types /authorize accepts: the code flow only. */
export const RESPONSE_TYPES = ["code"] as const;

/** RS256 first (OIDC Core §15.1: the default every RP supports), then the others configured. */
export function order_algs(algs: readonly string[]): string[] {
  return ["RS256", ...algs.filter((a) => a !== "RS256")].filter((a) => algs.includes(a));
}

/**
 * The document under the server-wide FAPI 2.0 switch (fapi.ts): only what the profile allows —
 * private_key_jwt (§5.3.2.1), PAR required and query/JARM responses (§5.3.2.2), PS256, ES256 and
 * EdDSA (§5.4.1), no device flow (outside the profile).
 */
function fapi_document(document: Record<string, unknown>): Record<string, unknown> {
  const fapi_algs = (value: unknown) => (value as string[]).filter(is_fapi_alg);
  const out: Record<string, unknown> = {
    ...document,
    response_modes_supported: ["query", ...JARM_MODES],
    grant_types_supported: GRANT_TYPES.filter((grant) => FAPI_GRANT_TYPES.includes(grant)),
    token_endpoint_auth_methods_supported: ["private_key_jwt"],
    revocation_endpoint_auth_methods_supported: ["private_key_jwt"],
    introspection_endpoint_auth_methods_supported: ["private_key_jwt"],
    require_pushed_authorization_requests: true,
    dpop_signing_alg_values_supported: [...FAPI_SIGNING_ALGS],
  };
  for (const member of [
    "id_token_signing_alg_values_supported",
    "userinfo_signing_alg_values_supported",
    "introspection_signing_alg_values_supported",
    "authorization_signing_alg_values_supported",
    "request_object_signing_alg_values_supported",
    "token_endpoint_auth_signing_alg_values_supported",
    "revocation_endpoint_auth_signing_alg_values_supported",
    "introspection_endpoint_auth_signing_alg_values_supported",
  ]) {
    out[member] = fapi_algs(document[member]);
  }
  delete out.device_authorization_endpoint;
  return out;
}

export function build_discovery(config: Config, signing_algs: readonly string[]): Discovery {
  const issuer = config.issuer;
  const document = {
    // OIDC Discovery §4.3: issuer MUST be identical to the one the metadata was fetched for.
    issuer,
    authorization_endpoint: `${issuer}${PATHS.authorize}`,
    token_endpoint: `${issuer}${PATHS.token}`,
    userinfo_endpoint: `${issuer}${PATHS.userinfo}`,
    jwks_uri: `${issuer}${PATHS.jwks}`,
    scopes_supported: [...ADVERTISED_SCOPES],
    response_types_supported: [...RESPONSE_TYPES],
    // OAuth 2.0 Form Post Response Mode (http/authorization_response.ts); JARM §2.3 (jwt_responses.ts).
    response_modes_supported: ["query", "form_post", ...JARM_MODES],
    grant_types_supported: [...GRANT_TYPES],
    // OIDC Core §8: pairwise only when the operator set its salt (pairwise.ts).
    subject_types_supported: config.pairwise.salt === undefined ? ["public"] : ["public", "pairwise"],
    id_token_signing_alg_values_supported: order_algs(signing_algs),
    // OIDC Discovery §3, RFC 9701 §7, JARM §4: signed (never encrypted) UserInfo, introspection and authorization responses.
    userinfo_signing_alg_values_supported: order_algs(signing_algs),
    introspection_signing_alg_values_supported: order_algs(signing_algs),
    authorization_signing_alg_values_supported: order_algs(signing_algs),
    token_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_SIGNING_ALGS],
    // RFC 7009 / RFC 8414 §2: revocation, with the same client authentication as /token.
    revocation_endpoint: `${issuer}${PATHS.revoke}`,
    revocation_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
    revocation_endpoint_auth_signing_alg_values_supported: [...ASSERTION_SIGNING_ALGS],
    // RFC 7662 / RFC 8414 §2: introspection, for authenticated (confidential) clients only.
    introspection_endpoint: `${issuer}${PATHS.introspect}`,
    introspection_endpoint_auth_methods_supported: [...INTROSPECTION_AUTH_METHODS],
    introspection_endpoint_auth_signing_alg_values_supported: [...ASSERTION_SIGNING_ALGS],
    // groups and roles: with the scope groups (groups.ts; a client may rename the groups claim).
    claims_supported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "amr", "acr", "sid", ...USER_CLAIMS, "groups", "roles"],
    // OIDC Core §3.1.2.1 acr_values: `mfa` requires two factors, `phr`/`phrh` a passkey (signin/methods.ts).
    acr_values_supported: acr_values_supported(config.passkeys),
    code_challenge_methods_supported: [...CHALLENGE_METHODS],
    // RFC 9207 §3: every authorization response carries iss.
    authorization_response_iss_parameter_supported: true,
    // OIDC Core §5.5 (claims/request.ts) and §6.1 request objects by value (request_object.ts).
    claims_parameter_supported: true,
    // OIDC Discovery §3: the languages of the pages (a catalog each, ui/catalogs.ts). No claims_locales_supported:
    // claims are stored in one language only, so claims_locales gets the plain claims (README, "Languages").
    ui_locales_supported: [...LOCALES],
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGS],
    // OIDC Core §6.2 request_uri by reference to a URL the client registered (request_object.ts),
    // unless the operator turned it off; the urn:ietf:params:oauth:request_uri: references of PAR
    // work either way (RFC 9126 §4).
    request_uri_parameter_supported: config.request_uri.enabled,
    require_request_uri_registration: true,
    // RFC 9126 §5: pushed authorization requests, with the same client authentication as /token.
    pushed_authorization_request_endpoint: `${issuer}${PATHS.par}`,
    require_pushed_authorization_requests: config.par.required,
    // RFC 8628 §4: the device authorization endpoint (device.ts), for clients registered for the grant.
    device_authorization_endpoint: `${issuer}${PATHS.device_authorization}`,
    // RFC 9449 §5.1: DPoP proofs at /token, /userinfo (and /par).
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    // select_account is accepted and handled as login (no account chooser), so not advertised.
    prompt_values_supported: ["none", "login", "consent"],
    // OIDC RP-Initiated Logout §2.1.
    end_session_endpoint: `${issuer}${PATHS.logout}`,
    // OIDC Back-Channel Logout §2.1: logout tokens to backchannel_logout_uri, with sid (also in ID Tokens).
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    // OIDC Front-Channel Logout §3: an iframe per client on the signed-out page, with iss and sid.
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    // OIDC Discovery §3 / RFC 8414 §2: only when dynamic registration is enabled.
    ...(config.registration === "off" ? {} : { registration_endpoint: `${issuer}${PATHS.register}` }),
  };
  const advertised = server_fapi(config) ? fapi_document(document) : document;
  const body = JSON.stringify(advertised);
  return { document: advertised, body, etag: `"${sha256(body).slice(0, 32)}"` };
}

/**
 * The document with the operator's attributes added: their scopes to `scopes_supported` and their
 * claim names to `claims_supported` (OIDC Discovery §3), in declaration-name order. The same
 * document when none is declared.
 */
export function with_attributes(discovery: Discovery, attributes: readonly { scope: string; claim: string }[]): Discovery {
  if (attributes.length === 0) return discovery;
  const add = (list: unknown, more: readonly string[]) => {
    const out = Array.isArray(list) ? [...(list as string[])] : [];
    for (const item of more) if (!out.includes(item)) out.push(item);
    return out;
  };
  const document = {
    ...discovery.document,
    scopes_supported: add(
      discovery.document.scopes_supported,
      attributes.map((a) => a.scope),
    ),
    claims_supported: add(
      discovery.document.claims_supported,
      attributes.map((a) => a.claim),
    ),
  };
  const body = JSON.stringify(document);
  return { document, body, etag: `"${sha256(body).slice(0, 32)}"` };
}
