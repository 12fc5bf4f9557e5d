/**
 * Starts a real provider for tests: a server on a free port, an in-memory SQLite store, one user
 * with a full profile and a confidential client (client_secret_basic), created directly through
 * the store and the crypto helpers. `clock.advance()` moves the provider's time.
 */
import { load_config, type Config } from "../../src/app/config.ts";
import { hash_password } from "../../src/platform/passwords.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import type { Log, Provider } from "../../src/oidc/provider.ts";
import { serve } from "../../src/app/server.ts";
import type { MailWorkerOptions } from "../../src/app/mail/worker.ts";
import type { WebhookWorkerOptions } from "../../src/app/webhooks/worker.ts";
import { open_store } from "../../src/store/open.ts";
import { free_port } from "./serve_fetch.ts";
import type { ClientMetadata, ClientRow, NewUser, Store, UserRow } from "../../src/store/types.ts";

export const PASSWORD = "correct horse battery staple";
export const REDIRECT_URI = "https://rp.example.com/callback";

/** Fast argon2id for tests (the config minimum); production defaults are OWASP's. */
const TEST_ARGON2 = { memory_kib: 1024, time_cost: 1 };
/**
 * The mail worker polls often and retries after a second (doubling, at most 2 s), so a test of an
 * SMTP outage waits seconds, not the production 30 s (tests/helpers/smtp.ts is the SMTP server;
 * pass `config: { smtp_url: smtp.url, mail_from: "idp@example.com" }`).
 */
export const TEST_MAIL_WORKER: Partial<MailWorkerOptions> = { poll_ms: 250, retry_base_seconds: 1, retry_max_seconds: 2 };
/** The webhook worker as the mail worker in tests: polls often, retries after a second (at most 2 s). */
export const TEST_WEBHOOK_WORKER: Partial<WebhookWorkerOptions> = { poll_ms: 250, retry_base_seconds: 1, retry_max_seconds: 2 };
/** No wait before sign-in attempts for a username under attack (tests/security checks the wait itself). */
const TEST_LOGIN_THROTTLE = { delay_ms: 0 };

/**
 * The provider's clock in tests: real seconds plus what `advance` added. `freeze` stops the real
 * part (a test whose steps must land in one second, e.g. a 1-second polling interval on a busy
 * machine) until `thaw`; time never goes backwards across them.
 */
export type TestClock = { now(): number; advance(seconds: number): void; freeze(): void; thaw(): void };

export type TestProvider = {
  url: string;
  issuer: string;
  store: Store;
  provider: Provider;
  config: Config;
  user: UserRow;
  password: string;
  /** The confidential client_secret_basic client. */
  client: ClientRow;
  secret: string;
  clock: TestClock;
  /** Registers another client; returns it with its secret (null for public clients). */
  add_client(metadata: ClientMetadata, options?: { client_id?: string }): Promise<{ client: ClientRow; secret: string | null }>;
  add_user(user: Partial<NewUser> & { username: string }, password?: string): Promise<UserRow>;
  stop(): Promise<void>;
};

// The issuer must name the port before the server starts.
export { free_port } from "./serve_fetch.ts";

export function test_clock(): TestClock {
  let offset = 0;
  let frozen: number | null = null;
  const real = () => Math.floor(Date.now() / 1000);
  return {
    now: () => (frozen ?? real()) + offset,
    advance: (seconds) => void (offset += seconds),
    freeze: () => void (frozen = real()),
    thaw: () => void (frozen = null),
  };
}

export async function start_provider(
  options: {
    config?: Record<string, unknown>;
    database_url?: string /** Where the server's log lines go (default: nowhere). */;
    log?: Log /** Default TEST_MAIL_WORKER. */;
    mail_worker?: Partial<MailWorkerOptions> /** The issuer's host name (default 127.0.0.1); "localhost" for WebAuthn, whose RP ID cannot be an IP address. */;
    issuer_host?: string;
    /** Default TEST_WEBHOOK_WORKER. */
    webhook_worker?: Partial<WebhookWorkerOptions>;
    /** Settings as environment variables (IDP_*), under `config`. */
    env?: Record<string, string>;
  } = {},
): Promise<TestProvider> {
  const port = await free_port();
  const issuer = `http://${options.issuer_host ?? "127.0.0.1"}:${port}`;
  const database_url = options.database_url ?? "sqlite::memory:";
  const config = load_config(options.env ?? {}, {
    issuer,
    port,
    host: "127.0.0.1",
    database_url,
    signing_algs: ["RS256", "ES256"],
    log_requests: false,
    argon2: TEST_ARGON2,
    login_throttle: TEST_LOGIN_THROTTLE,
    ...options.config,
  });
  const store = await open_store(database_url, { migrate: true });
  const clock = test_clock();

  const add_user = async (fields: Partial<NewUser> & { username: string }, password = PASSWORD) =>
    store.create_user({ ...fields, password_hash: await hash_password(password, config.argon2) });
  const add_client = async (metadata: ClientMetadata, opts: { client_id?: string } = {}) => {
    const is_public = metadata.token_endpoint_auth_method === "none";
    const secret = is_public ? null : random_token(32);
    const client = await store.create_client({
      client_id: opts.client_id ?? `client-${random_token(16).slice(0, 12)}`,
      client_secret_hash: secret === null ? null : sha256(secret),
      metadata: { redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code"], response_types: ["code"], ...metadata },
    });
    return { client, secret };
  };

  const user = await add_user({
    username: "alice",
    name: "Alice Liddell",
    given_name: "Alice",
    family_name: "Liddell",
    picture: "https://rp.example.com/alice.png",
    email: "alice@example.com",
    email_verified: true,
    phone_number: "+1 555 0100",
    phone_number_verified: false,
    address: { street_address: "1 Rabbit Hole", locality: "Oxford", postal_code: "OX1", country: "GB" },
  });
  const { client, secret } = await add_client({ client_name: "Test App", token_endpoint_auth_method: "client_secret_basic" }, { client_id: "test-app" });

  const served = await serve(config, {
    store,
    port,
    now: clock.now,
    log: options.log ?? (() => {}),
    out: () => {},
    mail_worker: options.mail_worker ?? TEST_MAIL_WORKER,
    webhook_worker: options.webhook_worker ?? TEST_WEBHOOK_WORKER,
  });
  return {
    url: served.url,
    issuer,
    store,
    provider: served.provider,
    config,
    user,
    password: PASSWORD,
    client,
    secret: secret!,
    clock,
    add_client,
    add_user,
    async stop() {
      await served.stop();
      await store.close();
    },
  };
}
