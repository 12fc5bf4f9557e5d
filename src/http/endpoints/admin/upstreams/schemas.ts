/**
 * The admin API's representations of upstream identity providers (zod): answers and request
 * bodies, and their OpenAPI components. The deeper rules (URLs, scopes, the policy, acr values,
 * the group mapping) are oidc/federation/upstreams.ts's, applied by oidc/admin/upstreams.ts.
 */
import { z } from "zod";
import { PRESETS } from "../../../../oidc/federation/presets.ts";

const time = z.number().int().describe("Unix seconds");
const url = z.string().min(1).max(2048);
const names = z.record(z.string().min(1).max(255), z.string().min(1).max(255));

export const UpstreamSchema = z
  .object({
    name: z.string(),
    kind: z.enum(["oidc", "oauth2"]),
    display_name: z.string(),
    issuer: z.string().nullable(),
    authorization_endpoint: z.string().nullable(),
    token_endpoint: z.string().nullable(),
    userinfo_endpoint: z.string().nullable(),
    emails_endpoint: z.string().nullable(),
    client_id: z.string(),
    has_client_secret: z.boolean().describe("whether a client secret is stored (it is never answered)"),
    scopes: z.array(z.string()),
    policy: z.enum(["jit", "link"]),
    auto_link: z.boolean(),
    claim_mapping: z.record(z.string(), z.unknown()),
    enabled: z.boolean(),
    trust_upstream_mfa: z.boolean(),
    mfa_acr_values: z.array(z.string()),
    token_endpoint_auth_method: z.enum(["private_key_jwt"]).nullable(),
    group_map: z.record(z.string(), z.string()),
    redirect_uri: z.string().describe("the redirect URI to register at the upstream"),
    created_at: time,
    updated_at: time,
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        "in answers to a create or change only: the issuer or endpoints the provider will not call as things are (http without IDP_OUTBOUND_ALLOW_HTTP, a non-public address outside IDP_OUTBOUND_ALLOW), or could not check",
      ),
  })
  .meta({ id: "Upstream" });

/** What both a new upstream and a change may set. */
const FIELDS = {
  kind: z.enum(["oidc", "oauth2"]),
  display_name: z.string().trim().min(1).max(100),
  issuer: url,
  authorization_endpoint: url,
  token_endpoint: url,
  userinfo_endpoint: url,
  emails_endpoint: url,
  client_id: z.string().min(1).max(512),
  client_secret: z.string().min(1).max(4096).describe("write-only: stored encrypted under IDP_SECRET_KEY, never answered"),
  scopes: z.array(z.string().min(1).max(255).regex(/^\S+$/, "is not a scope value")).max(50),
  policy: z.enum(["jit", "link"]).describe("first sign-in of an unknown upstream account: create a local one (jit) or require linking (link)"),
  auto_link: z.boolean(),
  claim_mapping: names.describe("local claim → upstream claim"),
  enabled: z.boolean(),
  trust_upstream_mfa: z.boolean(),
  mfa_acr_values: z.array(z.string().min(1).max(255)).max(20),
  token_endpoint_auth_method: z.enum(["client_secret_post", "private_key_jwt"]),
  group_map: names.describe("upstream group → existing local group"),
};

export const UpstreamCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(63),
    preset: z
      .enum(Object.keys(PRESETS) as [string, ...string[]])
      .optional()
      .describe("fills in kind, endpoints, scopes and display name; fields sent win"),
    tenant: z.string().min(1).max(255).optional().describe("the Entra ID tenant of the microsoft preset"),
    kind: FIELDS.kind.optional(),
    display_name: FIELDS.display_name.optional(),
    issuer: FIELDS.issuer.optional(),
    authorization_endpoint: FIELDS.authorization_endpoint.optional(),
    token_endpoint: FIELDS.token_endpoint.optional(),
    userinfo_endpoint: FIELDS.userinfo_endpoint.optional(),
    emails_endpoint: FIELDS.emails_endpoint.optional(),
    client_id: FIELDS.client_id,
    client_secret: FIELDS.client_secret.optional(),
    scopes: FIELDS.scopes.optional(),
    policy: FIELDS.policy.optional(),
    auto_link: FIELDS.auto_link.optional(),
    claim_mapping: FIELDS.claim_mapping.optional(),
    enabled: FIELDS.enabled.optional(),
    trust_upstream_mfa: FIELDS.trust_upstream_mfa.optional(),
    mfa_acr_values: FIELDS.mfa_acr_values.optional(),
    token_endpoint_auth_method: FIELDS.token_endpoint_auth_method.optional(),
    group_map: FIELDS.group_map.optional(),
  })
  .meta({ id: "UpstreamCreate" });

/** A change: the members sent replace the stored ones; null clears an optional one (client_secret null removes the secret). */
export const UpstreamPatchSchema = z
  .strictObject({
    kind: FIELDS.kind.optional(),
    display_name: FIELDS.display_name.optional(),
    issuer: FIELDS.issuer.nullable().optional(),
    authorization_endpoint: FIELDS.authorization_endpoint.nullable().optional(),
    token_endpoint: FIELDS.token_endpoint.nullable().optional(),
    userinfo_endpoint: FIELDS.userinfo_endpoint.nullable().optional(),
    emails_endpoint: FIELDS.emails_endpoint.nullable().optional(),
    client_id: FIELDS.client_id.optional(),
    client_secret: FIELDS.client_secret.nullable().optional(),
    scopes: FIELDS.scopes.optional(),
    policy: FIELDS.policy.optional(),
    auto_link: FIELDS.auto_link.optional(),
    claim_mapping: FIELDS.claim_mapping.optional(),
    enabled: FIELDS.enabled.optional(),
    trust_upstream_mfa: FIELDS.trust_upstream_mfa.optional(),
    mfa_acr_values: FIELDS.mfa_acr_values.optional(),
    token_endpoint_auth_method: FIELDS.token_endpoint_auth_method.nullable().optional(),
    group_map: FIELDS.group_map.optional(),
    drop_links: z
      .boolean()
      .optional()
      .describe("with a new issuer, kind or subject claim: delete the accounts' links made under the old one (refused with 409 while links exist otherwise)"),
  })
  .meta({ id: "UpstreamPatch" });
