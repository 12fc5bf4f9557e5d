/**
 * Configuration: defaults < optional JSON config file (IDP_CONFIG) < environment. The only
 * place that reads the environment; parsed once at start against the schema
 * (src/config/schema.ts), and a bad value stops the start with a message naming the key.
 */
import { readFileSync } from "node:fs";
import { ConfigSchema, type Config } from "../config/schema.ts";
import { object_shape, SETTINGS, type SettingSource } from "../config/settings.ts";
import { LOCALES, supported_locale } from "../oidc/ui/catalogs.ts";

export { ConfigSchema, is_loopback_issuer, type Config } from "../config/schema.ts";

/** Environment variable → config path, from the settings' declarations (src/config/schema.ts). */
export const ENV_KEYS: Record<string, string> = Object.fromEntries(SETTINGS.flatMap(({ env, path }) => (env === null ? [] : [[env, path]])));

/**
 * `IDP_` variables that are not settings, so not in ENV_KEYS: the config file's path
 * (IDP_CONFIG), stack traces for unexpected CLI errors (IDP_DEBUG, src/cli/index.ts), and the
 * test suite's switches, which .ci/run exports to every process it starts (IDP_REQUIRE_POSTGRES,
 * tests/store/pg.ts; IDP_E2E_TARGET, tests/helpers/target.ts; IDP_E2E_DATABASE,
 * tests/helpers/subprocess.ts), and IDP_WORKER, which the primary of
 * `idp serve --workers N` sets for its workers (src/app/workers.ts). Any other `IDP_` name that is not
 * in ENV_KEYS is refused at start: a misspelt setting must not be silently ignored.
 */
export const OTHER_IDP_VARIABLES: readonly string[] = ["IDP_CONFIG", "IDP_DEBUG", "IDP_REQUIRE_POSTGRES", "IDP_E2E_TARGET", "IDP_E2E_DATABASE", "IDP_SCREENSHOTS", "IDP_WORKER"];

/**
 * Every environment variable the configuration reads: the settings', the other IDP_ ones and
 * NODE_ENV. Where the runtime grants only some variables (Deno's `--allow-env=<list>`), main.ts
 * reads these (src/platform/runtime.ts `environment`) and scripts/deno/permissions.ts grants them.
 */
export const ENVIRONMENT_NAMES: readonly string[] = [...Object.keys(ENV_KEYS), ...OTHER_IDP_VARIABLES, "NODE_ENV"];

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
  let node: unknown = ConfigSchema;
  for (const part of path) node = object_shape(node)?.[String(part)];
  return Object.keys(object_shape(node) ?? {});
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
  if (mode === "invite")
    return "signup.mode (IDP_SIGNUP): invitations are sent by mail, and mail is off in production without IDP_SMTP_URL: set IDP_SMTP_URL and IDP_MAIL_FROM, or IDP_SIGNUP=off";
  return null;
}

/** Whether `raw` (a layer's nested values) holds the setting at `path`, or an object or value above it. */
function holds(raw: Record<string, unknown>, path: string): boolean {
  let node: unknown = raw;
  for (const part of path.split(".")) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return true;
    if (!Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return node !== undefined;
}

/** Each setting's source, by the config object load_config built (see config_sources). */
const SOURCES = new WeakMap<Config, Readonly<Record<string, SettingSource>>>();

/**
 * Where each setting of a configuration load_config built came from, by dotted path (the
 * settings of SETTINGS); null for a configuration made some other way.
 */
export function config_sources(config: Config): Readonly<Record<string, SettingSource>> | null {
  return SOURCES.get(config) ?? null;
}

/**
 * Builds the configuration from a file (optional), the environment and explicit overrides. The
 * source of each value is kept beside it: config_sources(config).
 */
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
  const sources: Record<string, SettingSource> = {};
  const layer = (values: Record<string, unknown>, source: SettingSource) => {
    for (const { path } of SETTINGS) if (holds(values, path)) sources[path] = source;
  };
  layer(raw, "file");
  const from_env: Record<string, unknown> = {};
  if (env.NODE_ENV === "production") {
    set_path(raw, "production", true);
    set_path(from_env, "production", true);
  }
  const unknown = Object.keys(env)
    .filter((name) => name.startsWith("IDP_") && !Object.hasOwn(ENV_KEYS, name) && !OTHER_IDP_VARIABLES.includes(name))
    .sort()
    .map(
      (name) =>
        `  ${name}: not a setting${did_you_mean(
          name,
          Object.keys(ENV_KEYS).filter((k) => k.startsWith("IDP_")),
        )}; the settings are listed in docs/configuration.md`,
    );
  for (const [name, path] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value !== undefined && value !== "") {
      set_path(raw, path, value);
      set_path(from_env, path, value);
    }
  }
  layer(from_env, "environment");
  const given: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(overrides)) {
    set_path(raw, path, value);
    set_path(given, path, value);
  }
  layer(given, "program");
  const issuer_given = raw.issuer !== undefined;
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success || unknown.length > 0) {
    const lines = (parsed.error?.issues ?? []).flatMap((issue) => {
      // A key the schema does not know can only come from the config file (ENV_KEYS are all known).
      if (issue.code === "unrecognized_keys") {
        const known = keys_at(issue.path);
        return issue.keys.map(
          (key) => `  ${[...issue.path, key].join(".")}: unknown key in the config file (IDP_CONFIG)${did_you_mean(key, known)}; known keys here: ${known.join(", ")}`,
        );
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
  if (locale === null)
    throw new ConfigError(`Invalid configuration:\n  default_locale (IDP_DEFAULT_LOCALE): no catalog for "${config.default_locale}"; available: ${LOCALES.join(", ")}`);
  config.default_locale = locale;
  // No issuer configured: follow HOST and PORT (port 0, a free port, is known only once
  // listening: there the schema's default stays).
  if (!issuer_given && config.port !== 0) config.issuer = default_issuer(config.host, config.port);
  SOURCES.set(config, Object.fromEntries(SETTINGS.map(({ path }) => [path, sources[path] ?? "default"])));
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
  // OTEL_EXPORTER_OTLP_HEADERS carries a collector's API key more often than not.
  const tracing = copy.tracing as { headers?: string } | undefined;
  if (tracing?.headers !== undefined) tracing.headers = "********";
  const pairwise = copy.pairwise as { salt?: string } | undefined;
  if (pairwise?.salt !== undefined) pairwise.salt = "********";
  return copy;
}
