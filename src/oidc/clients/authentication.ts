/**
 * Client authentication at /token, /revoke, /introspect and /par (RFC 9126 §2) (RFC 6749 §2.3, OIDC Core §9):
 * client_secret_basic, client_secret_post, private_key_jwt (assertion.ts), or none for
 * public clients — exactly the method the client registered. Secrets are 256-bit random values
 * stored as SHA-256 (RFC 6819 §5.1.4.1.3; docs/ARCHITECTURE.md, "Security at rest"), compared in
 * constant time, with the current secret and, during a rotation's grace period, the previous one
 * (oidc/admin/clients.ts `rotate_client_secret`); the one used is dated at most once a minute
 * (SECRET_USE_INTERVAL), so a busy client adds no write to most requests. Failed authentications are counted and limited per client_id and address
 * (limits/client_auth.ts); successful ones are not.
 */
import { decodeJwt } from "jose";
import { auth_method } from "./metadata.ts";
import { begin_client_auth } from "../limits/client_auth.ts";
import { JWT_BEARER, assertion_client_id, verify_client_assertion } from "./assertion.ts";
import { constant_time_equal, sha256 } from "../crypto/secrets.ts";
import { is_fapi } from "./fapi.ts";
import { OAuthError, invalid_client } from "../errors.ts";
import { PATHS } from "../discovery/paths.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";
import { previous_secret_live } from "./previous_secret.ts";
import { annotate_request } from "../ops/tracing.ts";

export type Credentials =
  | { method: "client_secret_basic" | "client_secret_post"; client_id: string; secret: string }
  | { method: "private_key_jwt"; client_id: string; assertion: string }
  | { method: "none"; client_id: string };

/** The client authentication parameters of a request body. */
export type CredentialParams = { client_id?: string; client_secret?: string; client_assertion?: string; client_assertion_type?: string };

/** The endpoints that authenticate clients; a client assertion may name the one it is sent to. */
export type AuthenticatingEndpoint = "token" | "revoke" | "introspect" | "par" | "device_authorization";

/** RFC 6749 §2.3.1: client_id and secret are form-urlencoded before going into Basic. */
function form_decode(value: string): string {
  // Nothing to decode in most ids and secrets (base64url, UUIDs): skip the replace and decode.
  if (!value.includes("%") && !value.includes("+")) return value;
  return decodeURIComponent(value.replace(/\+/g, " "));
}

const NON_ASCII = /[^\x00-\x7f]/;

/** The UTF-8 text of base64 (lenient, as Buffer decodes it): atob when it can (cheaper than Buffer). */
function base64_text(encoded: string): string {
  try {
    // atob gives one char a byte: the same text when every byte is ASCII.
    const binary = atob(encoded);
    if (!NON_ASCII.test(binary)) return binary;
  } catch {
    // Padding atob refuses but Buffer accepts ("YQ=", "YQ==YQ"): decoded below as before.
  }
  return Buffer.from(encoded, "base64").toString("utf8");
}

/** Reads the Basic credentials of an Authorization header; null when it is not Basic. */
export function parse_basic(header: string | null): { client_id: string; secret: string } | "malformed" | null {
  if (header === null) return null;
  const match = /^basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (match === null) return /^basic(\s|$)/i.test(header) ? "malformed" : null;
  const decoded = base64_text(match[1]!);
  const colon = decoded.indexOf(":");
  if (colon === -1) return "malformed";
  try {
    return { client_id: form_decode(decoded.slice(0, colon)), secret: form_decode(decoded.slice(colon + 1)) };
  } catch {
    return "malformed";
  }
}

// RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
const ONE_METHOD = "use one client authentication method: Basic, client_secret or client_assertion, not several";

/** Which method the request used, with the credentials it carries. */
export function read_credentials(idp: Provider, authorization: string | null, body: CredentialParams): Credentials {
  const realm = idp.config.issuer;
  const basic = parse_basic(authorization);
  if (basic === "malformed") throw invalid_client("malformed Basic credentials", true, realm);
  const asserted = body.client_assertion !== undefined || body.client_assertion_type !== undefined;
  if (basic !== null) {
    if (body.client_secret !== undefined || asserted) throw new OAuthError("invalid_request", ONE_METHOD);
    if (body.client_id !== undefined && body.client_id !== basic.client_id) throw invalid_client("client_id in the body differs from the Basic credentials", true, realm);
    return { method: "client_secret_basic", client_id: basic.client_id, secret: basic.secret };
  }
  if (asserted) {
    if (body.client_secret !== undefined) throw new OAuthError("invalid_request", ONE_METHOD);
    // RFC 7521 §4.2: both parameters, and the assertion type this server understands.
    if (body.client_assertion === undefined || body.client_assertion === "") throw new OAuthError("invalid_request", "client_assertion is required with client_assertion_type");
    if (body.client_assertion_type !== JWT_BEARER) throw invalid_client(`client_assertion_type must be ${JWT_BEARER}`, false, realm);
    const client_id = assertion_client_id(idp, body.client_assertion);
    // RFC 7521 §4.2: client_id is optional; when sent it must name the same client.
    if (body.client_id !== undefined && body.client_id !== client_id) throw invalid_client("client_id differs from the client_assertion's sub", false, realm);
    return { method: "private_key_jwt", client_id, assertion: body.client_assertion };
  }
  if (body.client_id === undefined || body.client_id === "") throw invalid_client("client authentication is required", false, realm);
  if (body.client_secret !== undefined) return { method: "client_secret_post", client_id: body.client_id, secret: body.client_secret };
  return { method: "none", client_id: body.client_id };
}

/**
 * The aud values a client assertion may carry at `endpoint`: the issuer (RFC 7523 §3, the
 * identifier of this authorization server), the token endpoint URL (OIDC Core §9), and the URL of
 * the endpoint called. All name this server, so accepting each opens no cross-server confusion.
 */
export function assertion_audiences(idp: Provider, endpoint: AuthenticatingEndpoint): string[] {
  const issuer = idp.config.issuer;
  return [...new Set([issuer, `${issuer}${PATHS.token}`, `${issuer}${PATHS[endpoint]}`])];
}

/** A Content-Type of application/x-www-form-urlencoded, with or without parameters. */
export const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/**
 * The client a request says it comes from, unauthenticated: Basic credentials (RFC 6749 §2.3.1),
 * else the form's client_id, else the sub of a client assertion (RFC 7523 §3). Null when none.
 */
export function claimed_client_id(authorization: string | null, form: Readonly<Record<string, unknown>> | null): string | null {
  const basic = parse_basic(authorization);
  if (basic !== null && basic !== "malformed" && basic.client_id !== "") return basic.client_id;
  if (form === null) return null;
  const client_id = first(form.client_id);
  if (client_id !== null && client_id !== "") return client_id;
  const assertion = first(form.client_assertion);
  if (assertion === null) return null;
  try {
    const sub = decodeJwt(assertion).sub;
    return typeof sub === "string" && sub !== "" ? sub : null;
  } catch {
    return null;
  }
}

/**
 * True when a request tries to authenticate its client (RFC 6749 §2.3): an Authorization: Basic
 * header (even a malformed one), a client_secret or a client_assertion. A public client's request
 * (client_id alone) carries none.
 */
export function carries_credentials(authorization: string | null, form: Readonly<Record<string, unknown>> | null): boolean {
  if (parse_basic(authorization) !== null) return true;
  return form !== null && (first(form.client_secret) !== null || first(form.client_assertion) !== null || first(form.client_assertion_type) !== null);
}

/** The first value of a parsed form field (a repeated key is an array), null when absent. */
function first(value: unknown): string | null {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === "string" ? one : null;
}

/**
 * The authenticated client of a POST to /token, /revoke or /introspect from the address `ip()`
 * (asked for only while the limits are on), whose parameters are form-encoded (RFC 6749 §3.2, RFC 7009 §2.1, RFC 7662 §2.1). Refused with 429
 * before any verification while the client_id or the address is over a failure limit
 * (limits/client_auth.ts); every invalid_client answer is counted there, here and nowhere else.
 */
export async function authenticated_client(idp: Provider, headers: Headers, body: CredentialParams, endpoint: AuthenticatingEndpoint, ip: () => string): Promise<ClientRow> {
  if (!FORM.test(headers.get("content-type") ?? "")) throw new OAuthError("invalid_request", "send the parameters as application/x-www-form-urlencoded");
  const authorization = headers.get("authorization");
  let credentials: Credentials | null = null;
  let unreadable: unknown = null;
  try {
    credentials = read_credentials(idp, authorization, body);
  } catch (error) {
    unreadable = error;
  }
  const attempt = await begin_client_auth(idp, ip, credentials?.client_id ?? claimed_client_id(authorization, body));
  try {
    if (credentials === null) throw unreadable;
    const client = await authenticate_client(idp, credentials, endpoint);
    await attempt.succeeded();
    annotate_request({ "idp.client_id": client.client_id });
    return client;
  } catch (error) {
    await (error instanceof OAuthError && error.error === "invalid_client" ? attempt.failed() : attempt.abandoned());
    throw error;
  }
}

/** Authenticates the client; invalid_client (401) on any failure, with no detail on which part of a secret failed. */
async function authenticate_client(idp: Provider, credentials: Credentials, endpoint: AuthenticatingEndpoint = "token"): Promise<ClientRow> {
  const used_basic = credentials.method === "client_secret_basic";
  const realm = idp.config.issuer;
  const client = await idp.store.get_client(credentials.client_id);
  if (client === null) throw invalid_client("client authentication failed", used_basic, realm);
  const registered = auth_method(client);
  // FAPI 2.0 §5.3.2.1 items 3 and 6: a FAPI client authenticates with private_key_jwt, whatever it
  // registered before the server-wide switch (mTLS, the profile's other method, is not offered).
  const fapi = is_fapi(idp, client);
  if (fapi && credentials.method !== "private_key_jwt") throw invalid_client("this client must authenticate with private_key_jwt (FAPI 2.0 §5.3.2.1)", used_basic, realm);
  if (registered !== credentials.method) throw invalid_client(`this client must authenticate with ${registered}`, used_basic, realm);
  switch (credentials.method) {
    case "none":
      return client;
    case "private_key_jwt":
      // FAPI 2.0 §5.3.2.1 item 8: only the issuer, as a string, is the aud of a FAPI client's assertion.
      await verify_client_assertion(idp, client, credentials.assertion, fapi ? [realm] : assertion_audiences(idp, endpoint), fapi);
      return client;
    default: {
      const now = idp.now();
      const hash = client.client_secret_hash;
      const expired = client.client_secret_expires_at !== 0 && client.client_secret_expires_at <= now;
      const previous = previous_secret_live(client, now);
      // Hash even when there is nothing to compare, so unknown and known clients cost the same;
      // compare with both secrets every time, so the time taken says nothing of which one matched.
      const given = sha256(credentials.secret);
      const current_matches = constant_time_equal(given, hash ?? "") && hash !== null && !expired;
      const previous_matches = constant_time_equal(given, previous ?? "") && previous !== null;
      if (!current_matches && !previous_matches) throw invalid_client("client authentication failed", used_basic, realm);
      await note_secret_use(idp, client, current_matches ? "current" : "previous", now);
      return client;
    }
  }
}

/** Seconds between two records of a secret's last use: the console shows it to the minute. */
export const SECRET_USE_INTERVAL = 60;

/** Dates the use of the client's current or previous secret, unless it was dated less than a minute ago. */
async function note_secret_use(idp: Provider, client: ClientRow, which: "current" | "previous", now: number): Promise<void> {
  const [hash, used_at] = which === "current" ? [client.client_secret_hash, client.client_secret_used_at] : [client.previous_secret_hash, client.previous_secret_used_at];
  if (hash === null || (used_at !== null && now - used_at < SECRET_USE_INTERVAL)) return;
  await idp.store.note_client_secret_use(client.client_id, hash, now);
}

/**
 * Client credentials (RFC 6749 §2.3.1 client_secret; RFC 7521 §4.2 / RFC 7523 §2.2 assertions)
 * and the Bearer tokens of registration (RFC 6750 §2.3 access_token): a URL is logged, cached and
 * sent on in Referer, so RFC 6749 §2.3.1 says they "MUST NOT be included in the request URI".
 */
const URL_FORBIDDEN: Record<"client" | "bearer", readonly string[]> = {
  client: ["client_secret", "client_assertion", "client_assertion_type"],
  bearer: ["access_token", "registration_access_token", "client_secret"],
};

/**
 * invalid_request when the query string of a request to an endpoint that takes client
 * credentials (`client`: /token, /revoke, /introspect) or a registration Bearer token (`bearer`:
 * /register and RFC 7592 management) carries one. `query` is the query string alone, never the body.
 */
export function refuse_credentials_in_query(query: Readonly<Record<string, unknown>>, kind: "client" | "bearer"): void {
  for (const name of URL_FORBIDDEN[kind]) {
    if (Object.hasOwn(query, name))
      throw new OAuthError("invalid_request", `${name} must not be sent in the URL; send it in the request body or the Authorization header (RFC 6749 §2.3.1)`);
  }
}
