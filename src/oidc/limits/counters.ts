/**
 * Every counter the rules keep in the store (`CounterStore`: fixed windows, shared by every
 * instance), declared once: what it counts, against what, its key, its limit and its window
 * (each a setting, or fixed), and what a client gets past the limit. The rules use counters by
 * name (`count(idp, COUNTERS.signups_per_ip, { ip })`) and never build a key or read a limit
 * themselves; README's rate-limit table is generated from this list (scripts/docs/sections/
 * rate_limits.ts), and tests/oidc/limits/counters.test.ts checks that no other file of src/
 * touches the counters.
 *
 * A key is `<prefix>:<SHA-256 of its parts>`, the parts in the declared order joined by "\n", so
 * the counters table holds no address, username, client id or user id. Each part has one meaning
 * everywhere (`Parts`); a username counts by its one key (store/usernames.ts), so every spelling
 * of a name shares its counters. The prefixes are the keys' words from before this module: an
 * upgrade keeps every window that is running.
 */
import type { Config } from "../../config/schema.ts";
import { sha256 } from "../crypto/secrets.ts";
import { parse_ip } from "../outbound/addresses.ts";
import type { Provider } from "../provider.ts";
import { TOTP_DRIFT_STEPS, TOTP_PERIOD } from "../signin/totp_parameters.ts";
import type { CounterReservation, CounterState } from "../../store/types.ts";
import { username_key } from "../../store/usernames.ts";

/** The parts a counter's key is made of. */
export type Parts = {
  /** The client's address (behind a trusted proxy, the one it forwarded); IPv6 by its /64 (counted_address). */
  ip: string;
  /** A username as typed; keyed by its one key (store/usernames.ts). */
  username: string;
  /** A client_id, authenticated or only claimed. */
  client_id: string;
  /** A local account's id. */
  user_id: string;
  /** A TOTP time step (RFC 6238 §4.2). */
  step: number;
};
export type Part = keyof Parts;

/**
 * The address a limit counts: an IPv4 address as it is, an IPv6 address by its /64 (one
 * subscriber's network: RFC 6177 §2 and RFC 8273 give each host or site at least a /64, so
 * counting full IPv6 addresses would give one client 2^64 fresh quotas); an IPv4-mapped IPv6
 * address counts as its IPv4 address.
 */
export function counted_address(ip: string): string {
  const bytes = parse_ip(ip);
  if (bytes === null) return ip;
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join(".");
  const groups = [0, 1, 2, 3].map((i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}

const PART_TEXT: Record<Part, (value: string | number) => string> = {
  ip: (value) => counted_address(String(value)),
  username: (value) => username_key(String(value)),
  client_id: String,
  user_id: String,
  step: String,
};

/** A number setting of the config, as its path ("login_throttle.max_failures"). */
export type NumberSetting = {
  [G in keyof Config & string]: Config[G] extends readonly unknown[]
    ? never
    : Config[G] extends object
      ? { [K in keyof Config[G] & string]: Config[G][K] extends number ? `${G}.${K}` : never }[keyof Config[G] & string]
      : never;
}[keyof Config & string];

/** A limit or a window: the setting that changes it (null: fixed), and its value in a config. */
export type Amount = { setting: NumberSetting | null; of: (config: Config) => number };

const setting = (path: NumberSetting): Amount => {
  const [group, name] = path.split(".") as [string, string];
  return { setting: path, of: (config) => (config as unknown as Record<string, Record<string, number>>)[group]![name]! };
};
const fixed = (value: number): Amount => ({ setting: null, of: () => value });

/** One counter; its name is its key in COUNTERS. */
export type Counter<P extends Part = Part> = {
  /** The key's first words (see the module comment). */
  prefix: string;
  parts: readonly P[];
  /** What one hit is. */
  counts: string;
  /** What the limit protects. */
  protects: string;
  /** The count a window may reach; 0 (only the request quotas accept it) is no counting at all (`counting`). */
  limit: Amount;
  /** Seconds from a window's first hit to its end. */
  window: Amount;
  /** What a client gets past the limit. */
  over: string;
  /** The switch that turns the counter off (IDP_RATE_LIMITS); null: always on. */
  switch: "rate_limits.enabled" | null;
};

const counter = <P extends Part>(declaration: Counter<P>): Counter<P> => declaration;

/** The endpoints with request quotas (limits/endpoints.ts). */
export type LimitedEndpoint = "token" | "revoke" | "introspect" | "register";

const OAUTH_429 = "429 `temporarily_unavailable` (RFC 6749 §5.2 shape), `Retry-After`";
const PAGE_429 = "429 page, `Retry-After`";

/** The requests each quota counts (limits/endpoints.ts `limited_endpoint`). */
const ENDPOINT_REQUESTS: Record<LimitedEndpoint, string> = {
  token: "requests to /token, /par and /device_authorization",
  revoke: "requests to /revoke",
  introspect: "requests to /introspect",
  register: "requests to /register and /register/:client_id",
};

/** The optional quota of requests to one endpoint, per claimed client_id or per address. */
function requests<S extends "client_id" | "ip">(endpoint: LimitedEndpoint, scope: S): Counter<S> {
  const by_ip = scope === "ip";
  return {
    prefix: `rl:${endpoint}:${by_ip ? "a" : "c"}`,
    parts: [scope],
    counts: `${ENDPOINT_REQUESTS[endpoint]}, per ${by_ip ? "address" : "claimed client_id"}`,
    protects: endpoint === "register" ? "registration, open to anyone (RFC 7591, RFC 7592)" : "capacity an operator shares or sells",
    limit: setting(`rate_limits.${endpoint}_per_${by_ip ? "ip" : "client"}`),
    window: setting("rate_limits.window_seconds"),
    over: OAUTH_429,
    switch: "rate_limits.enabled",
  };
}

/** Every counter, by name. */
export const COUNTERS = {
  login_failures_per_ip_username: counter({
    prefix: "login:ua",
    parts: ["ip", "username"],
    counts: "sign-in attempts (the pages' and LDAP user binds) for one username from one address, given back on success",
    protects: "passwords against guessing (NIST SP 800-63B §5.2.2)",
    limit: setting("login_throttle.max_failures"),
    window: setting("login_throttle.window_seconds"),
    over: `${PAGE_429}, even with the right password; \`login_locked\` audited`,
    switch: null,
  }),
  login_failures_per_ip: counter({
    prefix: "login:a",
    parts: ["ip"],
    counts: "sign-in attempts from one address, any usernames (LDAP binds included), given back on success",
    protects: "passwords against one address trying many usernames",
    limit: setting("login_throttle.max_failures_per_ip"),
    window: setting("login_throttle.window_seconds"),
    over: `${PAGE_429}; \`login_locked\` audited`,
    switch: null,
  }),
  login_failures_per_username: counter({
    prefix: "login:u",
    parts: ["username"],
    counts: "sign-in attempts (the pages' and LDAP user binds) for one username from any address, given back on success",
    protects: "one password against many addresses, without a lockout anyone could cause",
    limit: setting("login_throttle.delay_after"),
    window: setting("login_throttle.window_seconds"),
    over: "never 429: each attempt waits `login_throttle.delay_ms` before the password is checked",
    switch: null,
  }),
  second_factor_failures_per_user: counter({
    prefix: "totp:fail",
    parts: ["user_id"],
    counts: "second-factor codes (TOTP or recovery) checked for one account; cleared by a right one",
    protects: "6-digit codes against brute force (RFC 4226 §7.3)",
    limit: fixed(10),
    window: fixed(15 * 60),
    over: PAGE_429,
    switch: null,
  }),
  totp_step_uses: counter({
    prefix: "totp:used",
    parts: ["user_id", "step"],
    counts: "accepted TOTP codes of one account and time step",
    protects: "a code from being accepted twice (RFC 6238 §5.2)",
    limit: fixed(1),
    // Outlives the drift window, after which the step can no longer match anyway.
    window: fixed(TOTP_PERIOD * (2 * TOTP_DRIFT_STEPS + 2)),
    over: "the code is refused as already used",
    switch: null,
  }),
  client_auth_failures_per_ip_client: counter({
    prefix: "ca:ca",
    parts: ["ip", "client_id"],
    counts: "failed client authentications (`invalid_client`) for one client_id from one address",
    protects: "client secrets against guessing (RFC 6749 §10.10)",
    limit: setting("rate_limits.auth_failures_per_client_ip"),
    window: setting("rate_limits.window_seconds"),
    over: `${OAUTH_429}, before the secret is checked, even a right one`,
    switch: "rate_limits.enabled",
  }),
  client_auth_failures_per_ip: counter({
    prefix: "ca:a",
    parts: ["ip"],
    counts: "failed client authentications from one address, any client_ids",
    protects: "client secrets against one address trying many clients",
    limit: setting("rate_limits.auth_failures_per_ip"),
    window: setting("rate_limits.window_seconds"),
    over: `${OAUTH_429}, before the secret is checked`,
    switch: "rate_limits.enabled",
  }),
  client_auth_failures_per_client: counter({
    prefix: "ca:c",
    parts: ["client_id"],
    counts: "failed client authentications for one client_id from any address",
    protects: "one client's secret against many addresses; never locks the client_id itself",
    limit: setting("rate_limits.auth_failures_per_client"),
    window: setting("rate_limits.window_seconds"),
    over: `${OAUTH_429} for an address that has itself failed for that client_id`,
    switch: "rate_limits.enabled",
  }),
  unauthenticated_requests_per_ip: counter({
    prefix: "rl:anon:a",
    parts: ["ip"],
    counts: "requests without client credentials to /token (with /par, /device_authorization), /revoke, /introspect",
    protects: "the endpoints against floods from public clients or none",
    limit: setting("rate_limits.unauthenticated_per_ip"),
    window: setting("rate_limits.window_seconds"),
    over: OAUTH_429,
    switch: "rate_limits.enabled",
  }),
  token_requests_per_client: requests("token", "client_id"),
  token_requests_per_ip: requests("token", "ip"),
  revoke_requests_per_client: requests("revoke", "client_id"),
  revoke_requests_per_ip: requests("revoke", "ip"),
  introspect_requests_per_client: requests("introspect", "client_id"),
  introspect_requests_per_ip: requests("introspect", "ip"),
  register_requests_per_client: requests("register", "client_id"),
  register_requests_per_ip: requests("register", "ip"),
  interactions_per_ip: counter({
    prefix: "rl:authorize:a",
    parts: ["ip"],
    counts: "requests to /authorize and code entries at /device from one address, whether or not they start an interaction",
    protects: "the store from interactions (one row per sign-in started)",
    limit: setting("rate_limits.authorize_per_ip"),
    window: setting("rate_limits.window_seconds"),
    over: `${PAGE_429}, before anything is read or stored`,
    switch: "rate_limits.enabled",
  }),
  anonymous_registrations_per_ip: counter({
    prefix: "rl:register:day:a",
    parts: ["ip"],
    counts: "requests to /register without an initial access token (`IDP_REGISTRATION=open`) from one address",
    protects: "the store from clients registered in bulk by anyone (RFC 7591 §3, open registration)",
    limit: setting("rate_limits.register_per_ip_per_day"),
    window: fixed(24 * 3600),
    over: OAUTH_429,
    switch: "rate_limits.enabled",
  }),
  federation_starts_per_ip: counter({
    prefix: "rl:fedstart:a",
    parts: ["ip"],
    counts: "sign-ins started through an upstream (`/federation/<name>/start`) from one address",
    protects: "the store from pending upstream states",
    limit: setting("rate_limits.federation_start_per_ip"),
    window: setting("rate_limits.window_seconds"),
    over: `${PAGE_429}; audited once per window`,
    switch: "rate_limits.enabled",
  }),
  device_code_failures_per_ip: counter({
    prefix: "device:a",
    parts: ["ip"],
    counts: "user codes entered at /device from one address, given back when one matches",
    protects: "short user codes against guessing (RFC 8628 §5.1)",
    limit: setting("device.user_code_attempts"),
    window: setting("login_throttle.window_seconds"),
    over: `${PAGE_429}; \`device_code_throttled\` audited`,
    switch: null,
  }),
  signups_per_ip: counter({
    prefix: "signup:ip",
    parts: ["ip"],
    counts: "complete sign-up forms from one address",
    protects: "usernames and addresses against probing, the store against mass accounts",
    limit: setting("signup.per_ip"),
    window: setting("signup.window_seconds"),
    over: `${PAGE_429}; audited`,
    switch: null,
  }),
  forgot_password_requests_per_ip: counter({
    prefix: "pwreset:forgot:a",
    parts: ["ip"],
    counts: "forgot-password requests from one address",
    protects: "mailboxes and the mail relay against floods",
    limit: setting("password_reset.per_ip"),
    window: setting("password_reset.window_seconds"),
    over: PAGE_429,
    switch: null,
  }),
  password_reset_posts_per_ip: counter({
    prefix: "pwreset:reset:a",
    parts: ["ip"],
    counts: "posts of the reset-password form from one address",
    protects: "reset links and second-factor codes against guessing",
    limit: setting("password_reset.per_ip"),
    window: setting("password_reset.window_seconds"),
    over: PAGE_429,
    switch: null,
  }),
  password_reset_attempts_per_user: counter({
    prefix: "pwreset:try:u",
    parts: ["user_id"],
    counts: "posts of the reset-password form with a valid link for one account",
    protects: "the account's second-factor code, asked for by the reset form",
    limit: fixed(10),
    window: setting("password_reset.window_seconds"),
    over: PAGE_429,
    switch: null,
  }),
  password_reset_mails_per_user: counter({
    prefix: "pwreset:mail:u",
    parts: ["user_id"],
    counts: "reset links mailed to one account",
    protects: "the account's mailbox",
    limit: setting("password_reset.per_account"),
    window: setting("password_reset.window_seconds"),
    over: "the same page and no mail (so nothing tells whether the account exists); audited",
    switch: null,
  }),
  verification_mails_per_user: counter({
    prefix: "verify:u",
    parts: ["user_id"],
    counts: "verification links mailed to one account",
    protects: "the address's mailbox against the resend buttons",
    limit: setting("email_verification.per_account"),
    window: setting("password_reset.window_seconds"),
    over: PAGE_429,
    switch: null,
  }),
} as const satisfies Record<string, Counter>;

export type CounterName = keyof typeof COUNTERS;

/** The store key of a counter for these parts. */
export function counter_key<P extends Part>(counter: Counter<P>, parts: Pick<Parts, P>): string {
  return `${counter.prefix}:${sha256(counter.parts.map((part) => PART_TEXT[part](parts[part])).join("\n"))}`;
}

/** True when the counter counts at all in this config: its switch is on and its limit is not 0. */
export function counting(config: Config, counter: Counter): boolean {
  return (counter.switch === null || config.rate_limits.enabled) && counter.limit.of(config) > 0;
}

/** A counter's window after a hit, with its limit: `over` when the count passed it. */
export type Counted = CounterState & { key: string; limit: number; over: boolean };
/** A reservation (store `reserve`): `allowed` false when the window was full; `release` gives it back. */
export type Reserved = CounterReservation & { key: string; limit: number };

/** Counts one hit (store `hit`). */
export async function count<P extends Part>(idp: Provider, counter: Counter<P>, parts: Pick<Parts, P>, now = idp.now()): Promise<Counted> {
  const key = counter_key(counter, parts);
  const limit = counter.limit.of(idp.config);
  const state = await idp.store.hit(key, counter.window.of(idp.config), now);
  return { ...state, key, limit, over: state.count > limit };
}

/** Counts one hit only while the window is below the limit, atomically (store `reserve`). */
export async function reserve<P extends Part>(idp: Provider, counter: Counter<P>, parts: Pick<Parts, P>, now = idp.now()): Promise<Reserved> {
  const key = counter_key(counter, parts);
  const limit = counter.limit.of(idp.config);
  return { ...(await idp.store.reserve(key, limit, counter.window.of(idp.config), now)), key, limit };
}

/** Gives back one hit of a `count` or `reserve` (store `release`): nothing once its window is over. */
export async function release(idp: Provider, held: { key: string; reset_at: number }): Promise<void> {
  await idp.store.release(held.key, held.reset_at);
}

/** The counter's window as it stands, without counting; null when it has none. */
export function peek<P extends Part>(idp: Provider, counter: Counter<P>, parts: Pick<Parts, P>): Promise<CounterState | null> {
  return idp.store.get_counter(counter_key(counter, parts));
}

/** Forgets the counter's window (store `reset_counter`). */
export async function clear<P extends Part>(idp: Provider, counter: Counter<P>, parts: Pick<Parts, P>): Promise<void> {
  await idp.store.reset_counter(counter_key(counter, parts));
}
