/**
 * The public keys of a private_key_jwt client (RFC 7523 §3, OIDC Core §9, OIDC Registration §2):
 * its registered `jwks`, or the JWK Set at its `jwks_uri`.
 *
 * A jwks_uri (RFC 7591 §2) is fetched by the server on a client's behalf, so it goes through
 * outbound/fetch.ts (https, public addresses only unless allow-listed, no redirects, time and size
 * limits, failures logged), and:
 * - the client only ever hears "the client's jwks_uri could not be used": no status, address or
 *   reason (OWASP SSRF Prevention Cheat Sheet: no raw upstream answer back to the requester);
 * - cached 5 minutes per provider; concurrent requests share one fetch;
 * - an unknown kid refetches once (the client rotated its keys), at most every 10 s per URI, so
 *   bogus assertions cannot make us hammer a client's server;
 * - a failed refetch keeps serving the keys fetched before.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { OutboundError, outbound_fetch } from "../outbound/fetch.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

const CACHE_SECONDS = 300;
const REFETCH_COOLDOWN_SECONDS = 10;
const MAX_ENTRIES = 1000;
/** All the client is told when its jwks_uri fails, whatever the reason (the log has it). */
export const JWKS_URI_UNUSABLE = "the client's jwks_uri could not be used";

/** Why a client's keys could not be had; the caller answers invalid_client. */
export class ClientJwksError extends Error {
  override name = "ClientJwksError";
}

type Entry = { resolve: JWTVerifyGetKey; fetched_at: number /** The last fetch attempt, failed ones included. */; tried_at: number };

class JwksCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  /** URIs whose first fetch failed, and when: not retried within the cooldown. */
  private readonly failed = new Map<string, number>();

  constructor(private readonly idp: Provider) {}

  /** The cached key set of `uri`, fetched when missing or older than CACHE_SECONDS. */
  async get(uri: string, client_id: string): Promise<Entry> {
    const now = this.idp.now();
    const entry = this.entries.get(uri);
    if (entry !== undefined && (now - entry.fetched_at < CACHE_SECONDS || now - entry.tried_at < REFETCH_COOLDOWN_SECONDS)) return entry;
    const failed_at = this.failed.get(uri);
    if (entry === undefined && failed_at !== undefined && now - failed_at < REFETCH_COOLDOWN_SECONDS) throw new ClientJwksError(JWKS_URI_UNUSABLE);
    return this.fetch(uri, client_id, entry);
  }

  /** Refetches after an unknown kid, unless the last attempt is younger than the cooldown. */
  async refetch(uri: string, client_id: string, current: Entry): Promise<Entry | null> {
    if (this.idp.now() - current.tried_at < REFETCH_COOLDOWN_SECONDS) return null;
    return this.fetch(uri, client_id, current);
  }

  private fetch(uri: string, client_id: string, stale: Entry | undefined): Promise<Entry> {
    let pending = this.inflight.get(uri);
    if (pending === undefined) {
      pending = fetch_jwks(this.idp, uri, client_id)
        .then((jwks) => {
          const now = this.idp.now();
          const entry = { resolve: createLocalJWKSet(jwks), fetched_at: now, tried_at: now };
          if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
          this.entries.delete(uri);
          this.entries.set(uri, entry);
          this.failed.delete(uri);
          return entry;
        })
        .catch((error: unknown) => {
          // outbound/fetch.ts logged its own refusals and failures; what is left is the content.
          if (!(error instanceof OutboundError))
            this.idp.log({ level: "warn", msg: "client jwks_uri unusable", client_id, host: host_of(uri), reason: error instanceof Error ? error.message : String(error) });
          if (stale !== undefined) {
            stale.tried_at = this.idp.now();
            return stale;
          }
          if (this.failed.size >= MAX_ENTRIES) this.failed.clear();
          this.failed.set(uri, this.idp.now());
          throw new ClientJwksError(JWKS_URI_UNUSABLE);
        })
        .finally(() => this.inflight.delete(uri));
      this.inflight.set(uri, pending);
    }
    return pending;
  }
}

const caches = new WeakMap<Provider, JwksCache>();

function cache_of(idp: Provider): JwksCache {
  let cache = caches.get(idp);
  if (cache === undefined) caches.set(idp, (cache = new JwksCache(idp)));
  return cache;
}

function host_of(uri: string): string | null {
  try {
    return new URL(uri).host;
  } catch {
    return null;
  }
}

/** GET the JWK Set through outbound/fetch.ts; the content problems raise ClientJwksError (for the log). */
async function fetch_jwks(idp: Provider, uri: string, client_id: string): Promise<JSONWebKeySet> {
  const response = await outbound_fetch(idp, uri, { purpose: "jwks_uri", client_id, headers: { accept: "application/jwk-set+json, application/json" } });
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(response.body));
  } catch {
    throw new ClientJwksError("the jwks_uri did not return JSON");
  }
  return as_jwks(json);
}

function as_jwks(value: unknown): JSONWebKeySet {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== "object" || value === null || !Array.isArray(keys)) throw new ClientJwksError("the jwks_uri did not return a JWK Set");
  return { keys: keys.filter((key): key is JSONWebKeySet["keys"][number] => typeof key === "object" && key !== null) };
}

/**
 * The key resolver for jose's jwtVerify: the registered `jwks`, or the cached `jwks_uri` set with
 * one refetch when the assertion's kid is not in it. Raises ClientJwksError when the client has
 * no keys or they cannot be fetched.
 */
export function client_keys(idp: Provider, client: ClientRow): JWTVerifyGetKey {
  const { jwks, jwks_uri } = client.metadata;
  if (jwks !== undefined) return createLocalJWKSet(jwks as unknown as JSONWebKeySet);
  if (typeof jwks_uri !== "string") throw new ClientJwksError("the client has registered no public keys (jwks or jwks_uri)");
  const cache = cache_of(idp);
  return async (header, token) => {
    const entry = await cache.get(jwks_uri, client.client_id);
    try {
      return await entry.resolve(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      const fresh = await cache.refetch(jwks_uri, client.client_id, entry);
      if (fresh === null || fresh === entry) throw error;
      return fresh.resolve(header, token);
    }
  };
}
