/**
 * The shape of client metadata in a registration or update request (RFC 7591 §2, OIDC
 * Registration §2): which members this provider understands and their JSON types. Semantic rules
 * (supported values, URL rules, consistency) are in validate.ts.
 *
 * - RFC 7591 §2: members the server does not understand are ignored, never stored: z.object
 *   strips them. `skip_consent` is one of them — consent is never skipped for a client that
 *   registered itself.
 * - RFC 7592 §2.2: "The authorization server MAY ignore any null or empty value in the
 *   request": a null member counts as absent.
 * - Members whose meaning this provider cannot honour (encrypted ID Tokens, UserInfo,
 *   introspection or authorization responses) are refused, so a client never expects what it will not get.
 */
import { z } from "zod";
import { FAPI_PROFILES } from "../clients/fapi.ts";
import { invalid_metadata, invalid_redirect_uri, type RegistrationError } from "./errors.ts";

const MAX_URL = 2048;
const TEN_YEARS = 10 * 365 * 24 * 3600;

const url = z.string().min(1).max(MAX_URL);
const url_list = z.array(url).max(50);
const word_list = z.array(z.string().min(1).max(64)).max(10);
const text = (max: number) => z.string().trim().min(1).max(max);

/** A JWK as sent; its members are checked in validate.ts. */
const jwk = z.record(z.string(), z.unknown());

export const METADATA_SHAPE = {
  redirect_uris: url_list.optional(),
  post_logout_redirect_uris: url_list.optional(),
  response_types: word_list.optional(),
  grant_types: word_list.optional(),
  application_type: z.enum(["web", "native"]).optional(),
  client_name: text(200).optional(),
  client_uri: url.optional(),
  logo_uri: url.optional(),
  policy_uri: url.optional(),
  tos_uri: url.optional(),
  contacts: z.array(text(320)).max(20).optional(),
  token_endpoint_auth_method: z.string().min(1).max(64).optional(),
  token_endpoint_auth_signing_alg: z.string().min(1).max(32).optional(),
  jwks_uri: url.optional(),
  jwks: z.object({ keys: z.array(jwk).min(1, "a JWK Set needs at least one key").max(20) }).optional(),
  id_token_signed_response_alg: z.string().min(1).max(32).optional(),
  request_object_signing_alg: z.string().min(1).max(32).optional(),
  subject_type: z.string().min(1).max(32).optional(),
  // OIDC Core §8.1, OIDC Registration §5 (pairwise.ts).
  sector_identifier_uri: url.optional(),
  // OIDC Registration §2: the only URLs a request_uri may name (request_object.ts).
  request_uris: url_list.optional(),
  // OIDC Registration §2: UserInfo as a signed JWT.
  userinfo_signed_response_alg: z.string().min(1).max(32).optional(),
  // RFC 9701 §6: introspection responses as a signed JWT.
  introspection_signed_response_alg: z.string().min(1).max(32).optional(),
  // JARM §3: the alg of JWT authorization responses.
  authorization_signed_response_alg: z.string().min(1).max(32).optional(),
  // OIDC Front-Channel Logout §2 (logout/frontchannel.ts).
  frontchannel_logout_uri: url.optional(),
  frontchannel_logout_session_required: z.boolean().optional(),
  default_max_age: z.number().int().min(0).max(TEN_YEARS).optional(),
  require_auth_time: z.boolean().optional(),
  default_acr_values: word_list.optional(),
  scope: z.string().max(1000).optional(),
  backchannel_logout_uri: url.optional(),
  backchannel_logout_session_required: z.boolean().optional(),
  // RFC 9126 §6: this client's authorization requests must be pushed.
  require_pushed_authorization_requests: z.boolean().optional(),
  // RFC 9449 §5.2: this client's access tokens are always DPoP-bound (token requests without a proof are refused).
  dpop_bound_access_tokens: z.boolean().optional(),
  // FAPI 2.0 Security Profile (fapi.ts): registrable, since it only tightens the rules for this client.
  fapi_profile: z.enum(FAPI_PROFILES, { error: 'the only profile is "2.0" (FAPI 2.0 Security Profile)' }).optional(),
  software_id: text(200).optional(),
  software_version: text(200).optional(),
};

/** The metadata members a client may register, in the order responses list them. */
export const REGISTRABLE = Object.keys(METADATA_SHAPE) as (keyof typeof METADATA_SHAPE)[];

const MetadataSchema = z.object(METADATA_SHAPE);

export type MetadataInput = z.output<typeof MetadataSchema>;

/** Understood members whose feature this provider does not offer: refused, not ignored. */
const UNSUPPORTED: Record<string, string> = {
  id_token_encrypted_response_alg: "encrypted ID Tokens are not supported",
  id_token_encrypted_response_enc: "encrypted ID Tokens are not supported",
  authorization_encrypted_response_alg: "encrypted authorization responses are not supported",
  authorization_encrypted_response_enc: "encrypted authorization responses are not supported",
  introspection_encrypted_response_alg: "encrypted introspection responses are not supported",
  introspection_encrypted_response_enc: "encrypted introspection responses are not supported",
  userinfo_encrypted_response_alg: "encrypted UserInfo responses are not supported",
  userinfo_encrypted_response_enc: "encrypted UserInfo responses are not supported",
  software_statement: "software statements are not supported",
};

/** One field that failed validation. */
type FieldIssue = { field: string; message: string };

function issue_words(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
}

/**
 * Reads the metadata members of a JSON body. RFC 7591 §3.2.2: problems with redirect_uris are
 * invalid_redirect_uri, any other invalid_client_metadata.
 */
export function parse_metadata(body: Record<string, unknown>): MetadataInput {
  const present: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(body)) {
    if (value === null) continue;
    const unsupported = UNSUPPORTED[key];
    if (unsupported !== undefined) throw invalid_metadata(`${key}: ${unsupported}`);
    present[key] = value;
  }
  const parsed = MetadataSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ field: issue.path.map(String).join(".") || "(root)", message: issue.message }));
  const redirect = issues.filter((issue) => issue.field === "redirect_uris" || issue.field.startsWith("redirect_uris."));
  const error: RegistrationError = redirect.length > 0 ? invalid_redirect_uri(issue_words(redirect)) : invalid_metadata(issue_words(issues));
  throw error;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** RFC 7591 §3.1, RFC 7592 §2.2: the metadata is one JSON object sent as application/json. */
export function json_object(content_type: string | null, body: unknown): Record<string, unknown> {
  if (!JSON_TYPE.test(content_type ?? "") || typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid_metadata("send the client metadata as a JSON object with Content-Type: application/json");
  }
  return body as Record<string, unknown>;
}
