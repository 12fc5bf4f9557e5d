/** The admin API's representations (zod): answers, and the OpenAPI document's components. */
import { z } from "zod";
import { USER_STATUSES } from "../../../store/types.ts";
import { EMAIL, PHONE, checked_username } from "../../../oidc/admin/users.ts";
import { GRACE_SECONDS } from "../../../oidc/admin/clients.ts";
import { FAPI_PROFILES } from "../../../oidc/clients/fapi.ts";

const text = z.string().trim().min(1).max(512);
const time = z.number().int().describe("Unix seconds");

export const AddressSchema = z.strictObject({
  formatted: z.string().max(512).optional(),
  street_address: z.string().max(512).optional(),
  locality: z.string().max(256).optional(),
  region: z.string().max(256).optional(),
  postal_code: z.string().max(64).optional(),
  country: z.string().max(256).optional(),
});

/** A custom attribute's value: its declared type (string, number, boolean, string[]) is checked by oidc/attributes/values.ts. */
const ATTRIBUTE_VALUE = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

export const UserSchema = z
  .object({
    id: z.string(),
    username: z.string(),
    status: z.enum(USER_STATUSES as [string, ...string[]]),
    name: z.string().nullable(),
    given_name: z.string().nullable(),
    family_name: z.string().nullable(),
    picture: z.string().nullable(),
    email: z.string().nullable(),
    email_verified: z.boolean(),
    phone_number: z.string().nullable(),
    phone_number_verified: z.boolean(),
    address: AddressSchema.nullable(),
    totp_enabled: z.boolean(),
    totp_enabled_at: time.nullable(),
    created_at: time,
    updated_at: time,
    groups: z.array(z.string()).optional(),
    /** Custom attributes by declared name (`idp attributes`; oidc/attributes/). */
    attributes: z.record(z.string(), ATTRIBUTE_VALUE).optional(),
  })
  .meta({ id: "User" });

const username = z.string().superRefine((value, ctx) => {
  const checked = checked_username(value);
  if ("problem" in checked) ctx.addIssue({ code: "custom", message: checked.problem });
});

/** The profile members an administrator sets (OIDC Core §5.1); null clears one. */
const PROFILE = {
  name: text.nullable().optional(),
  given_name: text.nullable().optional(),
  family_name: text.nullable().optional(),
  picture: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .optional(),
  email: z.string().max(254).regex(EMAIL, "is not an e-mail address").nullable().optional(),
  email_verified: z.boolean().optional(),
  phone_number: z.string().regex(PHONE, "is not a phone number").nullable().optional(),
  phone_number_verified: z.boolean().optional(),
  address: AddressSchema.nullable().optional(),
};

export const UserCreateSchema = z
  .strictObject({
    username,
    password: z.string().min(1).max(1024),
    ...PROFILE,
    status: z.enum(["active", "disabled"]).optional(),
  })
  .meta({ id: "UserCreate" });

export const UserPatchSchema = z
  .strictObject({
    ...PROFILE,
    status: z.enum(["active", "disabled"]).optional(),
    /** Sets (a value of the attribute's type) or clears (null) custom attributes by name; the others stay. */
    attributes: z.record(z.string().max(64), ATTRIBUTE_VALUE.nullable()).optional(),
  })
  .meta({ id: "UserPatch" });

export const ClientSchema = z
  .looseObject({
    client_id: z.string(),
    client_name: z.string().optional(),
    redirect_uris: z.array(z.string()).optional(),
    grant_types: z.array(z.string()).optional(),
    token_endpoint_auth_method: z.string().optional(),
    scope: z.string().optional(),
    admin: z.boolean().optional(),
    has_secret: z.boolean(),
    resource_server: z.boolean(),
    client_id_issued_at: time,
    client_secret_expires_at: time,
    created_at: time,
    updated_at: time,
    client_secret: z
      .string()
      .optional()
      .describe("in the answer to a create, or to a change to a secret-based token_endpoint_auth_method of a client without a secret: its new secret, shown this once"),
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        "in answers to a create or change only: URLs of the client the provider will not call as things are (http without IDP_OUTBOUND_ALLOW_HTTP, a non-public address outside IDP_OUTBOUND_ALLOW), or could not check",
      ),
  })
  .meta({ id: "Client" });

/** RFC 8693 token exchange: whose access tokens the client may exchange, how, and for which registered resources (RFC 8707). */
export const TokenExchangeSchema = z
  .strictObject({
    subject_clients: z.array(z.string().min(1).max(256)).min(1).max(100).describe('client ids, or "*" for any'),
    impersonation: z.boolean(),
    delegation: z.boolean(),
    resources: z.array(z.string().min(1).max(2048)).min(1).max(100),
  })
  .meta({ id: "TokenExchangePolicy" });

/** Registration metadata (RFC 7591 §2, checked as POST /register checks it) plus the operator's flags and settings. */
export const ClientInputSchema = z
  .looseObject({
    client_name: z.string().min(1).max(256).optional(),
    redirect_uris: z.array(z.string()).optional(),
    post_logout_redirect_uris: z.array(z.string()).optional(),
    grant_types: z.array(z.string()).optional(),
    response_types: z.array(z.string()).optional(),
    token_endpoint_auth_method: z.string().optional(),
    scope: z.string().optional(),
    application_type: z.enum(["web", "native"]).optional(),
    skip_consent: z.boolean().optional(),
    resource_server: z.boolean().optional(),
    admin: z.boolean().optional().describe("false removes the admin flag; only the command line grants it (idp clients add|update --admin)"),
    fapi_profile: z.enum(FAPI_PROFILES).nullable().optional().describe("the FAPI 2.0 Security Profile for this client"),
    // Operator settings (oidc/claims/groups.ts, grants/token_exchange.ts); null removes one.
    groups_claim: z.string().max(256).nullable().optional().describe("the name the client gets the user's groups under (default groups)"),
    groups_prefix: z.string().max(256).nullable().optional().describe("only groups with this prefix are released"),
    groups_prefix_strip: z.boolean().nullable().optional(),
    roles: z.record(z.string().min(1).max(256), z.string().min(1).max(256)).nullable().optional().describe("existing group → role released in the roles claim"),
    allowed_groups: z.array(z.string().min(1).max(256)).max(100).nullable().optional().describe("only members of these existing groups may sign in to the client"),
    require_2fa: z.boolean().nullable().optional().describe("every sign-in to this client needs a second factor"),
    token_exchange: TokenExchangeSchema.nullable().optional(),
  })
  .meta({ id: "ClientInput" });

export const ClientSecretSchema = z
  .object({
    client_id: z.string(),
    client_secret: z.string(),
    client_secret_expires_at: time,
    previous_secret_expires_at: time.nullable().describe("Until when the replaced secret still works (a rotation with grace_seconds); null: it stopped at once"),
  })
  .meta({ id: "ClientSecret" });

/** The body of a secret rotation (optional): how long the old secret keeps working (oidc/admin/clients.ts GRACE_SECONDS). */
export const RotateSecretSchema = z
  .strictObject({ grace_seconds: z.literal(GRACE_SECONDS).optional().describe("Seconds the old secret keeps working: 0 (the default), 3600 or 86400") })
  .meta({ id: "RotateSecret" });

export const AuditEventSchema = z
  .object({
    id: z.number().int(),
    at: time,
    type: z.string(),
    outcome: z.string(),
    user_id: z.string().nullable(),
    username: z.string().nullable(),
    client_id: z.string().nullable(),
    client_name: z.string().nullable(),
    ip: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "AuditEvent" });

export const KeySchema = z
  .object({ kid: z.string(), alg: z.string(), status: z.string(), created_at: time, activated_at: time.nullable(), retire_at: time.nullable() })
  .meta({ id: "SigningKey" });

export const SessionSchema = z
  .object({
    id: z.string().describe("The session's stored hash (never the cookie)"),
    auth_time: time,
    amr: z.array(z.string()),
    created_at: time,
    last_seen_at: time,
    expires_at: time,
    user_agent: z.string().nullable(),
    ip: z.string().nullable(),
  })
  .meta({ id: "Session" });

export const GrantSchema = z.object({ client_id: z.string(), scopes: z.array(z.string()), created_at: time, updated_at: time }).meta({ id: "Grant" });

export const SessionsEndedSchema = z.object({ sessions_ended: z.number().int(), tokens_revoked: z.number().int() });

export const GroupSchema = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable(), created_at: time, members: z.number().int().optional() })
  .meta({ id: "Group" });

export const GroupCreateSchema = z.strictObject({ name: z.string().min(1).max(200), description: z.string().max(500).nullable().optional() }).meta({ id: "GroupCreate" });

export const ResourceServerSchema = z
  .object({
    uri: z.string(),
    scopes: z.array(z.string()),
    access_token_format: z.enum(["opaque", "jwt"]),
    access_token_ttl: z.number().int().nullable(),
    created_at: time,
    updated_at: time,
  })
  .meta({ id: "ResourceServer" });

export const ResourceServerCreateSchema = z
  .strictObject({
    uri: z.string().min(1).max(2048),
    scopes: z.array(z.string().min(1).max(200)).min(1).max(100),
    access_token_format: z.enum(["opaque", "jwt"]).optional(),
    access_token_ttl: z.number().int().optional(),
  })
  .meta({ id: "ResourceServerCreate" });

export const GroupMemberSchema = z.object({ user_id: z.string(), username: z.string(), added_at: time }).meta({ id: "GroupMember" });
