/**
 * The FAPI 2.0 Security Profile (final), authorization server side (§5.3.2), for the whole
 * server (setting `fapi`, IDP_FAPI=2.0) or per client (metadata `fapi_profile: "2.0"`, set by
 * the operator or at registration: it only tightens rules). Under the profile:
 *
 * - §5.3.2.2 items 1–3: PAR is required (request_uri.ts `requires_par`), response_type=code only,
 *   PKCE with S256 required (authorize/request.ts); item 6: https redirect URIs (http only on a
 *   native client's loopback, RFC 8252 §7.3); authorization requests by value (`request` at
 *   /authorize) are refused outside PAR; response modes query and the JARM ones only.
 * - §5.3.2.1 items 3, 6, 8: confidential clients authenticating with private_key_jwt only (mTLS,
 *   the other method the profile names, is not offered), whose assertion's aud is the issuer as a
 *   string and nothing else (authentication.ts, assertion.ts).
 * - §5.3.2.1 items 4–5, §5.3.3: sender-constrained access tokens through DPoP only: a token
 *   request without a proof is refused (dpop.ts `token_request_proof`).
 * - §5.3.2.1 item 11: authorization codes live at most 60 s (`code_ttl`).
 * - §5.4.1: JWTs signed with PS256, ES256 or EdDSA only — ours (ID Tokens, JARM, UserInfo,
 *   introspection) and the client's (assertions, request objects, DPoP proofs).
 * - §5.3.2.1 item 9 says refresh tokens should not be rotated; ours are rotated on every use
 *   (grants/refresh_token.ts, RFC 9700 §4.14.2): kept, a documented deviation.
 * - `state` and `nonce` stay optional, as the profile leaves them (PKCE is the CSRF protection,
 *   §5.3.2.2, and the nonce is the client's choice, OIDC Core §3.1.2.1).
 * - Not covered: FAPI 2.0 Message Signing (signed requests and introspection are available but
 *   not enforced), and mTLS (RFC 8705).
 */
import { decodeProtectedHeader } from "jose";
import type { Config } from "../../config/schema.ts";
import type { ClientMetadata, ClientRow } from "../../store/types.ts";
import type { Provider } from "../provider.ts";

/** The profiles a client may name in `fapi_profile`. */
export const FAPI_PROFILES = ["2.0"] as const;

/** §5.4.1: the JWS algorithms the profile allows. */
export const FAPI_SIGNING_ALGS = ["PS256", "ES256", "EdDSA"] as const;

/** §5.3.2.1 item 11: the longest lifetime of an authorization code (seconds). */
export const FAPI_MAX_CODE_TTL = 60;

/** The grant types a FAPI client may register: the code flow, its refresh, and client credentials (all with DPoP-bound tokens). */
export const FAPI_GRANT_TYPES: readonly string[] = ["authorization_code", "refresh_token", "client_credentials"];

/** The metadata members holding an alg of a JWT the server or the client signs (§5.4.1). */
const ALG_MEMBERS = [
  "id_token_signed_response_alg",
  "userinfo_signed_response_alg",
  "introspection_signed_response_alg",
  "authorization_signed_response_alg",
  "request_object_signing_alg",
  "token_endpoint_auth_signing_alg",
] as const;

/** Whether the whole server runs the profile. */
export function server_fapi(config: Config): boolean {
  return config.fapi === "2.0";
}

/** Whether the profile applies to a client with this metadata. */
export function metadata_fapi(config: Config, metadata: ClientMetadata): boolean {
  return server_fapi(config) || metadata.fapi_profile === "2.0";
}

/** Whether the profile applies to `client`. */
export function is_fapi(idp: Provider, client: ClientRow): boolean {
  return metadata_fapi(idp.config, client.metadata);
}

export function is_fapi_alg(alg: string): boolean {
  return (FAPI_SIGNING_ALGS as readonly string[]).includes(alg);
}

/**
 * The alg of a JWT's protected header, for the §5.4.1 checks of client assertions and request
 * objects before they are verified; null when it cannot be read (verification then says why).
 */
export function jwt_header_alg(jwt: string): string | null {
  try {
    const alg = decodeProtectedHeader(jwt).alg;
    return typeof alg === "string" ? alg : null;
  } catch {
    return null;
  }
}

/** The alg FAPI clients get when they name none: the first of §5.4.1's the key ring has (PS256 first). */
export function fapi_default_alg(signing_algs: readonly string[]): string | null {
  return FAPI_SIGNING_ALGS.find((alg) => signing_algs.includes(alg)) ?? null;
}

/**
 * A FAPI client's metadata with the profile's defaults: the signing algs of its ID Tokens and JWT
 * authorization responses (whose defaults, RS256, §5.4.1 forbids) and the PAR and DPoP flags,
 * which state what the profile enforces anyway. Left unchanged when the key ring has no FAPI alg
 * (`fapi_metadata_problem` then says so).
 */
export function with_fapi_defaults(metadata: ClientMetadata, signing_algs: readonly string[]): ClientMetadata {
  const alg = fapi_default_alg(signing_algs);
  const out: ClientMetadata = { ...metadata };
  if (alg !== null) {
    if (out.id_token_signed_response_alg === undefined) out.id_token_signed_response_alg = alg;
    if (out.authorization_signed_response_alg === undefined) out.authorization_signed_response_alg = alg;
  }
  if (out.require_pushed_authorization_requests === undefined) out.require_pushed_authorization_requests = true;
  if (out.dpop_bound_access_tokens === undefined) out.dpop_bound_access_tokens = true;
  return out;
}

export type FapiProblem = { field: string; message: string };

/** Why a redirect URI is not allowed under §5.3.2.2 item 6; null when it is. */
export function fapi_redirect_problem(uri: string, application_type: string | undefined): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol === "https:") return null;
  // RFC 8252 §7.3: a native app's loopback redirect is the one http the profile allows.
  if (url.protocol === "http:" && application_type === "native" && (url.hostname === "127.0.0.1" || url.hostname === "[::1]")) return null;
  return "must be an https URL under FAPI 2.0 (§5.3.2.2)";
}

/**
 * The first thing the profile forbids in a FAPI client's metadata (after defaults), naming the
 * member; null when none. `signing_algs`: the key ring's, for the server's own signatures.
 */
export function fapi_metadata_problem(metadata: ClientMetadata, signing_algs: readonly string[]): FapiProblem | null {
  const method = metadata.token_endpoint_auth_method ?? "client_secret_basic";
  // §5.3.2.1 items 3 and 6: confidential clients, private_key_jwt (mTLS is not offered here).
  if (method !== "private_key_jwt") {
    return { field: "token_endpoint_auth_method", message: `must be private_key_jwt under FAPI 2.0 (§5.3.2.1; mTLS is not offered), not ${method}` };
  }
  const responses = metadata.response_types ?? ["code"];
  const bad_response = responses.find((type) => type !== "code");
  if (bad_response !== undefined) return { field: "response_types", message: `"${bad_response}" is not allowed under FAPI 2.0: code only (§5.3.2.2)` };
  const bad_grant = (metadata.grant_types ?? ["authorization_code"]).find((grant) => !FAPI_GRANT_TYPES.includes(grant));
  if (bad_grant !== undefined) return { field: "grant_types", message: `"${bad_grant}" is not offered under FAPI 2.0; use ${FAPI_GRANT_TYPES.join(", ")}` };
  for (const uri of metadata.redirect_uris ?? []) {
    const problem = fapi_redirect_problem(uri, metadata.application_type);
    if (problem !== null) return { field: "redirect_uris", message: `"${uri}" ${problem}` };
  }
  for (const member of ALG_MEMBERS) {
    const alg = metadata[member];
    if (typeof alg === "string" && !is_fapi_alg(alg)) return { field: member, message: `${alg} is not allowed under FAPI 2.0; use ${FAPI_SIGNING_ALGS.join(", ")} (§5.4.1)` };
  }
  // The defaults of OIDC Registration §2 and JARM §3 (RS256) apply when these are absent.
  for (const member of ["id_token_signed_response_alg", "authorization_signed_response_alg"] as const) {
    if (metadata[member] === undefined) {
      const alg = fapi_default_alg(signing_algs);
      return {
        field: member,
        message:
          alg === null
            ? `this provider has no signing key of ${FAPI_SIGNING_ALGS.join(", ")} (IDP_SIGNING_ALGS), which FAPI 2.0 needs (§5.4.1)`
            : `must be set under FAPI 2.0 (the default RS256 is not allowed, §5.4.1); use ${alg}`,
      };
    }
  }
  if (metadata.require_pushed_authorization_requests === false)
    return { field: "require_pushed_authorization_requests", message: "cannot be false under FAPI 2.0: requests must be pushed (§5.3.2.2)" };
  if (metadata.dpop_bound_access_tokens === false)
    return { field: "dpop_bound_access_tokens", message: "cannot be false under FAPI 2.0: access tokens are sender-constrained with DPoP (§5.3.2.1)" };
  return null;
}

/** The lifetime of a code issued to `client` (§5.3.2.1 item 11: at most 60 s for FAPI clients). */
export function code_ttl(idp: Provider, client: ClientRow | null): number {
  const ttl = idp.config.tokens.code_ttl;
  return client !== null && is_fapi(idp, client) ? Math.min(ttl, FAPI_MAX_CODE_TTL) : ttl;
}
