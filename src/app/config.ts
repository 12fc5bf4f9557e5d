// Configuration: defaults < optional JSON config file (IDP_CONFIG) < environment.
// Parsed once at start with zod; a bad value stops the start with a message naming the key.
import { readFileSync } from "node:fs";
import { z } from "zod";

const seconds = (fallback: number) => z.coerce.number().int().positive().max(10 * 365 * 24 * 3600).default(fallback);
/** A number of requests or attempts per window. */
const limit = (fallback: number) => z.coerce.number().int().min(1).max(10_000_000).default(fallback);
const bool = (fallback: boolean) =>
  z.preprocess((v) => (typeof v === "string" ? ["1", "true", "yes", "on"].includes(v.toLowerCase()) : v), z.boolean()).default(fallback);

const issuer = z
  .string()
  .url()
  .refine((v) => /^https?:\/\//.test(v), "must be an http(s) URL")
  .refine((v) => !v.includes("?") && !v.includes("#"), "must not have a query or fragment (OIDC Discovery §3)")
  .transform((v) => v.replace(/\/+$/, ""));

export const ConfigSchema = z.object({
  issuer: issuer.default("http://localhost:3000"),
  port: z.coerce.number().int().min(0).max(65535).default(3000),
  host: z.string().min(1).default("127.0.0.1"),
  database_url: z.string().regex(/^(sqlite:|postgres:\/\/|postgresql:\/\/)/, "must start with sqlite:, postgres:// or postgresql://").default("sqlite:./data/idp.sqlite"),
  database_pool_size: z.coerce.number().int().min(1).max(1000).default(10),
  production: bool(false),
  tokens: z
    .object({
      code_ttl: seconds(60).refine((v) => v <= 600, "RFC 6749 §4.1.2: codes must be short-lived (at most 600 s)"),
      access_token_ttl: seconds(3600),
      id_token_ttl: seconds(3600),
      refresh_token_ttl: seconds(30 * 24 * 3600),
      session_ttl: seconds(14 * 24 * 3600),
      interaction_ttl: seconds(900),
    })
    .prefault({}),
  router: z.object({ path_cache_size: z.coerce.number().int().min(0).max(1_000_000).default(1024) }).prefault({}),
  body_limit: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(64 * 1024),
  argon2: z
    .object({
      memory_kib: z.coerce.number().int().min(1024).max(4 * 1024 * 1024).default(19456),
      time_cost: z.coerce.number().int().min(1).max(20).default(2),
      // crypto/passwords.ts: libsodium on worker threads when it loads ("auto"), or Bun.password.
      impl: z.enum(["auto", "bun", "libsodium"]).default("auto"),
    })
    .prefault({}),
  signing_algs: z
    .preprocess(
      (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v),
      z.array(z.enum(["RS256", "PS256", "ES256", "EdDSA"])).min(1),
    )
    .default(["RS256", "PS256", "ES256", "EdDSA"])
    .refine((v) => v.includes("RS256"), "must include RS256 (OIDC Core §15.1)"),
  registration: z.enum(["open", "token", "off"]).default("token"),
  trust_proxy: bool(false),
  metrics_token: z.string().min(16).optional(),
  log_requests: bool(true),
  /** How often each instance checks the store for rotated keys (seconds). */
  keys_poll_seconds: z.coerce.number().int().min(1).max(3600).default(5),
  /** How often each instance deletes expired codes, tokens, sessions... (seconds). */
  purge_interval_seconds: z.coerce.number().int().min(1).max(24 * 3600).default(600),
  /** On SIGTERM/SIGINT, how long in-flight requests may take before connections are closed (seconds). */
  shutdown_grace_seconds: z.coerce.number().int().min(0).max(600).default(10),
  /** A request still unanswered after this long gets 503 (e.g. a database that stopped answering without closing). */
  request_timeout_seconds: z.coerce.number().int().min(1).max(600).default(15),
  /**
   * Seconds a connection may stay idle or keep sending a request body before it is closed (slow
   * clients, Slowloris); Bun's own limit. Keep it above request_timeout_seconds.
   */
  idle_timeout_seconds: z.coerce.number().int().min(1).max(255).default(30),
  /** Failed sign-ins, counted in fixed windows in the store (login_throttle.ts). */
  login_throttle: z
    .object({
      window_seconds: seconds(900),
      /** Failures for one username from one address before both get 429 until the window ends. */
      max_failures: limit(10),
      /** Failures from one address (any usernames) before it gets 429 until the window ends. */
      max_failures_per_ip: limit(100),
      /** Failures for one username from any address before every attempt for it waits delay_ms. */
      delay_after: limit(5),
      delay_ms: z.coerce.number().int().min(0).max(10_000).default(1000),
    })
    .prefault({}),
  /** Request rate limits of the endpoints clients call, per claimed client_id and per address (rate_limit.ts). */
  rate_limits: z
    .object({
      enabled: bool(true),
      window_seconds: seconds(60),
      token_per_client: limit(1200),
      token_per_ip: limit(2400),
      revoke_per_client: limit(600),
      revoke_per_ip: limit(1200),
      introspect_per_client: limit(6000),
      introspect_per_ip: limit(6000),
      register_per_client: limit(60),
      register_per_ip: limit(60),
    })
    .prefault({}),
});

export type Config = z.output<typeof ConfigSchema>;

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
  IDP_SIGNING_ALGS: "signing_algs",
  IDP_REGISTRATION: "registration",
  IDP_TRUST_PROXY: "trust_proxy",
  IDP_METRICS_TOKEN: "metrics_token",
  IDP_LOG_REQUESTS: "log_requests",
  IDP_KEYS_POLL_SECONDS: "keys_poll_seconds",
  IDP_PURGE_INTERVAL_SECONDS: "purge_interval_seconds",
  IDP_SHUTDOWN_GRACE_SECONDS: "shutdown_grace_seconds",
  IDP_REQUEST_TIMEOUT_SECONDS: "request_timeout_seconds",
  IDP_IDLE_TIMEOUT_SECONDS: "idle_timeout_seconds",
  IDP_LOGIN_WINDOW_SECONDS: "login_throttle.window_seconds",
  IDP_LOGIN_MAX_FAILURES: "login_throttle.max_failures",
  IDP_LOGIN_MAX_FAILURES_PER_IP: "login_throttle.max_failures_per_ip",
  IDP_LOGIN_DELAY_AFTER: "login_throttle.delay_after",
  IDP_LOGIN_DELAY_MS: "login_throttle.delay_ms",
  IDP_RATE_LIMITS: "rate_limits.enabled",
  IDP_RATE_LIMIT_WINDOW_SECONDS: "rate_limits.window_seconds",
  IDP_RATE_LIMIT_TOKEN_PER_CLIENT: "rate_limits.token_per_client",
  IDP_RATE_LIMIT_TOKEN_PER_IP: "rate_limits.token_per_ip",
  IDP_RATE_LIMIT_REVOKE_PER_CLIENT: "rate_limits.revoke_per_client",
  IDP_RATE_LIMIT_REVOKE_PER_IP: "rate_limits.revoke_per_ip",
  IDP_RATE_LIMIT_INTROSPECT_PER_CLIENT: "rate_limits.introspect_per_client",
  IDP_RATE_LIMIT_INTROSPECT_PER_IP: "rate_limits.introspect_per_ip",
  IDP_RATE_LIMIT_REGISTER_PER_CLIENT: "rate_limits.register_per_client",
  IDP_RATE_LIMIT_REGISTER_PER_IP: "rate_limits.register_per_ip",
};

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
  for (const [name, path] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value !== undefined && value !== "") set_path(raw, path, value);
  }
  for (const [path, value] of Object.entries(overrides)) set_path(raw, path, value);
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const path = issue.path.join(".");
      const name = env_name(path);
      return `  ${path}${name ? ` (${name})` : ""}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** The effective configuration with secrets masked (for `idp config check`). */
export function masked(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, unknown>;
  if (copy.metrics_token) copy.metrics_token = "********";
  copy.database_url = String(copy.database_url).replace(/\/\/([^:/@]+):([^@]+)@/, "//$1:********@");
  return copy;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True when the issuer host is a loopback address (http is acceptable only there). */
export function is_loopback_issuer(config: Config): boolean {
  return LOOPBACK.has(new URL(config.issuer).hostname);
}
