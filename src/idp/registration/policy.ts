/**
 * What a client may register on this provider. Taken from the discovery document, so registration
 * accepts exactly what discovery advertises (OIDC Registration §3.2: the server may refuse values
 * it does not support), and from the keyring for ID Token algorithms.
 */
import type { Provider } from "../provider.ts";

export type RegistrationPolicy = {
  readonly auth_methods: readonly string[];
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly scopes: readonly string[];
  readonly signing_algs: readonly string[];
  /** request_object_signing_alg_values_supported (request_object.ts). */
  readonly request_object_algs: readonly string[];
  /** token_endpoint_auth_signing_alg_values_supported (client_assertion.ts). */
  readonly assertion_algs: readonly string[];
  /** acr_values_supported (acr.ts), for default_acr_values. */
  readonly acr_values: readonly string[];
  /** In production, loopback http URLs are refused for logo, policy, terms and jwks_uri. */
  readonly production: boolean;
};

function advertised(document: Record<string, unknown>, key: string): string[] {
  const value = document[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function registration_policy(idp: Provider): RegistrationPolicy {
  const document = idp.discovery.document;
  return {
    auth_methods: advertised(document, "token_endpoint_auth_methods_supported"),
    grant_types: advertised(document, "grant_types_supported"),
    response_types: advertised(document, "response_types_supported"),
    scopes: advertised(document, "scopes_supported"),
    signing_algs: idp.keys.signing_algs(),
    request_object_algs: advertised(document, "request_object_signing_alg_values_supported"),
    assertion_algs: advertised(document, "token_endpoint_auth_signing_alg_values_supported"),
    acr_values: advertised(document, "acr_values_supported"),
    production: idp.config.production,
  };
}
