/**
 * The rules registered client metadata must keep, and the defaults it gets (RFC 7591 §2,
 * OIDC Registration §2). Used by POST /register and PUT /register/:client_id alike; the result is
 * exactly what is stored and returned (RFC 7591 §3.2.1: "including any fields provisioned by the
 * authorization server itself").
 */
import { fapi_default_alg, fapi_metadata_problem, with_fapi_defaults } from "../clients/fapi.ts";
import { literal_host_problem } from "../outbound/addresses.ts";
import { public_jwks_problem } from "../clients/public_jwks.ts";
import { redirect_uris_problem, type ApplicationType } from "../clients/redirect_uris.ts";
import type { ClientMetadata, JsonObject } from "../../store/types.ts";
import { RegistrationError, invalid_metadata, invalid_redirect_uri } from "./errors.ts";
import type { RegistrationPolicy } from "./policy.ts";
import type { MetadataInput } from "./schema.ts";

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** JWK members only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4). */

const distinct = (values: readonly string[]): string[] => [...new Set(values)];

function unsupported(field: string, values: readonly string[], supported: readonly string[]): void {
  const bad = values.find((value) => !supported.includes(value));
  if (bad !== undefined) throw invalid_metadata(`${field}: "${bad}" is not supported; use ${supported.join(", ")}`);
}

/**
 * Why `value` is not a URL a page may link to or the server may call: https, or http on a
 * loopback host outside production (a developer's machine). Null when it is fine.
 */
function web_url_problem(value: string, production: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not an absolute URL";
  }
  if (url.username !== "" || url.password !== "") return "must not contain user credentials";
  if (url.protocol === "https:") return null;
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol === "http:" && loopback && !production) return null;
  return "must be an https URL";
}

function check_url(field: string, value: string | undefined, production: boolean): void {
  if (value === undefined) return;
  const problem = web_url_problem(value, production);
  if (problem !== null) throw invalid_metadata(`${field} "${value}" ${problem}`);
}

/**
 * A URL the provider itself will call (jwks_uri, backchannel_logout_uri): an IP literal that is
 * not public and not in outbound.allow can never be fetched (outbound/fetch.ts, OWASP SSRF Prevention
 * Cheat Sheet), so it is refused now. Host names are checked at fetch time, against DNS as it is then.
 */
function check_called_url(field: string, value: string | undefined, allow: readonly string[]): void {
  if (value === undefined) return;
  const problem = literal_host_problem(new URL(value).hostname, allow);
  if (problem !== null) throw invalid_metadata(`${field} "${value}" ${problem}; the provider does not call such addresses`);
}

/** RFC 7517 §5: a JWK Set of public keys (clients/public_jwks.ts). */
function check_jwks(jwks: { keys: Record<string, unknown>[] }): { keys: JsonObject[] } {
  const problem = public_jwks_problem(jwks);
  if (problem !== null) throw invalid_metadata(`jwks: ${problem}`);
  // Parsed from JSON, so every value is a JSON value.
  return { keys: jwks.keys as JsonObject[] };
}

/** Checks the metadata and applies the defaults; raises RegistrationError on the first problem. */
export function validate_metadata(input: MetadataInput, policy: RegistrationPolicy): ClientMetadata {
  const { production } = policy;

  // RFC 7591 §2: "If unspecified or omitted, the default is client_secret_basic".
  const auth_method = input.token_endpoint_auth_method ?? "client_secret_basic";
  // RFC 7591 §2: jwks_uri and jwks "MUST NOT both be present in the same request or response".
  if (input.jwks !== undefined && input.jwks_uri !== undefined) throw invalid_metadata("jwks and jwks_uri must not both be present (RFC 7591 §2)");
  if (auth_method === "private_key_jwt" && input.jwks === undefined && input.jwks_uri === undefined) {
    throw invalid_metadata("token_endpoint_auth_method private_key_jwt needs the client's public keys: jwks or jwks_uri");
  }
  unsupported("token_endpoint_auth_method", [auth_method], policy.auth_methods);

  // RFC 7591 §2: grant_types defaults to ["authorization_code"], response_types to ["code"].
  const grant_types = distinct(input.grant_types ?? ["authorization_code"]);
  const response_types = distinct(input.response_types ?? ["code"]);
  if (grant_types.length === 0) throw invalid_metadata("grant_types must name at least one grant type");
  unsupported("grant_types", grant_types, policy.grant_types);
  unsupported("response_types", response_types, policy.response_types);
  // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential clients."
  if (auth_method === "none" && grant_types.includes("client_credentials")) {
    throw invalid_metadata("grant_types client_credentials needs a confidential client: token_endpoint_auth_method none cannot use it (RFC 6749 §4.4)");
  }
  // RFC 7591 §2.1: the code response type goes with the authorization_code grant, both ways.
  const uses_code = grant_types.includes("authorization_code");
  if (response_types.includes("code") !== uses_code) {
    throw invalid_metadata(
      uses_code
        ? 'grant_types has authorization_code, so response_types must include "code" (RFC 7591 §2.1)'
        : 'response_types has "code", so grant_types must include authorization_code (RFC 7591 §2.1)',
    );
  }

  // OIDC Registration §2: application_type defaults to web.
  const application_type: ApplicationType = input.application_type ?? "web";
  const redirect_uris = distinct(input.redirect_uris ?? []);
  // OIDC Registration §2: redirect_uris is REQUIRED; RFC 7591 §2: for redirect-based grants.
  if (uses_code && redirect_uris.length === 0) throw invalid_redirect_uri("redirect_uris is required for the authorization_code grant");
  const post_logout_redirect_uris = distinct(input.post_logout_redirect_uris ?? []);
  // The same check as `idp clients add` (redirect_uris.ts).
  const uris_problem = redirect_uris_problem(redirect_uris, post_logout_redirect_uris, application_type);
  if (uris_problem !== null) throw new RegistrationError(uris_problem.error, uris_problem.description);

  // OIDC Registration §2: the default is RS256. Unsigned ID Tokens ("none") are refused outright:
  // nothing would bind them to this provider.
  // FAPI 2.0 §5.4.1: a FAPI client's default is the first of PS256, ES256, EdDSA the key ring has.
  const fapi = policy.fapi === true || input.fapi_profile === "2.0";
  const alg = input.id_token_signed_response_alg ?? (fapi ? fapi_default_alg(policy.signing_algs) : null) ?? "RS256";
  if (alg === "none") throw invalid_metadata("id_token_signed_response_alg none is not allowed: ID Tokens are always signed");
  unsupported("id_token_signed_response_alg", [alg], policy.signing_algs);

  // OIDC Registration §2: request objects and private_key_jwt assertions of this client MUST
  // use exactly the registered alg (enforced in request_object.ts and clients/assertion.ts).
  if (input.request_object_signing_alg !== undefined) {
    unsupported("request_object_signing_alg", [input.request_object_signing_alg], policy.request_object_algs);
    if (input.request_object_signing_alg !== "none" && input.jwks === undefined && input.jwks_uri === undefined) {
      throw invalid_metadata(`request_object_signing_alg ${input.request_object_signing_alg} needs the client's public keys: jwks or jwks_uri`);
    }
  }
  if (input.token_endpoint_auth_signing_alg !== undefined) {
    unsupported("token_endpoint_auth_signing_alg", [input.token_endpoint_auth_signing_alg], policy.assertion_algs);
  }

  // OIDC Registration §2: the acr_values of requests that send none (authorize/request.ts).
  const default_acr_values = input.default_acr_values === undefined ? undefined : distinct(input.default_acr_values);
  if (default_acr_values !== undefined) unsupported("default_acr_values", default_acr_values, policy.acr_values);

  // OIDC Core §8: public (the default) or pairwise; pairwise.ts checks the salt and the sector.
  if (input.subject_type !== undefined && input.subject_type !== "public" && input.subject_type !== "pairwise") {
    throw invalid_metadata(`subject_type "${input.subject_type}" is not supported; use public or pairwise`);
  }
  // Signed responses: UserInfo (OIDC Registration §2), introspection (RFC 9701 §6) and
  // authorization responses (JARM §3), with the provider's signing algs; "none" never.
  for (const field of ["userinfo_signed_response_alg", "introspection_signed_response_alg", "authorization_signed_response_alg"] as const) {
    const value = input[field];
    if (value !== undefined) unsupported(field, [value], policy.signing_algs);
  }
  // OIDC Registration §2 request_uris: https URLs (require_request_uri_registration, request_object.ts).
  for (const uri of input.request_uris ?? []) {
    check_url("request_uris", uri, production);
    check_called_url("request_uris", uri, policy.outbound_allow ?? []);
  }
  check_url("sector_identifier_uri", input.sector_identifier_uri, production);
  check_called_url("sector_identifier_uri", input.sector_identifier_uri, policy.outbound_allow ?? []);
  // OIDC Front-Channel Logout §2: rendered in an iframe of the sign-out page; https (or loopback http outside production).
  check_url("frontchannel_logout_uri", input.frontchannel_logout_uri, production);
  if (input.frontchannel_logout_uri?.includes("#")) throw invalid_metadata("frontchannel_logout_uri must not contain a fragment");
  if (input.frontchannel_logout_session_required !== undefined && input.frontchannel_logout_uri === undefined) {
    throw invalid_metadata("frontchannel_logout_session_required needs a frontchannel_logout_uri");
  }

  check_url("client_uri", input.client_uri, production);
  check_url("logo_uri", input.logo_uri, production);
  check_url("policy_uri", input.policy_uri, production);
  check_url("tos_uri", input.tos_uri, production);
  check_url("jwks_uri", input.jwks_uri, production);
  check_url("backchannel_logout_uri", input.backchannel_logout_uri, production);
  check_called_url("jwks_uri", input.jwks_uri, policy.outbound_allow ?? []);
  check_called_url("backchannel_logout_uri", input.backchannel_logout_uri, policy.outbound_allow ?? []);
  // OIDC Back-Channel Logout §2.2: the URI "MUST NOT include a fragment component".
  if (input.backchannel_logout_uri?.includes("#")) throw invalid_metadata("backchannel_logout_uri must not contain a fragment");
  if (input.backchannel_logout_session_required !== undefined && input.backchannel_logout_uri === undefined) {
    throw invalid_metadata("backchannel_logout_session_required needs a backchannel_logout_uri");
  }

  let scope: string | undefined;
  if (input.scope !== undefined) {
    const values = distinct(input.scope.split(" ").filter(Boolean));
    if (values.length === 0) throw invalid_metadata("scope must name at least one scope");
    const bad = values.find((value) => !SCOPE_TOKEN.test(value));
    if (bad !== undefined) throw invalid_metadata(`scope: "${bad}" is not a valid scope value (RFC 6749 §3.3)`);
    // A client may limit itself to some scopes, never grant itself ones this provider lacks.
    unsupported("scope", values, policy.scopes);
    scope = values.join(" ");
  }

  const metadata: ClientMetadata = {
    redirect_uris,
    response_types,
    grant_types,
    application_type,
    token_endpoint_auth_method: auth_method,
    id_token_signed_response_alg: alg,
  };
  if (post_logout_redirect_uris.length > 0) metadata.post_logout_redirect_uris = post_logout_redirect_uris;
  if (input.contacts !== undefined) metadata.contacts = distinct(input.contacts);
  if (input.jwks !== undefined) metadata.jwks = check_jwks(input.jwks);
  if (scope !== undefined) metadata.scope = scope;
  if (input.subject_type !== undefined) metadata.subject_type = input.subject_type === "pairwise" ? "pairwise" : "public";
  if (input.request_uris !== undefined) metadata.request_uris = distinct(input.request_uris);
  if (default_acr_values !== undefined && default_acr_values.length > 0) metadata.default_acr_values = default_acr_values;
  const copied = [
    "client_name",
    "client_uri",
    "logo_uri",
    "policy_uri",
    "tos_uri",
    "jwks_uri",
    "default_max_age",
    "require_auth_time",
    "request_object_signing_alg",
    "token_endpoint_auth_signing_alg",
    "backchannel_logout_uri",
    "backchannel_logout_session_required",
    "software_id",
    "software_version",
    "require_pushed_authorization_requests",
    "dpop_bound_access_tokens",
    "fapi_profile",
    "sector_identifier_uri",
    "userinfo_signed_response_alg",
    "introspection_signed_response_alg",
    "authorization_signed_response_alg",
    "frontchannel_logout_uri",
    "frontchannel_logout_session_required",
  ] as const;
  const target: Record<string, unknown> = metadata;
  for (const key of copied) if (input[key] !== undefined) target[key] = input[key];
  if (!fapi) return metadata;
  // FAPI 2.0 Security Profile (fapi.ts): the profile's defaults, then what it forbids, refused
  // naming the member (RFC 7591 §3.2.2: redirect URIs are invalid_redirect_uri).
  const profiled = with_fapi_defaults(metadata, policy.signing_algs);
  const problem = fapi_metadata_problem(profiled, policy.signing_algs);
  if (problem !== null) {
    const words = `${problem.field}: ${problem.message}`;
    throw problem.field === "redirect_uris" ? invalid_redirect_uri(words) : invalid_metadata(words);
  }
  return profiled;
}
