/**
 * Configuration: defaults < optional JSON config file (IDP_CONFIG) < environment. The only
 * place that reads the environment; parsed once at start against the schema
 * (src/config/schema.ts), and a bad value stops the start with a message naming the key.
 */
import { readFileSync } from "node:fs";
import { ConfigSchema, type Config } from "../config/schema.ts";
import { LOCALES, supported_locale } from "../oidc/ui/catalogs.ts";

export { ConfigSchema, is_loopback_issuer, type Config } from "../config/schema.ts";

/** Environment variable → config path. */
export const ENV_KEYS: Record<string, string> = {
  IDP_ISSUER: "issuer",
  PORT: "port",
  HOST: "host",
  DATABASE_URL: "database_url",
  DATABASE_POOL_SIZE: "database_pool_size",
  IDP_PRODUCTION: "production",
  IDP_CODE_TTL: "tokens.code_ttl",
  IDP_ACCESS_TOKEN_TTL: "tokens.access_token_ttl",
  IDP_ID_TOKEN_TTL: "tokens.id_token_ttl",
  IDP_REFRESH_TOKEN_TTL: "tokens.refresh_token_ttl",
  IDP_SESSION_TTL: "tokens.session_ttl",
  IDP_INTERACTION_TTL: "tokens.interaction_ttl",
  IDP_ROUTER_PATH_CACHE_SIZE: "router.path_cache_size",
  IDP_BODY_LIMIT: "body_limit",
  IDP_ARGON2_MEMORY_KIB: "argon2.memory_kib",
  IDP_ARGON2_TIME_COST: "argon2.time_cost",
  IDP_ARGON2_IMPL: "argon2.impl",
  IDP_OPENSSL: "openssl",
  IDP_SIGNING_ALGS: "signing_algs",
  IDP_REGISTRATION: "registration",
  IDP_SIGNUP: "signup.mode",
  IDP_SIGNUP_DOMAINS: "signup.domains",
  IDP_SIGNUP_REQUIRE_VERIFICATION: "signup.require_verification",
  IDP_SIGNUP_PER_IP: "signup.per_ip",
  IDP_SIGNUP_WINDOW_SECONDS: "signup.window_seconds",
  IDP_INVITATION_TTL: "signup.invitation_ttl",
  IDP_UNVERIFIED_ACCOUNT_DAYS: "signup.unverified_account_days",
  IDP_PASSWORD_MIN_LENGTH: "passwords.min_length",
  IDP_PASSWORD_MAX_LENGTH: "passwords.max_length",
  IDP_PASSWORD_RESET_TTL: "password_reset.ttl",
  IDP_PASSWORD_RESET_PER_ACCOUNT: "password_reset.per_account",
  IDP_PASSWORD_RESET_PER_IP: "password_reset.per_ip",
  IDP_PASSWORD_RESET_WINDOW_SECONDS: "password_reset.window_seconds",
  IDP_EMAIL_VERIFICATION_TTL: "email_verification.ttl",
  IDP_EMAIL_VERIFICATION_PER_ACCOUNT: "email_verification.per_account",
  IDP_TRUST_PROXY: "trust_proxy",
  IDP_METRICS_TOKEN: "metrics_token",
  IDP_LOG_REQUESTS: "log_requests",
  IDP_DEFAULT_LOCALE: "default_locale",
  IDP_SMTP_URL: "smtp_url",
  IDP_MAIL_FROM: "mail_from",
  IDP_KEYS_POLL_SECONDS: "keys_poll_seconds",
  IDP_PURGE_INTERVAL_SECONDS: "purge_interval_seconds",
  IDP_SHUTDOWN_GRACE_SECONDS: "shutdown_grace_seconds",
  IDP_WORKERS: "workers",
  IDP_REQUEST_TIMEOUT_SECONDS: "request_timeout_seconds",
  IDP_IDLE_TIMEOUT_SECONDS: "idle_timeout_seconds",
  IDP_LOGIN_WINDOW_SECONDS: "login_throttle.window_seconds",
  IDP_LOGIN_MAX_FAILURES: "login_throttle.max_failures",
  IDP_LOGIN_MAX_FAILURES_PER_IP: "login_throttle.max_failures_per_ip",
  IDP_LOGIN_DELAY_AFTER: "login_throttle.delay_after",
  IDP_LOGIN_DELAY_MS: "login_throttle.delay_ms",
  IDP_OUTBOUND_ALLOW_HTTP: "outbound.allow_http",
  IDP_OUTBOUND_ALLOW: "outbound.allow",
  IDP_OUTBOUND_CONNECT_TIMEOUT_MS: "outbound.connect_timeout_ms",
  IDP_OUTBOUND_TIMEOUT_MS: "outbound.timeout_ms",
  IDP_OUTBOUND_MAX_BYTES: "outbound.max_bytes",
  IDP_SECRET_KEY: "federation.secret_key",
  IDP_FEDERATION_STATE_TTL_SECONDS: "federation.state_ttl_seconds",
  IDP_RATE_LIMITS: "rate_limits.enabled",
  IDP_RATE_LIMIT_WINDOW_SECONDS: "rate_limits.window_seconds",
  IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT_IP: "rate_limits.auth_failures_per_client_ip",
  IDP_RATE_LIMIT_AUTH_FAILURES_PER_IP: "rate_limits.auth_failures_per_ip",
  IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT: "rate_limits.auth_failures_per_client",
  IDP_RATE_LIMIT_UNAUTHENTICATED_PER_IP: "rate_limits.unauthenticated_per_ip",
  IDP_RATE_LIMIT_TOKEN_PER_CLIENT: "rate_limits.token_per_client",
  IDP_RATE_LIMIT_TOKEN_PER_IP: "rate_limits.token_per_ip",
  IDP_RATE_LIMIT_REVOKE_PER_CLIENT: "rate_limits.revoke_per_client",
  IDP_RATE_LIMIT_REVOKE_PER_IP: "rate_limits.revoke_per_ip",
  IDP_RATE_LIMIT_FEDERATION_START_PER_IP: "rate_limits.federation_start_per_ip",
  IDP_RATE_LIMIT_INTROSPECT_PER_CLIENT: "rate_limits.introspect_per_client",
  IDP_RATE_LIMIT_INTROSPECT_PER_IP: "rate_limits.introspect_per_ip",
  IDP_RATE_LIMIT_REGISTER_PER_CLIENT: "rate_limits.register_per_client",
  IDP_RATE_LIMIT_REGISTER_PER_IP: "rate_limits.register_per_ip",
  IDP_PASSKEYS: "passkeys",
  IDP_REQUIRE_2FA: "require_2fa",
  IDP_ADMIN_API: "admin_api",
  IDP_ADMIN_CONSOLE: "admin_console.enabled",
  IDP_ADMIN_GROUP: "admin_console.group",
  IDP_REQUIRE_PAR: "par.required",
  IDP_PAR_REQUEST_URI_TTL: "par.request_uri_ttl",
  IDP_REQUEST_URI: "request_uri.enabled",
  IDP_REQUEST_URI_MAX_BYTES: "request_uri.max_bytes",
  IDP_PAIRWISE_SALT: "pairwise.salt",
  IDP_DEVICE_CODE_TTL: "device.code_ttl",
  IDP_DEVICE_POLL_INTERVAL: "device.interval",
  IDP_DEVICE_USER_CODE_ATTEMPTS: "device.user_code_attempts",
  IDP_DPOP_PROOF_WINDOW_SECONDS: "dpop.proof_window_seconds",
  IDP_DPOP_REQUIRE_NONCE: "dpop.require_nonce",
  IDP_FAPI: "fapi",
  IDP_BRAND_NAME: "brand.name",
  IDP_BRAND_LOGO: "brand.logo",
  IDP_BRAND_FAVICON: "brand.favicon",
  IDP_BRAND_COLOR: "brand.color",
  IDP_BRAND_CSS: "brand.css",
  IDP_THEME_DIR: "brand.theme_dir",
};

/**
 * `IDP_` variables that are not settings, so not in ENV_KEYS: the config file's path
 * (IDP_CONFIG), stack traces for unexpected CLI errors (IDP_DEBUG, src/cli/index.ts), and the
 * test suite's switches, which .ci/run exports to every process it starts (IDP_REQUIRE_POSTGRES,
 * tests/store/pg.ts; IDP_E2E_TARGET, tests/helpers/target.ts), and IDP_WORKER, which the primary of
 * `idp serve --workers N` sets for its workers (src/app/workers.ts). Any other `IDP_` name that is not
 * in ENV_KEYS is refused at start: a misspelt setting must not be silently ignored.
 */
export const OTHER_IDP_VARIABLES: readonly string[] = ["IDP_CONFIG", "IDP_DEBUG", "IDP_REQUIRE_POSTGRES", "IDP_E2E_TARGET", "IDP_WORKER"];

/** Hosts a browser on this machine reaches as localhost: loopback, and the wildcard addresses. */
const LOCAL_HOSTS = new Set(["127.0.0.1", "::1", "localhost", "0.0.0.0", "::"]);

/**
 * The issuer when none is configured: where a browser on this machine reaches the server,
 * `http://localhost:<port>` for a loopback (or wildcard) HOST, else `http://<host>:<port>`.
 */
export function default_issuer(host: string, port: number): string {
  const name = LOCAL_HOSTS.has(host.toLowerCase()) ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** Levenshtein distance, to suggest the setting a misspelt name meant. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

function did_you_mean(name: string, known: readonly string[]): string {
  const best = known.map((k) => ({ k, d: distance(name.toLowerCase(), k.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 4)) ? ` (did you mean ${best.k}?)` : "";
}

/** The keys of the object schema at `path`, through its default and prefault wrappers. */
function keys_at(path: readonly PropertyKey[]): string[] {
  type Node = { shape?: Record<string, unknown>; def?: { innerType?: unknown } } | undefined;
  const unwrap = (node: unknown): Node => {
    let n = node as Node;
    while (n && n.shape === undefined && n.def?.innerType !== undefined) n = n.def.innerType as Node;
    return n;
  };
  let node: unknown = ConfigSchema;
  for (const part of path) node = unwrap(node)?.shape?.[String(part)];
  return Object.keys(unwrap(node)?.shape ?? {});
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

function set_path(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]!] = value;
}

function env_name(path: string): string | undefined {
  return Object.entries(ENV_KEYS).find(([, p]) => p === path)?.[0];
}

/**
 * Sign-up that depends on mail, in production without SMTP (where mail is off): refused at start
 * rather than quietly turned off, so the operator finds out now, not from people who never get
 * their link. Development without SMTP writes mail to the log, so it starts.
 */
function signup_mail_problem(config: Config): string | null {
  if (!config.production || config.smtp_url !== undefined) return null;
  const { mode, require_verification } = config.signup;
  if (mode === "open" && require_verification) {
    return "signup.mode (IDP_SIGNUP): open sign-up with verification (IDP_SIGNUP_REQUIRE_VERIFICATION, the default) needs mail, and mail is off in production without IDP_SMTP_URL: set IDP_SMTP_URL and IDP_MAIL_FROM, or IDP_SIGNUP=off";
  }
  if (mode === "invite") return "signup.mode (IDP_SIGNUP): invitations are sent by mail, and mail is off in production without IDP_SMTP_URL: set IDP_SMTP_URL and IDP_MAIL_FROM, or IDP_SIGNUP=off";
  return null;
}

/** Builds the configuration from a file (optional), the environment and explicit overrides. */
export function load_config(env: Record<string, string | undefined> = process.env, overrides: Record<string, unknown> = {}): Config {
  let raw: Record<string, unknown> = {};
  const file = env.IDP_CONFIG;
  if (file) {
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new ConfigError(`Cannot read config file IDP_CONFIG=${file}: ${(error as Error).message}`);
    }
  }
  if (env.NODE_ENV === "production") set_path(raw, "production", true);
  const unknown = Object.keys(env)
    .filter((name) => name.startsWith("IDP_") && !Object.hasOwn(ENV_KEYS, name) && !OTHER_IDP_VARIABLES.includes(name))
    .sort()
    .map((name) => `  ${name}: not a setting${did_you_mean(name, Object.keys(ENV_KEYS).filter((k) => k.startsWith("IDP_")))}; the settings are listed in README.md, "Configuration"`);
  for (const [name, path] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value !== undefined && value !== "") set_path(raw, path, value);
  }
  for (const [path, value] of Object.entries(overrides)) set_path(raw, path, value);
  const issuer_given = raw.issuer !== undefined;
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success || unknown.length > 0) {
    const lines = (parsed.error?.issues ?? []).flatMap((issue) => {
      // A key the schema does not know can only come from the config file (ENV_KEYS are all known).
      if (issue.code === "unrecognized_keys") {
        const known = keys_at(issue.path);
        return issue.keys.map((key) => `  ${[...issue.path, key].join(".")}: unknown key in the config file (IDP_CONFIG)${did_you_mean(key, known)}; known keys here: ${known.join(", ")}`);
      }
      const path = issue.path.join(".");
      // A list's item (outbound.allow.0) is named by the list's variable.
      const name = env_name(path) ?? env_name(issue.path.filter((part) => typeof part !== "number").join("."));
      return [`  ${path}${name ? ` (${name})` : ""}: ${issue.message}`];
    });
    throw new ConfigError(`Invalid configuration:\n${[...unknown, ...lines].join("\n")}`);
  }
  const config = parsed.data;
  const mail_problem = signup_mail_problem(config);
  if (mail_problem !== null) throw new ConfigError(`Invalid configuration:\n  ${mail_problem}`);
  // The default language must have a catalog; a regional tag uses its language's (fr-CA → fr).
  const locale = supported_locale(config.default_locale);
  if (locale === null) throw new ConfigError(`Invalid configuration:\n  default_locale (IDP_DEFAULT_LOCALE): no catalog for "${config.default_locale}"; available: ${LOCALES.join(", ")}`);
  config.default_locale = locale;
  // No issuer configured: follow HOST and PORT (port 0, a free port, is known only once
  // listening: there the schema's default stays).
  if (!issuer_given && config.port !== 0) config.issuer = default_issuer(config.host, config.port);
  return config;
}

/** A URL with its password (user:password@) replaced by ********, for logs and `idp config check`. */
export function redact_url_password(url: string): string {
  // Up to the last @ before the host: a password may hold an unencoded @.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*):[^/?#]*@/i, "$1:********@");
}

/** The effective configuration with secrets masked (for `idp config check`). */
export function masked(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, unknown>;
  if (copy.metrics_token) copy.metrics_token = "********";
  copy.database_url = redact_url_password(String(copy.database_url));
  if (typeof copy.smtp_url === "string") copy.smtp_url = redact_url_password(copy.smtp_url);
  const federation = copy.federation as { secret_key?: string; upstreams?: { client_secret?: string }[] } | undefined;
  if (federation?.secret_key !== undefined) federation.secret_key = "********";
  for (const upstream of federation?.upstreams ?? []) if (upstream.client_secret !== undefined) upstream.client_secret = "********";
  const pairwise = copy.pairwise as { salt?: string } | undefined;
  if (pairwise?.salt !== undefined) pairwise.salt = "********";
  return copy;
}

