/**
 * What a client may register on this provider: the same constants discovery advertises
 * (discovery/metadata.ts), so registration accepts exactly what discovery lists (OIDC Registration §3.2:
 * the server may refuse values it does not support), and the keyring's ID Token algorithms.
 * Built once per provider; only the signing algorithms are read live (the keyring's view).
 */
import { acr_values_supported } from "../signin/methods.ts";
import { server_fapi } from "../clients/fapi.ts";
import { ASSERTION_SIGNING_ALGS, GRANT_TYPES, RESPONSE_TYPES, TOKEN_AUTH_METHODS } from "../discovery/metadata.ts";
import type { Provider } from "../provider.ts";
import { REQUEST_OBJECT_ALGS } from "../authorize/request_object.ts";
import { ADVERTISED_SCOPES } from "../claims/scopes.ts";

export type RegistrationPolicy = {
  readonly auth_methods: readonly string[];
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly scopes: readonly string[];
  readonly signing_algs: readonly string[];
  /** request_object_signing_alg_values_supported (request_object.ts). */
  readonly request_object_algs: readonly string[];
  /** token_endpoint_auth_signing_alg_values_supported (clients/assertion.ts). */
  readonly assertion_algs: readonly string[];
  /** acr_values_supported (signin/methods.ts), for default_acr_values. */
  readonly acr_values: readonly string[];
  /** In production, loopback http URLs are refused for logo, policy, terms and jwks_uri. */
  readonly production: boolean;
  /** outbound.allow: the non-public addresses a jwks_uri or backchannel_logout_uri may name (none when absent). */
  readonly outbound_allow?: readonly string[];
  /** The server runs the FAPI 2.0 Security Profile for every client (fapi.ts). */
  readonly fapi?: boolean;
};

const policies = new WeakMap<Provider, Omit<RegistrationPolicy, "signing_algs">>();

function fixed_policy(idp: Provider): Omit<RegistrationPolicy, "signing_algs"> {
  let policy = policies.get(idp);
  if (policy === undefined) {
    policy = Object.freeze({
      auth_methods: TOKEN_AUTH_METHODS,
      grant_types: GRANT_TYPES,
      response_types: RESPONSE_TYPES,
      scopes: ADVERTISED_SCOPES,
      request_object_algs: REQUEST_OBJECT_ALGS,
      assertion_algs: ASSERTION_SIGNING_ALGS,
      acr_values: acr_values_supported(idp.config.passkeys),
      production: idp.config.production,
      outbound_allow: idp.config.outbound.allow,
      fapi: server_fapi(idp.config),
    });
    policies.set(idp, policy);
  }
  return policy;
}

export function registration_policy(idp: Provider): RegistrationPolicy {
  return { ...fixed_policy(idp), signing_algs: idp.keys.signing_algs() };
}
