/**
 * The relying-party side of an upstream: openid-client's configuration for it (its discovery
 * document, or the endpoints an OAuth 2.0 upstream declares), cached per provider and replaced
 * when the upstream row changes; our client authentication to it (client_secret or
 * private_key_jwt); every request through the outbound fence (outbound/fetch.ts).
 */
import * as client from "openid-client";
import { random_token } from "../crypto/secrets.ts";
import { OutboundError, outbound_fetch } from "../outbound/fetch.ts";
import type { Provider } from "../provider.ts";
import type { UpstreamRow } from "../../store/types.ts";
import { open_secret } from "./secret_box.ts";

/** Every status but redirects reaches openid-client, which reads OAuth error bodies itself. */
const ANSWERED = [...Array(100).keys()].map((i) => 200 + i).concat([...Array(200).keys()].map((i) => 400 + i));

const CONFIG_TTL_SECONDS = 10 * 60;
/** Per provider, per upstream name: one configuration, replaced when the upstream row changes. */
const configurations = new WeakMap<Provider, Map<string, { at: number; updated_at: number; config: client.Configuration }>>();

export class UpstreamUnavailable extends Error {}

function upstream_fetch(idp: Provider, name: string): client.CustomFetch {
  return async (url, options) => {
    const headers: Record<string, string> = {};
    new Headers(options.headers as HeadersInit).forEach((value, key) => {
      headers[key] = value;
    });
    const body = options.body === undefined || options.body === null ? undefined : String(options.body);
    const method = (options.method ?? "GET").toUpperCase() === "POST" ? "POST" : "GET";
    const answer = await outbound_fetch(idp, url, { purpose: `upstream:${name}`, method, headers, body, accept_status: ANSWERED });
    const empty = answer.status === 204 || answer.body.byteLength === 0;
    return new Response(empty ? null : (answer.body as unknown as BodyInit), { status: answer.status, headers: answer.headers });
  };
}

/** The client assertion's lifetime (seconds): one request. */
const ASSERTION_TTL_SECONDS = 60;

/**
 * The client assertion's JWS `typ` (draft-ietf-oauth-rfc7523bis §4). The assertion is signed with
 * the key that signs our ID Tokens; "JWT" would let it pass for one of our own tokens, this type
 * is one none of our checks accepts (tokens/id_token_hint.ts).
 */
export const CLIENT_ASSERTION_TYP = "client-authentication+jwt";

/**
 * `private_key_jwt` (OIDC Core §9, RFC 7523 §2.2): an assertion signed with our own active
 * signing key, whose public half the upstream reads from our JWKS (register our jwks_uri there),
 * typed CLIENT_ASSERTION_TYP. `aud` is the upstream's issuer, as openid-client's own PrivateKeyJwt
 * sends it (RFC 7523bis: an assertion bound to one server cannot be replayed at another's token
 * endpoint); `jti` is random, so the upstream can refuse a replay.
 */
function private_key_jwt(idp: Provider, client_id: string): client.ClientAuth {
  const auth = async (as: client.ServerMetadata, _client: client.ClientMetadata, body: URLSearchParams) => {
    const now = idp.now();
    const assertion = await idp.keys.sign(
      { iss: client_id, sub: client_id, aud: as.issuer, jti: random_token(32), iat: now, exp: now + ASSERTION_TTL_SECONDS },
      { typ: CLIENT_ASSERTION_TYP },
    );
    body.set("client_id", client_id);
    body.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    body.set("client_assertion", assertion);
  };
  // openid-client declares ClientAuth synchronous; oauth4webapi, which calls it, awaits it.
  return auth as unknown as client.ClientAuth;
}

function client_auth(idp: Provider, upstream: UpstreamRow): client.ClientAuth {
  if (upstream.token_endpoint_auth_method === "private_key_jwt") return private_key_jwt(idp, upstream.client_id);
  if (upstream.client_secret_enc === null) return client.None();
  return client.ClientSecretPost(open_secret(idp.config.federation.secret_key, upstream.name, upstream.client_secret_enc));
}

/** The upstream's configuration: its discovery document (oidc) or its declared endpoints (oauth2). */
export async function upstream_configuration(idp: Provider, upstream: UpstreamRow): Promise<client.Configuration> {
  let cache = configurations.get(idp);
  if (cache === undefined) configurations.set(idp, (cache = new Map()));
  const hit = cache.get(upstream.name);
  if (hit !== undefined && hit.updated_at === upstream.updated_at && idp.now() - hit.at < CONFIG_TTL_SECONDS) return hit.config;
  const insecure = idp.config.outbound.allow_http;
  const fetcher = upstream_fetch(idp, upstream.name);
  let config: client.Configuration;
  try {
    if (upstream.kind === "oidc") {
      config = await client.discovery(new URL(upstream.issuer!), upstream.client_id, undefined, client_auth(idp, upstream), {
        [client.customFetch]: fetcher,
        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
      });
      // OIDC Core §3.1.3.7 lets a client skip the ID Token's signature when it came over TLS from
      // the token endpoint, and openid-client does; we check it anyway (the JWKS through the same
      // fence): http upstreams are allowed on intranets, and a TLS-terminating middlebox is not
      // the upstream.
      client.enableNonRepudiationChecks(config);
    } else {
      const issuer = upstream.issuer ?? new URL(upstream.authorization_endpoint!).origin;
      config = new client.Configuration(
        {
          issuer,
          authorization_endpoint: upstream.authorization_endpoint!,
          token_endpoint: upstream.token_endpoint!,
          ...(upstream.userinfo_endpoint === null ? {} : { userinfo_endpoint: upstream.userinfo_endpoint }),
        },
        upstream.client_id,
        undefined,
        client_auth(idp, upstream),
      );
      config[client.customFetch] = fetcher;
      if (insecure) client.allowInsecureRequests(config);
    }
  } catch (error) {
    throw new UpstreamUnavailable(error instanceof OutboundError ? `discovery: ${error.reason}` : `discovery: ${error instanceof Error ? error.message : "error"}`);
  }
  cache.set(upstream.name, { at: idp.now(), updated_at: upstream.updated_at, config });
  return config;
}

/**
 * A GitHub-style address list ([{email, primary, verified}]): the primary address and whether it
 * is verified, as `email` and `email_verified` (replacing what the user endpoint said).
 */
export async function primary_email(config: client.Configuration, access_token: string, endpoint: string): Promise<Record<string, unknown>> {
  const response = await client.fetchProtectedResource(config, access_token, new URL(endpoint), "GET", undefined, new Headers({ accept: "application/json" }));
  const list = (await response.json()) as unknown;
  if (!Array.isArray(list)) throw new Error("the e-mail endpoint did not answer a JSON array");
  const primary = list.find(
    (entry): entry is { email: string; verified?: unknown } => typeof entry === "object" && entry !== null && entry.primary === true && typeof entry.email === "string",
  );
  return primary === undefined ? { email: null, email_verified: false } : { email: primary.email, email_verified: primary.verified === true };
}
