/**
 * The public keys of a private_key_jwt client (RFC 7523 §3, OIDC Core §9, OIDC Registration §2):
 * its registered `jwks`, or the JWK Set at its `jwks_uri`.
 *
 * A jwks_uri is fetched by the server on a client's behalf, so it is fenced in:
 * - https only; http just for a loopback host outside production (a developer's machine), and
 *   no redirects (they could lead anywhere);
 * - a 5 s timeout and a 64 KiB body limit;
 * - cached 5 minutes per provider; concurrent requests share one fetch;
 * - an unknown kid refetches once (the client rotated its keys), at most every 10 s per URI, so
 *   bogus assertions cannot make us hammer a client's server;
 * - a failed refetch keeps serving the keys fetched before.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { Provider } from "./provider.ts";
import type { ClientRow } from "../store/types.ts";

const CACHE_SECONDS = 300;
const REFETCH_COOLDOWN_SECONDS = 10;
const FETCH_TIMEOUT_MS = 5000;
const MAX_BYTES = 64 * 1024;
const MAX_ENTRIES = 1000;

/** Why a client's keys could not be had; the caller answers invalid_client. */
export class ClientJwksError extends Error {
  override name = "ClientJwksError";
}

type Entry = { resolve: JWTVerifyGetKey; fetched_at: number; /** The last fetch attempt, failed ones included. */ tried_at: number };

class JwksCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  /** URIs whose first fetch failed, and when: not retried within the cooldown. */
  private readonly failed = new Map<string, number>();

  constructor(private readonly idp: Provider) {}

  /** The cached key set of `uri`, fetched when missing or older than CACHE_SECONDS. */
  async get(uri: string): Promise<Entry> {
    const now = this.idp.now();
    const entry = this.entries.get(uri);
    if (entry !== undefined && (now - entry.fetched_at < CACHE_SECONDS || now - entry.tried_at < REFETCH_COOLDOWN_SECONDS)) return entry;
    const failed_at = this.failed.get(uri);
    if (entry === undefined && failed_at !== undefined && now - failed_at < REFETCH_COOLDOWN_SECONDS) throw new ClientJwksError("the client's jwks_uri could not be read");
    return this.fetch(uri, entry);
  }

  /** Refetches after an unknown kid, unless the last attempt is younger than the cooldown. */
  async refetch(uri: string, current: Entry): Promise<Entry | null> {
    if (this.idp.now() - current.tried_at < REFETCH_COOLDOWN_SECONDS) return null;
    return this.fetch(uri, current);
  }

  private fetch(uri: string, stale: Entry | undefined): Promise<Entry> {
    let pending = this.inflight.get(uri);
    if (pending === undefined) {
      pending = fetch_jwks(uri, this.idp.config.production)
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
          this.idp.log({ level: "warn", msg: "client jwks_uri fetch failed", jwks_uri: uri, error: String(error) });
          if (stale !== undefined) {
            stale.tried_at = this.idp.now();
            return stale;
          }
          if (this.failed.size >= MAX_ENTRIES) this.failed.clear();
          this.failed.set(uri, this.idp.now());
          throw error instanceof ClientJwksError ? error : new ClientJwksError("the client's jwks_uri could not be read");
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

function allowed_uri(uri: string, production: boolean): URL {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ClientJwksError("the client's jwks_uri is not a URL");
  }
  const loopback = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  if (url.protocol === "https:" || (url.protocol === "http:" && loopback && !production)) return url;
  throw new ClientJwksError("the client's jwks_uri must be https");
}

/** GET the JWK Set, within the limits above. */
async function fetch_jwks(uri: string, production: boolean): Promise<JSONWebKeySet> {
  const url = allowed_uri(uri, production);
  const response = await fetch(url, {
    headers: { accept: "application/jwk-set+json, application/json" },
    redirect: "manual",
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new ClientJwksError(`the client's jwks_uri answered ${response.status}`);
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_BYTES) {
    await response.body?.cancel();
    throw new ClientJwksError("the client's JWK Set is too large");
  }
  const text = await read_limited(response, MAX_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ClientJwksError("the client's jwks_uri did not return JSON");
  }
  return as_jwks(json);
}

async function read_limited(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new ClientJwksError("the client's JWK Set is too large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function as_jwks(value: unknown): JSONWebKeySet {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== "object" || value === null || !Array.isArray(keys)) throw new ClientJwksError("the client's jwks_uri did not return a JWK Set");
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
    const entry = await cache.get(jwks_uri);
    try {
      return await entry.resolve(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      const fresh = await cache.refetch(jwks_uri, entry);
      if (fresh === null || fresh === entry) throw error;
      return fresh.resolve(header, token);
    }
  };
}
