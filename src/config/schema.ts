/**
 * The provider's settings: their schema, defaults and limits, parsed once at start with zod.
 * A leaf every layer may read (the type of `Provider.config`); only src/app/config.ts fills it,
 * from the defaults, an optional JSON file and the environment (docs/ARCHITECTURE.md).
 */
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { z } from "zod";

const seconds = (fallback: number) => z.coerce.number().int().positive().max(10 * 365 * 24 * 3600).default(fallback);
/** A number of requests or attempts per window. */
const limit = (fallback: number) => z.coerce.number().int().min(1).max(10_000_000).default(fallback);
/** An optional request quota per window: 0 is no quota. */
const quota = (fallback: number) => z.coerce.number().int().min(0).max(10_000_000).default(fallback);
const TRUE_WORDS = ["1", "true", "yes", "on"];
const FALSE_WORDS = ["0", "false", "no", "off"];
/** A switch: true/false, or one of the words (an environment variable is text); anything else is refused, never read as false. */
const bool = (fallback: boolean) =>
  z
    .preprocess(
      (v) => {
        if (typeof v !== "string") return v;
        const word = v.trim().toLowerCase();
        return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : v;
      },
      z.boolean({ error: `expected one of ${[...TRUE_WORDS, ...FALSE_WORDS].join(", ")}` }),
    )
    .default(fallback);

/**
 * An address to listen on: an IP address or a host name. Dotted digits that are no IPv4
 * address (999.1.1.1) and names with spaces are refused here, not by the system's EINVAL at start.
 */
export function is_listen_host(host: string): boolean {
  if (isIP(host) !== 0) return true;
  if (/^[\d.]+$/.test(host)) return false;
  return /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(host);
}

/** A host name, an IP address, or a CIDR range ("10.0.0.0/8", "fd00::/8"). */
function is_allow_entry(entry: string): boolean {
  const [address, prefix, extra] = entry.split("/");
  if (extra !== undefined || address === undefined) return false;
  const family = isIP(address);
  if (prefix !== undefined) return family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  if (family !== 0) return true;
  return /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i.test(entry);
}

/**
 * An e-mail domain in the one spelling comparisons use: lower-case A-labels (UTS #46 via
 * domainToASCII, RFC 5891), without a trailing dot; null when it is no domain name.
 */
export function signup_domain(domain: string): string | null {
  const ascii = domainToASCII(domain.trim().replace(/\.$/, "")).toLowerCase();
  if (ascii === "" || !ascii.includes(".") || isIP(ascii) !== 0) return null;
  return /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/.test(ascii) ? ascii : null;
}

/** An SMTP URL the mail transport accepts (src/app/mail/smtp.ts reads it the same way). */
export function is_smtp_url(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") return false;
  if (url.hostname === "" || (url.pathname !== "" && url.pathname !== "/") || url.hash !== "") return false;
  const params = [...url.searchParams.keys()];
  if (params.some((key) => key !== "starttls")) return false;
  const starttls = url.searchParams.get("starttls");
  return starttls === null || (url.protocol === "smtp:" && starttls === "required");
}

const issuer = z
  .string()
  .url()
  .refine((v) => /^https?:\/\//.test(v), "must be an http(s) URL")
  .refine((v) => !v.includes("?") && !v.includes("#"), "must not have a query or fragment (OIDC Discovery §3)")
  .transform((v) => v.replace(/\/+$/, ""));

export const ConfigSchema = z.strictObject({
  issuer: issuer.default("http://localhost:3000"),
  port: z.coerce.number().int().min(0).max(65535).default(3000),
  host: z
    .string()
    .refine(is_listen_host, "must be an IP address or a host name (127.0.0.1, ::1, 0.0.0.0, localhost)")
    .default("127.0.0.1"),
  database_url: z.string().regex(/^(sqlite:|postgres:\/\/|postgresql:\/\/)/, "must start with sqlite:, postgres:// or postgresql://").default("sqlite:./data/idp.sqlite"),
  database_pool_size: z.coerce.number().int().min(1).max(1000).default(10),
  production: bool(false),
  tokens: z
    .strictObject({
      code_ttl: seconds(60).refine((v) => v <= 600, "RFC 6749 §4.1.2: codes must be short-lived (at most 600 s)"),
      access_token_ttl: seconds(3600),
      id_token_ttl: seconds(3600),
      refresh_token_ttl: seconds(30 * 24 * 3600),
      session_ttl: seconds(14 * 24 * 3600),
      interaction_ttl: seconds(900),
    })
    .prefault({}),
  router: z.strictObject({ path_cache_size: z.coerce.number().int().min(0).max(1_000_000).default(1024) }).prefault({}),
  body_limit: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(64 * 1024),
  argon2: z
    .strictObject({
      memory_kib: z.coerce.number().int().min(1024).max(4 * 1024 * 1024).default(19456),
      time_cost: z.coerce.number().int().min(1).max(20).default(2),
      // platform/passwords.ts: libsodium on worker threads when it loads ("auto"), or Bun.password.
      impl: z.enum(["auto", "bun", "libsodium"]).default("auto"),
    })
    .prefault({}),
  /** RS256/PS256 signatures through the system's OpenSSL 3 when it loads (platform/openssl.ts); false keeps WebCrypto. */
  openssl: bool(true),
  signing_algs: z
    .preprocess(
      (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v),
      z.array(z.enum(["RS256", "PS256", "ES256", "EdDSA"])).min(1),
    )
    .default(["RS256", "PS256", "ES256", "EdDSA"])
    .refine((v) => v.includes("RS256"), "must include RS256 (OIDC Core §15.1)"),
  registration: z.enum(["open", "token", "off"]).default("token"),
  /** Accounts people create themselves (oidc/accounts/signup.ts) and invitations (oidc/accounts/invitations.ts). */
  signup: z
    .strictObject({
      /** off: only administrators create accounts; open: a public sign-up page; invite: only with an invitation (`idp users invite`). */
      mode: z.enum(["off", "open", "invite"]).default("off"),
      /** E-mail domains allowed to sign up (exact match, case-insensitive, IDN as A-labels); empty: any domain. */
      domains: z
        .preprocess(
          (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v),
          z.array(z.string().transform((d, ctx) => {
            const ascii = signup_domain(d);
            if (ascii === null) ctx.addIssue({ code: "custom", message: `"${d}" is not a domain name (example.com, bücher.example)` });
            return ascii ?? d;
          })),
        )
        .default([]),
      /** true: a new account signs in only once its address is verified; false: at once (a verification mail is still sent). */
      require_verification: bool(true),
      /** How long an invitation link stays valid (seconds; 7 days). */
      invitation_ttl: seconds(7 * 24 * 3600),
      /** Sign-up attempts from one address per window before it gets 429. */
      per_ip: limit(10),
      window_seconds: seconds(3600),
      /**
       * Accounts never completed are deleted by the purge after this many days, so their usernames
       * are not held forever: `unverified` ones this long after sign-up (no live verification link),
       * `invited` ones this long after their last invitation link expired. 0 keeps them.
       */
      unverified_account_days: z.coerce.number().int().min(0, "must be 0 (keep them) or a number of days up to 365").max(365, "must be at most 365 days").default(30),
    })
    .prefault({}),
  /** The passwords people choose (oidc/accounts/password_policy.ts): account page, reset, sign-up, CLI. */
  passwords: z
    .strictObject({
      /** NIST SP 800-63B §5.1.1.2: at least 8 characters; 10 by default. */
      min_length: z.coerce.number().int().min(8, "must be at least 8 (NIST SP 800-63B §5.1.1.2)").max(128).default(10),
      /** Bounds the argon2id input; NIST SP 800-63B §5.1.1.2 asks to allow at least 64 characters. */
      max_length: z.coerce.number().int().min(64, "must be at least 64 (NIST SP 800-63B §5.1.1.2)").max(4096).default(1024),
    })
    .prefault({})
    .refine((p) => p.min_length <= p.max_length, "min_length must not be above max_length"),
  /** Forgot password (oidc/accounts/password_reset.ts): the link's lifetime and the request limits. */
  password_reset: z
    .strictObject({
      /** How long a reset link stays valid (seconds; 30 minutes, at most a day). */
      ttl: seconds(1800).refine((v) => v <= 24 * 3600, "a reset link must be short-lived (at most 86400 s)"),
      /** Reset mails one account may be sent per window (more requests get the same page, and no mail). */
      per_account: limit(3),
      /** Forgot-password requests and reset attempts from one address per window before it gets 429. */
      per_ip: limit(20),
      window_seconds: seconds(3600),
    })
    .prefault({}),
  /** E-mail verification links (oidc/accounts/verification.ts). */
  email_verification: z
    .strictObject({
      /** How long a verification link stays valid (seconds; 24 hours). */
      ttl: seconds(24 * 3600),
      /** Verification mails one account may be sent per window (password_reset.window_seconds). */
      per_account: limit(5),
    })
    .prefault({}),
  trust_proxy: bool(false),
  metrics_token: z.string().min(16).optional(),
  log_requests: bool(true),
  /**
   * The pages' language when the request names none we have (README, "Languages"): a language
   * tag; app/config.ts checks that a catalog (locales/<tag>.json) exists for it.
   */
  default_locale: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, "must be a language tag such as en, de or fr").default("en"),
  /**
   * Outgoing mail (src/app/mail): smtp:// (STARTTLS when the server offers it; `?starttls=required`
   * refuses to send without it) or smtps:// (TLS from the start), with optional user:password.
   * Unset: mail goes to the log in development, and is off in production.
   */
  smtp_url: z.string().refine(is_smtp_url, "must be smtp://[user:password@]host[:port] or smtps://…, optionally with ?starttls=required").optional(),
  /** The From address of outgoing mail; required with smtp_url. */
  mail_from: z.email({ error: "must be an e-mail address (idp@example.com)" }).optional(),
  /** How often each instance checks the store for rotated keys (seconds). */
  keys_poll_seconds: z.coerce.number().int().min(1).max(3600).default(5),
  /** How often each instance deletes expired codes, tokens, sessions... (seconds). */
  purge_interval_seconds: z.coerce.number().int().min(1).max(24 * 3600).default(600),
  /**
   * `idp serve` processes sharing the port (SO_REUSEPORT) under one primary (src/app/workers.ts):
   * a number, or `auto` for one per core. 1: a single process, the port exclusive.
   */
  workers: z
    .preprocess(
      (value) => (typeof value === "string" && value.trim().toLowerCase() === "auto" ? "auto" : value),
      z.union([z.literal("auto"), z.coerce.number().int().min(1).max(1024)], { error: "must be a whole number from 1 to 1024, or auto (one per core)" }),
    )
    .default(1),
  /** On SIGTERM/SIGINT, how long in-flight requests may take before connections are closed (seconds). */
  shutdown_grace_seconds: z.coerce.number().int().min(0).max(600).default(10),
  /** A request still unanswered after this long gets 503 (e.g. a database that stopped answering without closing). */
  request_timeout_seconds: z.coerce.number().int().min(1).max(600).default(15),
  /**
   * Seconds a connection may stay idle or keep sending a request body before it is closed (slow
   * clients, Slowloris); Bun's own limit. Keep it above request_timeout_seconds.
   */
  idle_timeout_seconds: z.coerce.number().int().min(1).max(255).default(30),
  /**
   * Requests to URLs clients register (jwks_uri, backchannel_logout_uri): oidc/outbound/fetch.ts. The
   * defaults refuse every non-public address (OWASP SSRF Prevention Cheat Sheet).
   */
  outbound: z
    .strictObject({
      /** http destinations too (https only by default). */
      allow_http: bool(false),
      /** Host names, addresses and CIDR ranges let through the address check (intranets, tests). */
      allow: z
        .preprocess(
          (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v),
          z.array(z.string().refine(is_allow_entry, "each entry must be a host name, an IP address or a CIDR range (10.0.0.0/8)")),
        )
        .default([]),
      /** Until the response headers: DNS, connect, TLS and the server's first answer (ms). */
      connect_timeout_ms: z.coerce.number().int().min(100).max(60_000).default(3000),
      /** The whole exchange, body included (ms). */
      timeout_ms: z.coerce.number().int().min(100).max(120_000).default(5000),
      /** Largest response body read (a JWK Set), bytes. */
      max_bytes: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(512 * 1024),
    })
    .prefault({}),
  /**
   * Sign-in with other identity providers (oidc/federation). `secret_key`: 32 bytes, base64url
   * (`openssl rand -base64 32 | tr '+/' '-_' | tr -d '=')`), the AES-256-GCM key of the upstreams'
   * client secrets at rest. Without it, no upstream with a client secret can be added or used.
   * It seals the private signing keys too (oidc/keys/sealed_keys.ts); without it they are stored in clear.
   */
  federation: z
    .strictObject({
      secret_key: z
        .string()
        .regex(/^[A-Za-z0-9_-]{43}=?$/, "must be 32 bytes in base64url (43 characters): openssl rand -base64 32 | tr '+/' '-_' | tr -d '='")
        .optional(),
      /** How long the upstream leg of a sign-in may take, in seconds (the state's lifetime). */
      state_ttl_seconds: z.coerce.number().int().min(60).max(3600).default(600),
      /**
       * Upstreams declared in the config file (IDP_CONFIG), written to the store at start (added,
       * or replaced by name): the same fields as `idp upstreams add`. Removing one here does not
       * remove it from the store (`idp upstreams remove`).
       */
      upstreams: z
        .array(
          z.strictObject({
            name: z.string(),
            preset: z.string().optional(),
            tenant: z.string().optional(),
            kind: z.enum(["oidc", "oauth2"]).optional(),
            display_name: z.string().optional(),
            issuer: z.string().optional(),
            authorization_endpoint: z.string().optional(),
            token_endpoint: z.string().optional(),
            userinfo_endpoint: z.string().optional(),
            emails_endpoint: z.string().optional(),
            client_id: z.string().min(1),
            client_secret: z.string().optional(),
            scopes: z.array(z.string()).optional(),
            policy: z.enum(["jit", "link"]).optional(),
            auto_link: z.boolean().optional(),
            claim_mapping: z.record(z.string(), z.string()).optional(),
            enabled: z.boolean().optional(),
            trust_upstream_mfa: z.boolean().optional(),
            mfa_acr_values: z.array(z.string()).optional(),
            token_endpoint_auth_method: z.enum(["client_secret_post", "private_key_jwt"]).optional(),
            /** Upstream group → existing local group: the only memberships its sign-ins change (none by default). */
            group_map: z.record(z.string(), z.string()).optional(),
          }),
        )
        .default([]),
    })
    .prefault({}),
  /** Failed sign-ins, counted in fixed windows in the store (login_throttle.ts). */
  login_throttle: z
    .strictObject({
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
  /**
   * Rate limits of the endpoints clients call (oidc/limits/endpoints.ts, oidc/limits/client_auth.ts).
   * The defaults target abuse: failed client authentications, requests without client
   * credentials, registrations. Authenticated traffic has no quota unless one is set here.
   */
  rate_limits: z
    .strictObject({
      enabled: bool(true),
      window_seconds: seconds(60),
      /** Failed client authentications for one client_id from one address; then both get 429, even with the right secret. */
      auth_failures_per_client_ip: limit(10),
      /** Failed client authentications from one address, any client ids; then the address gets 429. */
      auth_failures_per_ip: limit(100),
      /** Failed client authentications for one client_id, any addresses; then an address that failed for it gets 429 (never the client_id alone). */
      auth_failures_per_client: limit(100),
      /** Requests without client credentials (public clients, none at all) to /token, /revoke and /introspect from one address. */
      unauthenticated_per_ip: limit(1200),
      /** Request quotas per claimed client_id and per address: 0 (the default) is no quota. */
      token_per_client: quota(0),
      token_per_ip: quota(0),
      revoke_per_client: quota(0),
      revoke_per_ip: quota(0),
      introspect_per_client: quota(0),
      introspect_per_ip: quota(0),
      /** Registration (RFC 7591, unauthenticated by default) and management (RFC 7592); 0 turns one off. */
      register_per_client: quota(60),
      register_per_ip: quota(60),
      /**
       * Sign-ins started through an upstream identity provider (GET /federation/NAME/start) from
       * one address: each stores a pending state until it expires. 0 turns it off.
       */
      federation_start_per_ip: quota(60),
    })
    .prefault({}),
  /** Passkeys (WebAuthn): sign-in without a password, and a second factor beside TOTP. Off hides them everywhere. */
  passkeys: bool(true),
  /**
   * Who must use a second factor (TOTP or a passkey) after a password: "off" (only users who set
   * one up), "all", or "group:NAME" (the members of that group; a group name as idp groups
   * accepts it). A client may require it for itself (client metadata `require_2fa`, set by the
   * operator: `idp clients add|update --require-2fa`).
   */
  require_2fa: z
    .string()
    .regex(/^(off|all|group:[A-Za-z0-9._:/-]{1,64})$/, "must be off, all or group:NAME (a group name: 1 to 64 ASCII letters, digits or - _ . : /)")
    .default("off"),
  /**
   * The admin REST API under /admin/api/v1 (oidc/admin/): on by default, as it grants nothing
   * until an operator creates a client with `idp clients add --admin`; off answers 404 there.
   */
  admin_api: bool(true),
  /**
   * The admin web console at /admin (http/endpoints/admin_console/): for the browser sessions of
   * active members of `group` who signed in with a second factor (oidc/admin/console.ts). Off
   * answers 404 there; on by default as it grants nothing until someone is in that group.
   */
  admin_console: z
    .strictObject({
      enabled: bool(true),
      group: z.string().regex(/^[A-Za-z0-9._:/-]{1,64}$/, "must be a group name: 1 to 64 ASCII letters, digits or - _ . : /").default("admins"),
    })
    .prefault({}),
  /**
   * The device authorization grant (RFC 8628), for clients registered with its grant type:
   * `code_ttl` is the lifetime of a device_code and its user_code (§3.2 expires_in; short, as the
   * user code is low in entropy, §5.1), `interval` the seconds a device waits between polls (§3.2;
   * slow_down adds 5, §3.5), `user_code_attempts` the wrong user codes one address may enter per
   * `login_throttle.window_seconds` (§5.1 brute force).
   */
  device: z
    .strictObject({
      code_ttl: z.coerce.number().int().min(60).max(1800).default(600),
      interval: z.coerce.number().int().min(1).max(60).default(5),
      /** Wrong user codes one address may enter per sign-in throttle window before a 429 (§5.1). */
      user_code_attempts: limit(10),
    })
    .prefault({}),
  /**
   * Pushed authorization requests (RFC 9126): `required` makes /authorize refuse requests that
   * were not pushed (RFC 9126 §5, require_pushed_authorization_requests; a client may require it
   * for itself, §6); `request_uri_ttl` is how long a pushed request may wait for /authorize
   * (RFC 9126 §2.2: short-lived, single use).
   */
  par: z
    .strictObject({
      required: bool(false),
      request_uri_ttl: z.coerce.number().int().min(5).max(600).default(60),
    })
    .prefault({}),
  /**
   * Request objects by reference (OIDC Core §6.2): `request_uri` naming an https URL the client
   * registered in `request_uris`, fetched through the outbound fence (oidc/outbound/fetch.ts). On by
   * default: only registered URLs are fetched (require_request_uri_registration).
   */
  request_uri: z
    .strictObject({
      enabled: bool(true),
      /** Largest request object fetched, bytes. */
      max_bytes: z.coerce.number().int().min(1024).max(1024 * 1024).default(64 * 1024),
    })
    .prefault({}),
  /**
   * Pairwise subject identifiers (OIDC Core §8.1): the secret salt of the sub computation. Without
   * it no client may register subject_type pairwise and discovery lists public only. It must
   * never change once a pairwise client exists (every sub it was given would change).
   */
  pairwise: z
    .strictObject({
      salt: z.string().min(32, "must be at least 32 characters of secret randomness (openssl rand -base64 32)").max(512).optional(),
    })
    .prefault({}),
  /**
   * DPoP (RFC 9449): how far a proof's iat may be from the server's clock (§11.1, both ways),
   * and whether every proof must carry a server nonce (§8; off by default: a nonce costs a client
   * an extra round trip, and the jti replay cache already refuses a replayed proof).
   */
  dpop: z
    .strictObject({
      proof_window_seconds: z.coerce.number().int().min(5).max(600).default(60),
      require_nonce: bool(false),
    })
    .prefault({}),
  /**
   * The FAPI 2.0 Security Profile for every client (oidc/clients/fapi.ts): PAR, PKCE S256, DPoP-bound
   * tokens, private_key_jwt, PS256/ES256/EdDSA. "off": only clients whose metadata names
   * `fapi_profile` run it.
   */
  fapi: z.enum(["off", "2.0"]).default("off"),
  /**
   * The operator's brand on every page and mail (oidc/ui/brand.ts, read at start by app/brand.ts):
   * `name` (default: the issuer's host), `logo` (a PNG, WebP or SVG file), `favicon` (SVG, PNG or
   * ICO), `color` (#rgb or #rrggbb: the primary button, links and accents), `css` (a stylesheet
   * linked after ours), `theme_dir` (templates that replace ours by name, app/theme.ts).
   */
  brand: z
    .strictObject({
      // Also a mail subject: no control characters (a line break would be a header of its own).
      name: z
        .string()
        .trim()
        .min(1, "must not be empty")
        .max(100, "must be at most 100 characters")
        .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), "must not contain control characters (line breaks, tabs)")
        .optional(),
      logo: z.string().min(1).optional(),
      favicon: z.string().min(1).optional(),
      color: z
        .string()
        .trim()
        .regex(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i, "must be a hex colour: #rgb or #rrggbb (#1f5fbf)")
        .transform((v) => (v.length === 4 ? `#${[...v.slice(1)].map((c) => c + c).join("")}` : v).toLowerCase())
        .optional(),
      css: z.string().min(1).optional(),
      theme_dir: z.string().min(1).optional(),
    })
    .prefault({}),
}).superRefine((config, context) => {
  if (config.fapi === "2.0") {
    // FAPI 2.0 §5.3.2.1: codes live at most 60 s; §5.4.1: PS256, ES256 or EdDSA signatures.
    if (config.tokens.code_ttl > 60) context.addIssue({ code: "custom", path: ["tokens", "code_ttl"], message: "must be at most 60 seconds with fapi 2.0 (FAPI 2.0 §5.3.2.1)" });
    if (!config.signing_algs.some((alg) => alg !== "RS256")) context.addIssue({ code: "custom", path: ["signing_algs"], message: "needs PS256, ES256 or EdDSA with fapi 2.0 (FAPI 2.0 §5.4.1)" });
  }
  if (config.smtp_url !== undefined && config.mail_from === undefined) {
    context.addIssue({ code: "custom", path: ["mail_from"], message: "is required when smtp_url is set (the From address of outgoing mail)" });
  }
});

export type Config = z.output<typeof ConfigSchema>;

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True when the issuer host is a loopback address (http is acceptable only there). */
export function is_loopback_issuer(config: Config): boolean {
  return LOOPBACK.has(new URL(config.issuer).hostname);
}
