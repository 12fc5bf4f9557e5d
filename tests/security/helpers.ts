/**
 * The provider as an in-process app (`build_app`, no server, no socket) for tests that send
 * thousands of requests: an in-memory SQLite store, one user, a confidential client
 * (client_secret_basic), a public client (none, PKCE) and a private_key_jwt client. Rate limits
 * are off unless a test turns them on: fuzzing sends more than any limit allows.
 */
import { exportJWK, generateKeyPair, type CryptoKey } from "jose";
import type { AddressLookup } from "../../src/fw/index.ts";
import { load_config, type Config } from "../../src/app/config.ts";
import { hash_password } from "../../src/platform/passwords.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { create_provider } from "../../src/app/provider.ts";
import type { Provider } from "../../src/oidc/provider.ts";
import { build_app } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import type { JsonObject, Store } from "../../src/store/types.ts";

export const ISSUER = "https://idp.test";
export const CALLBACK = "https://rp.test/callback";
export const LOGOUT_CALLBACK = "https://rp.test/signed-out";
export const PASSWORD = "correct horse battery staple";

export type InProcess = {
  idp: Provider;
  store: Store;
  config: Config;
  /** The confidential client and its secret. */
  client_id: string;
  secret: string;
  public_client_id: string;
  /** A private_key_jwt client and its signing key. */
  jwt_client_id: string;
  jwt_key: CryptoKey;
  /** The provider's clock (unix seconds); `advance` moves it. */
  clock: { now(): number; advance(seconds: number): void };
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Another instance of the provider on the same store (counters, sessions and keys shared). */
  instance(): Promise<(path: string, init?: RequestInit) => Promise<Response>>;
  close(): Promise<void>;
};

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/** In process there is no socket: requests come from a loopback peer, as through a proxy on this host. */
const LOOPBACK_PEER: AddressLookup = { requestIP: () => ({ address: "127.0.0.1" }) };

function fetcher(app: ReturnType<typeof build_app>): Fetch {
  return (path, init) => app.fetch(new Request(path.startsWith("/") ? `${ISSUER}${path}` : path, { redirect: "manual", ...init }), LOOPBACK_PEER);
}

export async function in_process(overrides: Record<string, unknown> = {}): Promise<InProcess> {
  const config = load_config(
    {},
    {
      issuer: ISSUER,
      database_url: "sqlite::memory:",
      signing_algs: ["RS256"],
      log_requests: false,
      argon2: { memory_kib: 1024, time_cost: 1 },
      registration: "open",
      rate_limits: { enabled: false },
      login_throttle: { delay_ms: 0 },
      ...overrides,
    },
  );
  const store = await open_store(config.database_url, { migrate: true });
  let offset = 0;
  const clock = { now: () => Math.floor(Date.now() / 1000) + offset, advance: (seconds: number) => void (offset += seconds) };
  const idp = await create_provider(config, { store, log: () => {}, now: clock.now });
  const app = build_app(idp);
  await store.create_user({ username: "alice", password_hash: await hash_password(PASSWORD, config.argon2), email: "alice@example.com" });
  const secret = random_token(32);
  const base = { redirect_uris: [CALLBACK], post_logout_redirect_uris: [LOGOUT_CALLBACK], response_types: ["code"] };
  await store.create_client({
    client_id: "app",
    client_secret_hash: sha256(secret),
    metadata: {
      ...base,
      grant_types: ["authorization_code", "refresh_token", "client_credentials"],
      token_endpoint_auth_method: "client_secret_basic",
      scope: "openid profile email offline_access api",
    },
  });
  await store.create_client({ client_id: "spa", client_secret_hash: null, metadata: { ...base, grant_types: ["authorization_code"], token_endpoint_auth_method: "none" } });
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" } as JsonObject;
  await store.create_client({
    client_id: "jwt-app",
    client_secret_hash: null,
    metadata: { ...base, grant_types: ["authorization_code"], token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [jwk] } },
  });
  return {
    idp,
    store,
    config,
    client_id: "app",
    secret,
    public_client_id: "spa",
    jwt_client_id: "jwt-app",
    jwt_key: privateKey,
    clock,
    fetch: fetcher(app),
    instance: async () => fetcher(build_app(await create_provider(config, { store, log: () => {}, now: clock.now }))),
    close: () => store.close(),
  };
}

/** `Authorization: Basic` for a client (RFC 6749 §2.3.1: form-encoded, then base64). */
export function basic(client_id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${enc(client_id)}:${enc(secret)}`).toString("base64")}`;
}

export const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** Every error code of RFC 6749 §4.1.2.1/§5.2, RFC 6750 §3.1, RFC 7591 §3.2.2, OIDC Core §3.1.2.6. */
export const PROTOCOL_ERRORS = new Set([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "invalid_scope",
  "access_denied",
  "temporarily_unavailable",
  "invalid_token",
  "insufficient_scope",
  "login_required",
  "consent_required",
  "interaction_required",
  "account_selection_required",
  "request_not_supported",
  "request_uri_not_supported",
  "invalid_request_uri",
  "invalid_request_object",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "invalid_software_statement",
  "unapproved_software_statement",
]);

/** Asserts a protocol error answer in JSON: `{error, error_description}` with a known code. Returns the code. */
export async function protocol_error(response: Response, statuses: readonly number[] = [400, 401]): Promise<string> {
  const text = await response.text();
  if (!statuses.includes(response.status)) throw new Error(`status ${response.status} not in ${statuses.join(",")}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
  if (typeof body.error !== "string" || !PROTOCOL_ERRORS.has(body.error)) throw new Error(`unknown error code in ${text.slice(0, 300)}`);
  if (body.error_description !== undefined && typeof body.error_description !== "string") throw new Error(`error_description is not a string: ${text.slice(0, 300)}`);
  return body.error;
}
