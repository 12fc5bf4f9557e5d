/**
 * Client authentication at the token endpoint (RFC 6749 §2.3, OIDC Core §9):
 * client_secret_basic, client_secret_post, or none for public clients — exactly the method the
 * client registered. Secrets are 256-bit random values stored as SHA-256 (DESIGN §5), compared in
 * constant time.
 */
import { auth_method } from "./clients.ts";
import { constant_time_equal, sha256 } from "./crypto/secrets.ts";
import { OAuthError, invalid_client } from "./errors.ts";
import type { TokenAuthMethod } from "./metadata.ts";
import type { Provider } from "./provider.ts";
import type { ClientRow } from "./store/types.ts";

export type Credentials = { method: TokenAuthMethod; client_id: string; secret: string | null };

/** RFC 6749 §2.3.1: client_id and secret are form-urlencoded before going into Basic. */
function form_decode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "));
}

/** Reads the Basic credentials of an Authorization header; null when it is not Basic. */
export function parse_basic(header: string | null): { client_id: string; secret: string } | "malformed" | null {
  if (header === null) return null;
  const match = /^basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (match === null) return /^basic(\s|$)/i.test(header) ? "malformed" : null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon === -1) return "malformed";
  try {
    return { client_id: form_decode(decoded.slice(0, colon)), secret: form_decode(decoded.slice(colon + 1)) };
  } catch {
    return "malformed";
  }
}

/** Which method the request used, with the credentials it carries. */
export function read_credentials(idp: Provider, authorization: string | null, body: { client_id?: string; client_secret?: string }): Credentials {
  const realm = idp.config.issuer;
  const basic = parse_basic(authorization);
  if (basic === "malformed") throw invalid_client("malformed Basic credentials", true, realm);
  if (basic !== null) {
    // RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
    if (body.client_secret !== undefined) throw new OAuthError("invalid_request", "use one client authentication method: Basic or client_secret in the body, not both");
    if (body.client_id !== undefined && body.client_id !== basic.client_id) throw invalid_client("client_id in the body differs from the Basic credentials", true, realm);
    return { method: "client_secret_basic", client_id: basic.client_id, secret: basic.secret };
  }
  if (body.client_id === undefined || body.client_id === "") throw invalid_client("client authentication is required", false, realm);
  if (body.client_secret !== undefined) return { method: "client_secret_post", client_id: body.client_id, secret: body.client_secret };
  return { method: "none", client_id: body.client_id, secret: null };
}

/** Authenticates the client; invalid_client (401) on any failure, with no detail on which part. */
export async function authenticate_client(idp: Provider, credentials: Credentials): Promise<ClientRow> {
  const used_basic = credentials.method === "client_secret_basic";
  const realm = idp.config.issuer;
  const client = await idp.store.getClient(credentials.client_id);
  if (client === null) throw invalid_client("client authentication failed", used_basic, realm);
  const registered = auth_method(client);
  if (registered !== credentials.method) throw invalid_client(`this client must authenticate with ${registered}`, used_basic, realm);
  if (credentials.method === "none") return client;
  const hash = client.client_secret_hash;
  const expired = client.client_secret_expires_at !== 0 && client.client_secret_expires_at <= idp.now();
  // Hash even when there is nothing to compare, so unknown and known clients cost the same.
  const given = sha256(credentials.secret ?? "");
  if (hash === null || expired || !constant_time_equal(given, hash)) throw invalid_client("client authentication failed", used_basic, realm);
  return client;
}
