/**
 * The provider's settings: their schema, defaults and limits, parsed once at start with zod.
 * A leaf every layer may read (the type of `Provider.config`); only src/app/config.ts fills it,
 * from the defaults, an optional JSON file and the environment (docs/ARCHITECTURE.md).
 *
 * Each setting is declared here once: `.meta({ env, topic, description, production?, shown_default? })`
 * on its schema names its environment variable, its topic and says what it does
 * (src/config/settings.ts). The variable mapping, docs/configuration.md and `idp config check`
 * are read from there.
 */
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { z } from "zod";
import { MAILBOX_RULE, parse_mailbox } from "./mailbox.ts";

const seconds = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .positive()
    .max(10 * 365 * 24 * 3600)
    .default(fallback);
/** A number of requests or attempts per window. */
const limit = (fallback: number) => z.coerce.number().int().min(1).max(10_000_000).default(fallback);
/** An optional request quota per window: 0 is no quota. */
const quota = (fallback: number) => z.coerce.number().int().min(0).max(10_000_000).default(fallback);
const TRUE_WORDS = ["1", "true", "yes", "on"];
const FALSE_WORDS = ["0", "false", "no", "off"];
/** A switch: true/false, or one of the words (an environment variable is text); anything else is refused, never read as false. */
/** A list given as one comma-separated string (an environment variable) or as an array (the config file). */
const comma_list = <T extends z.ZodType>(items: T) =>
  z.preprocess(
    (v) =>
      typeof v === "string"
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    items,
  );

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
/** An IP address or a CIDR range ("10.0.0.0/8", "fd00::/8"); no host names. */
function is_address_or_range(entry: string): boolean {
  const [address, prefix, extra] = entry.split("/");
  if (extra !== undefined || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function is_allow_entry(entry: string): boolean {
  const [address, prefix, extra] = entry.split("/");
  if (extra !== undefined || address === undefined) return false;
  const family = isIP(address);
  if (prefix !== undefined) return family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  if (family !== 0) return true;
  return /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i.test(entry);
}

/** An entry of Deno's `--allow-net`: a host name or address, with or without `:port` (`[v6]:port`), or `*` for any. */
function is_net_permission(entry: string): boolean {
  if (entry === "*") return true;
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(entry);
  if (match === null || (match[2] !== undefined && Number(match[2]) > 65535)) return false;
  const host = match[1]!.replace(/^\[|\]$/g, "");
  return isIP(host) !== 0 || is_allow_entry(host);
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

/**
 * A `host:port` to listen on (`[::1]:3389` for IPv6) as {host, port}; null when it is not one.
 * The LDAP listeners' settings (src/app/ldap_listener.ts reads them the same way).
 */
export function parse_listen(value: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  if (m === null) return null;
  const host = m[1] ?? m[2]!;
  const port = Number(m[3]);
  if (port > 65535 || !is_listen_host(host) || (m[1] !== undefined && isIP(host) !== 6)) return null;
  return { host, port };
}

/** True for a loopback host: connections to it come from this machine only. */
export function is_loopback_host(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** The shape of a DN's string form (RFC 4514 §3), checked again in full by oidc/ldap/dn.ts at start. */
const DN_SHAPE = /^\s*[A-Za-z][A-Za-z0-9-]*\s*=\s*(?:[^,+\\]|\\.)+(?:[,+]\s*[A-Za-z][A-Za-z0-9-]*\s*=\s*(?:[^,+\\]|\\.)+)*$/;

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

/**
 * A cookie's Domain attribute (RFC 6265 §5.2.3): a host name with at least one dot, so never a
 * top-level domain or an IP address (a browser refuses those anyway).
 */
export function is_cookie_domain(domain: string): boolean {
  if (isIP(domain) !== 0 || !domain.includes(".")) return false;
  return /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/.test(domain);
}

/** Whether `host` (a host name, no port) is `domain` or one of its subdomains (RFC 6265 §5.1.3 domain-match). */
export function in_cookie_domain(host: string, domain: string): boolean {
  const name = host.toLowerCase();
  return name === domain || name.endsWith(`.${domain}`);
}

/** Header names that a proxy may copy to an application: RFC 9110 §5.1 tokens, none it manages itself. */
const RESERVED_HEADERS = new Set([
  "host",
  "cookie",
  "set-cookie",
  "authorization",
  "content-length",
  "content-type",
  "transfer-encoding",
  "connection",
  "location",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-uri",
  "x-forwarded-method",
  "x-original-url",
]);

const header_name = (fallback: string) =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/, "must be a header name: 1 to 64 ASCII letters, digits or -")
    .refine((v) => !RESERVED_HEADERS.has(v.toLowerCase()), "must not be a header HTTP or the proxy manages itself (Host, Cookie, Authorization, X-Forwarded-*)")
    .default(fallback);

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A duration: whole seconds, or a number with a unit s, m, h or d (`90m`, `24h`, `7d`), as seconds. */
const duration = (fallback: number, max: number) =>
  z
    .preprocess(
      (v) => {
        if (typeof v !== "string") return v;
        const match = /^\s*(\d{1,9})\s*([smhd]?)\s*$/.exec(v);
        return match === null ? v : Number(match[1]) * DURATION_UNITS[match[2] || "s"]!;
      },
      z.number({ error: "must be a duration such as 3600, 90m, 24h or 7d" }).int().min(1).max(max),
    )
    .default(fallback);

/**
 * OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs separated by commas, the values percent-encoded
 * (OpenTelemetry's "Specify Protocol" and W3C Baggage's form); null when it is not of that form.
 */
export function otlp_headers(value: string): Record<string, string> | null {
  const headers: Record<string, string> = {};
  for (const pair of value.split(",")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    if (at <= 0) return null;
    const name = pair.slice(0, at).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return null;
    try {
      headers[name.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return null;
    }
  }
  return headers;
}

/** An http(s) URL (the OTLP endpoints). */
const http_url = z.string().refine((v) => {
  try {
    return /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
}, "must be an http:// or https:// URL");

/** The samplers of OTEL_TRACES_SAMPLER this provider has (OpenTelemetry SDK environment variables). */
export const TRACE_SAMPLERS = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"] as const;

const issuer = z
  .string()
  .url()
  .refine((v) => /^https?:\/\//.test(v), "must be an http(s) URL")
  .refine((v) => !v.includes("?") && !v.includes("#"), "must not have a query or fragment (OIDC Discovery §3)")
  .transform((v) => v.replace(/\/+$/, ""));

export const ConfigSchema = z
  .strictObject({
    issuer: issuer.default("http://localhost:3000").meta({
      env: "IDP_ISSUER",
      topic: "Server and issuer",
      production: "the public `https://` URL (http only on loopback, to try it out)",
      shown_default: "`http://localhost:<PORT>`",
      description:
        "The issuer URL; every URL in discovery derives from it. Unset, it follows `HOST` and `PORT`: `http://localhost:<port>` for a loopback or wildcard `HOST` (`127.0.0.1`, `::1`, `localhost`, `0.0.0.0`, `::`), else `http://<host>:<port>` (with `PORT=0`: `http://localhost:3000`; set it). https in production (http only on loopback).",
    }),
    port: z.coerce.number().int().min(0).max(65535).default(3000).meta({
      env: "PORT",
      topic: "Server and issuer",
      description: "Port to listen on (`0` picks a free one). One server per port: a port in use stops the start (exit 1); only the workers of one `--workers` primary share it.",
    }),
    host: z.string().refine(is_listen_host, "must be an IP address or a host name (127.0.0.1, ::1, 0.0.0.0, localhost)").default("127.0.0.1").meta({
      env: "HOST",
      topic: "Server and issuer",
      production: "loopback (`127.0.0.1`, the default) behind a reverse proxy on the same host",
      description: "Address to bind: an IP address or a host name.",
    }),
    database_url: z
      .string()
      .regex(/^(sqlite:|postgres:\/\/|postgresql:\/\/)/, "must start with sqlite:, postgres:// or postgresql://")
      .default("sqlite:./data/idp.sqlite")
      .meta({
        env: "DATABASE_URL",
        topic: "Database",
        production: "`sqlite:` a file on lasting storage, the server's user's only, and backed up; `postgres://` for several instances",
        description: "`sqlite:<file>`, `sqlite::memory:` or `postgres://user:pass@host:5432/db`.",
      }),
    database_pool_size: z.coerce.number().int().min(1).max(1000).default(10).meta({
      env: "DATABASE_POOL_SIZE",
      topic: "Database",
      description: "PostgreSQL connections per instance.",
    }),
    production: bool(false).meta({
      env: "IDP_PRODUCTION",
      topic: "Server and issuer",
      production: "on, by `NODE_ENV=production`, `IDP_PRODUCTION=true` or `idp serve --production`",
      description: "Production mode: no demo data, no `/demo`, refuses a non-loopback http issuer. `NODE_ENV=production` turns it on too.",
    }),
    tokens: z
      .strictObject({
        code_ttl: seconds(60)
          .refine((v) => v <= 600, "RFC 6749 §4.1.2: codes must be short-lived (at most 600 s)")
          .meta({
            env: "IDP_CODE_TTL",
            topic: "Tokens and keys",
            description: "Authorization code lifetime, seconds (at most 600).",
          }),
        access_token_ttl: seconds(3600).meta({ env: "IDP_ACCESS_TOKEN_TTL", topic: "Tokens and keys", description: "Access token lifetime." }),
        id_token_ttl: seconds(3600).meta({ env: "IDP_ID_TOKEN_TTL", topic: "Tokens and keys", description: "ID token lifetime (and how long a retired key stays published)." }),
        refresh_token_ttl: seconds(30 * 24 * 3600).meta({
          env: "IDP_REFRESH_TOKEN_TTL",
          topic: "Tokens and keys",
          description: "Refresh token lifetime (30 days), renewed on every rotation.",
        }),
        session_ttl: seconds(14 * 24 * 3600).meta({ env: "IDP_SESSION_TTL", topic: "Sign-in, sessions and passwords", description: "Browser session (SSO) lifetime (14 days)." }),
        interaction_ttl: seconds(900).meta({ env: "IDP_INTERACTION_TTL", topic: "Sign-in, sessions and passwords", description: "Time to finish login and consent." }),
      })
      .prefault({}),
    router: z
      .strictObject({
        path_cache_size: z.coerce
          .number()
          .int()
          .min(0)
          .max(1_000_000)
          .default(1024)
          .meta({ env: "IDP_ROUTER_PATH_CACHE_SIZE", topic: "Server and issuer", description: "Router path cache entries (0 disables)." }),
      })
      .prefault({}),
    body_limit: z.coerce
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(64 * 1024)
      .meta({
        env: "IDP_BODY_LIMIT",
        topic: "Server and issuer",
        description: "Largest request body, bytes (413 above).",
      }),
    /** argon2id, the password hash (platform/passwords.ts). */
    argon2: z
      .strictObject({
        memory_kib: z.coerce
          .number()
          .int()
          .min(1024)
          .max(4 * 1024 * 1024)
          .default(19456)
          .meta({
            env: "IDP_ARGON2_MEMORY_KIB",
            topic: "Sign-in, sessions and passwords",
            description: "argon2id memory (OWASP: 19 MiB).",
          }),
        time_cost: z.coerce
          .number()
          .int()
          .min(1)
          .max(20)
          .default(2)
          .meta({ env: "IDP_ARGON2_TIME_COST", topic: "Sign-in, sessions and passwords", description: "argon2id passes (OWASP: 2)." }),
        impl: z.enum(["auto", "bun", "libsodium"]).default("auto").meta({
          env: "IDP_ARGON2_IMPL",
          topic: "Sign-in, sessions and passwords",
          description:
            "`auto`: argon2id through the system's libsodium (`libsodium.so.23`, Debian `libsodium23`) on worker threads when it loads — about 60% of the CPU of `Bun.password` a check (`bench/argon2`) —, else `Bun.password` (on Deno: hash-wasm, on the worker threads); `bun` forces `Bun.password` (refused on Deno); `libsodium` refuses to start without it (on Deno: without `--allow-ffi` for it; README, \"Running on Deno\"). Hashes are standard argon2id strings either way, and each verifies the others'. The start log line says which is in use (`password_hashing`).",
        }),
      })
      .prefault({}),
    /** RS256/PS256 signatures through the system's OpenSSL 3 (platform/openssl.ts). */
    openssl: bool(true).meta({
      env: "IDP_OPENSSL",
      topic: "Tokens and keys",
      description:
        "`off` (or `false`) signs RS256/PS256 with WebCrypto instead of the system's OpenSSL 3 (`libcrypto.so.3`, used when present: about half the CPU per signature, on the main thread; measured in `bench/RESULTS.md`, Signing).",
    }),
    signing_algs: comma_list(z.array(z.enum(["RS256", "PS256", "ES256", "EdDSA"])).min(1))
      .default(["RS256", "PS256", "ES256", "EdDSA"])
      .refine((v) => v.includes("RS256"), "must include RS256 (OIDC Core §15.1)")
      .meta({ env: "IDP_SIGNING_ALGS", topic: "Tokens and keys", description: "ID token algorithms with a key each; RS256 is required." }),
    registration: z.enum(["open", "token", "off"]).default("token").meta({
      env: "IDP_REGISTRATION",
      topic: "Clients and registration",
      production: "`token` (the default) or `off`: `open` is a warning of `idp config check`",
      description: "Dynamic registration: `open`, `token` (initial access token required) or `off`.",
    }),
    /** Anonymous registrations never used are deleted by the purge (oidc/registration/unused_clients.ts). */
    registration_unused_client_days: z.coerce.number().int().min(0, "must be 0 (keep them) or a number of days up to 365").max(365, "must be at most 365 days").default(30).meta({
      env: "IDP_REGISTRATION_UNUSED_CLIENT_DAYS",
      topic: "Clients and registration",
      description:
        "Clients registered without an initial access token (`IDP_REGISTRATION=open`) that were never issued a token are deleted by the purge this many days after they registered. Audited (`client_deleted`, reason `never_used`). `0` keeps them; at most 365.",
    }),
    /** Accounts people create themselves (oidc/accounts/signup.ts) and invitations (oidc/accounts/invitations.ts). */
    signup: z
      .strictObject({
        mode: z.enum(["off", "open", "invite"]).default("off").meta({
          env: "IDP_SIGNUP",
          topic: "Sign-up and accounts",
          description:
            "Accounts people make themselves (see [Sign-up, invitations, e-mail change](#sign-up-invitations-e-mail-change)): `off` (only administrators), `open` (a public sign-up page, linked from the sign-in pages) or `invite` (only with an invitation, `idp users invite`). In production without `IDP_SMTP_URL`, `open` with required verification and `invite` refuse to start.",
        }),
        domains: comma_list(
          z.array(
            z.string().transform((d, ctx) => {
              const ascii = signup_domain(d);
              if (ascii === null) ctx.addIssue({ code: "custom", message: `"${d}" is not a domain name (example.com, bücher.example)` });
              return ascii ?? d;
            }),
          ),
        )
          .default([])
          .meta({
            env: "IDP_SIGNUP_DOMAINS",
            topic: "Sign-up and accounts",
            description:
              "Comma-separated e-mail domains allowed to sign up (exact match, case-insensitive, international domains in either spelling: `bücher.example` = `xn--bcher-kva.example`; a subdomain is another domain). Unset: any.",
          }),
        require_verification: bool(true).meta({
          env: "IDP_SIGNUP_REQUIRE_VERIFICATION",
          topic: "Sign-up and accounts",
          description: "A new account signs in only once its address is confirmed. `false`: active and signed in at once (a confirmation mail is still sent).",
        }),
        invitation_ttl: seconds(7 * 24 * 3600).meta({ env: "IDP_INVITATION_TTL", topic: "Sign-up and accounts", description: "How long an invitation link works (7 days)." }),
        per_ip: limit(10).meta({ env: "IDP_SIGNUP_PER_IP", topic: "Sign-up and accounts", description: "Complete sign-up forms one address may send per window; then 429." }),
        window_seconds: seconds(3600).meta({ env: "IDP_SIGNUP_WINDOW_SECONDS", topic: "Sign-up and accounts", description: "The sign-up throttle's window." }),
        unverified_account_days: z.coerce.number().int().min(0, "must be 0 (keep them) or a number of days up to 365").max(365, "must be at most 365 days").default(30).meta({
          env: "IDP_UNVERIFIED_ACCOUNT_DAYS",
          topic: "Sign-up and accounts",
          description:
            "Accounts never completed are deleted by the purge, so their usernames are not held forever: `unverified` sign-ups this many days after they were made (unless a verification link is still valid), `invited` accounts this many days after their last invitation link expired. Audited (`user_deleted`, reason `email_not_verified` or `invitation_not_accepted`). `0` keeps them; at most 365.",
        }),
      })
      .prefault({}),
    /** Deleting one's own account from the account page (oidc/accounts/profile.ts). */
    account_self_delete: bool(false).meta({
      env: "IDP_ACCOUNT_SELF_DELETE",
      topic: "Sign-up and accounts",
      description:
        "`true`: the account page offers “Delete my account”: with the password (or, without one, the username typed), it ends every session, revokes every token, consent and passkey, deletes the account and its attributes, and is audited (`account_deleted`). Off by default: an organisation's accounts are usually the administrators' to remove. The last active administrator cannot delete themselves.",
    }),
    /** The passwords people choose (oidc/accounts/password_policy.ts): account page, reset, sign-up, CLI. */
    passwords: z
      .strictObject({
        min_length: z.coerce.number().int().min(8, "must be at least 8 (NIST SP 800-63B §5.1.1.2)").max(128).default(10).meta({
          env: "IDP_PASSWORD_MIN_LENGTH",
          topic: "Sign-in, sessions and passwords",
          description: "Shortest new password, in characters (8 to 128).",
        }),
        max_length: z.coerce.number().int().min(64, "must be at least 64 (NIST SP 800-63B §5.1.1.2)").max(4096).default(1024).meta({
          env: "IDP_PASSWORD_MAX_LENGTH",
          topic: "Sign-in, sessions and passwords",
          description: "Longest new password (64 to 4096): bounds the argon2id input.",
        }),
      })
      .prefault({})
      .refine((p) => p.min_length <= p.max_length, "min_length must not be above max_length"),
    /** Forgot password (oidc/accounts/password_reset.ts): the link's lifetime and the request limits. */
    password_reset: z
      .strictObject({
        ttl: seconds(1800)
          .refine((v) => v <= 24 * 3600, "a reset link must be short-lived (at most 86400 s)")
          .meta({
            env: "IDP_PASSWORD_RESET_TTL",
            topic: "Sign-in, sessions and passwords",
            description: "How long a password reset link works, seconds (at most 86400).",
          }),
        per_account: limit(3).meta({
          env: "IDP_PASSWORD_RESET_PER_ACCOUNT",
          topic: "Sign-in, sessions and passwords",
          description: "Reset mails one account gets per window; more requests get the same page and no mail.",
        }),
        per_ip: limit(20).meta({
          env: "IDP_PASSWORD_RESET_PER_IP",
          topic: "Sign-in, sessions and passwords",
          description: "Forgot-password requests, and reset form posts, from one client address per window; then 429.",
        }),
        window_seconds: seconds(3600).meta({
          env: "IDP_PASSWORD_RESET_WINDOW_SECONDS",
          topic: "Sign-in, sessions and passwords",
          description: "The window of the reset and verification mail limits.",
        }),
      })
      .prefault({}),
    /** E-mail verification links (oidc/accounts/verification.ts). */
    email_verification: z
      .strictObject({
        ttl: seconds(24 * 3600).meta({
          env: "IDP_EMAIL_VERIFICATION_TTL",
          topic: "Sign-up and accounts",
          description: 'How long an e-mail confirmation link works (sign-up, "send a confirmation link", e-mail change).',
        }),
        per_account: limit(5).meta({
          env: "IDP_EMAIL_VERIFICATION_PER_ACCOUNT",
          topic: "Sign-up and accounts",
          description: "Confirmation mails one account may be sent per window (`IDP_PASSWORD_RESET_WINDOW_SECONDS`); then 429.",
        }),
      })
      .prefault({}),
    trust_proxy: bool(false).meta({
      env: "IDP_TRUST_PROXY",
      topic: "Server and issuer",
      production: "`true` behind a reverse proxy, or every client shares the proxy's address",
      description:
        "Take the client address from `X-Forwarded-For` when the request comes from a trusted proxy (`IDP_TRUSTED_PROXIES`): the entries are walked right to left past trusted hops, and the first other address is the client's. Off: the header is ignored.",
    }),
    trusted_proxies: comma_list(z.array(z.string().refine(is_address_or_range, "each entry must be an IP address or a CIDR range (10.0.0.0/8)")).max(100))
      .default(["127.0.0.0/8", "::1"])
      .meta({
        env: "IDP_TRUSTED_PROXIES",
        topic: "Server and issuer",
        production: "the proxy's addresses when it is not on the same host",
        description:
          "Comma-separated addresses and CIDR ranges of the proxies in front of the provider (with `IDP_TRUST_PROXY`): `X-Forwarded-For` counts only when the connection comes from one of them, so a client that reaches the port directly cannot choose the address the rate limits count. A proxy on another host, or several hops (a CDN in front of nginx), must be listed.",
        shown_default: "`127.0.0.0/8,::1`",
      }),
    /** Forward authentication for applications behind a reverse proxy (oidc/forward_auth/). */
    forward_auth: z
      .strictObject({
        cookie_domain: z
          .string()
          .trim()
          .transform((v) => v.toLowerCase().replace(/^\./, ""))
          .refine(is_cookie_domain, "must be a domain name with at least one dot (example.com), without a port, a scheme or a leading wildcard")
          .optional()
          .meta({
            env: "IDP_FORWARD_AUTH_COOKIE_DOMAIN",
            topic: "Forward authentication",
            description:
              "Turns on forward authentication (`/forward-auth`, see [Applications behind a reverse proxy](#applications-behind-a-reverse-proxy)): the domain of the cookie that says who is signed in to the protected applications (`idp apps`), e.g. `example.com` for `grafana.example.com` and `id.example.com`. The issuer's host must be in it. Every host of the domain receives that cookie (and so do the applications behind it): only set it to a domain whose hosts you all run. It is not the provider's own session cookie (which stays host-only), so a host of the domain cannot use it to act as the user at the provider. Applications outside the domain get a host-only cookie of their own through a callback on their host (`/.idp/callback`). Unset: `/forward-auth` answers 500 and logs why.",
          }),
        header_user: header_name("Remote-User").meta({
          env: "IDP_FORWARD_AUTH_HEADER_USER",
          topic: "Forward authentication",
          description: "The header of a `/forward-auth` answer that carries the username (the proxy copies it to the application).",
        }),
        header_email: header_name("Remote-Email").meta({
          env: "IDP_FORWARD_AUTH_HEADER_EMAIL",
          topic: "Forward authentication",
          description: "The header that carries the user's e-mail address, when it is verified (empty otherwise).",
        }),
        header_name: header_name("Remote-Name").meta({
          env: "IDP_FORWARD_AUTH_HEADER_NAME",
          topic: "Forward authentication",
          description: "The header that carries the user's full name (UTF-8; empty when unknown).",
        }),
        header_groups: header_name("Remote-Groups").meta({
          env: "IDP_FORWARD_AUTH_HEADER_GROUPS",
          topic: "Forward authentication",
          description: "The header that carries the user's groups, comma-separated.",
        }),
      })
      .prefault({})
      .refine(
        (f) => new Set([f.header_user, f.header_email, f.header_name, f.header_groups].map((h) => h.toLowerCase())).size === 4,
        "the four IDP_FORWARD_AUTH_HEADER_* names must differ",
      ),
    metrics_token: z.string().min(16).optional().meta({
      env: "IDP_METRICS_TOKEN",
      topic: "Logging and metrics",
      production: "set, to monitor the server through `/metrics`",
      description: "Enables `/metrics` behind this bearer token (16+ characters).",
    }),
    log_requests: bool(true).meta({
      env: "IDP_LOG_REQUESTS",
      topic: "Logging and metrics",
      description:
        "One JSON log line per request. With `false` (and no `IDP_METRICS_TOKEN`), discovery and the JWKS are answered from Bun's native route table without entering JavaScript (8–9 µs of server CPU a request instead of 22–24 in `bench/RESULTS.md`; the JWKS answer is replaced at every key change).",
    }),
    /**
     * OpenTelemetry traces (app/tracing/): the SDK's standard variables, off without an endpoint.
     * Not `IDP_` names: the same ones every OpenTelemetry SDK reads (OpenTelemetry's "Environment
     * Variable Specification" and "OTLP Exporter Configuration").
     */
    tracing: z
      .strictObject({
        endpoint: http_url.optional().meta({
          env: "OTEL_EXPORTER_OTLP_ENDPOINT",
          topic: "Logging and metrics",
          description:
            "Turns on OpenTelemetry traces (see [Tracing](#tracing)), sent as OTLP/HTTP JSON to this collector's base URL, `/v1/traces` appended (`http://127.0.0.1:4318`). Unset (and no `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`): no traces, and the tracing code is not loaded.",
        }),
        traces_endpoint: http_url.optional().meta({
          env: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
          topic: "Logging and metrics",
          description: "The traces URL itself, used as it is (`http://127.0.0.1:4318/v1/traces`); takes precedence over `OTEL_EXPORTER_OTLP_ENDPOINT`.",
        }),
        headers: z
          .string()
          .refine((v) => otlp_headers(v) !== null, "must be key=value pairs separated by commas, values percent-encoded (api-key=abc%20def,tenant=idp)")
          .optional()
          .meta({
            env: "OTEL_EXPORTER_OTLP_HEADERS",
            topic: "Logging and metrics",
            description: "Headers sent with every export, `key=value` pairs separated by commas, values percent-encoded (a collector's API key). Masked in `idp config check`.",
          }),
        service_name: z.string().trim().min(1).max(200).default("idp").meta({
          env: "OTEL_SERVICE_NAME",
          topic: "Logging and metrics",
          description: "The `service.name` the traces carry.",
        }),
        sampler: z.enum(TRACE_SAMPLERS).default("parentbased_always_on").meta({
          env: "OTEL_TRACES_SAMPLER",
          topic: "Logging and metrics",
          description:
            "Which traces are recorded: `always_on`, `always_off`, `traceidratio` (a share, `OTEL_TRACES_SAMPLER_ARG`), or `parentbased_…` of those, which follow the sampled flag of an incoming `traceparent` (and decide alone for requests without one).",
        }),
        sampler_arg: z.coerce.number().min(0).max(1).optional().meta({
          env: "OTEL_TRACES_SAMPLER_ARG",
          topic: "Logging and metrics",
          shown_default: "`1`",
          description: "The share of traces `traceidratio` and `parentbased_traceidratio` record, from `0` to `1`.",
        }),
        disabled: bool(false).meta({
          env: "OTEL_SDK_DISABLED",
          topic: "Logging and metrics",
          description: "`true`: no traces, whatever the endpoints say.",
        }),
      })
      .prefault({}),
    // app/config.ts checks that a catalog (locales/<tag>.json) exists for it.
    default_locale: z
      .string()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, "must be a language tag such as en, de or fr")
      .default("en")
      .meta({
        env: "IDP_DEFAULT_LOCALE",
        topic: "Branding and languages",
        description: "The pages' and mails' language when the request names none with a catalog: `en`, `de`, `es`, `fr` or `ja` ([Languages](#languages)).",
      }),
    smtp_url: z.string().refine(is_smtp_url, "must be smtp://[user:password@]host[:port] or smtps://…, optionally with ?starttls=required").optional().meta({
      env: "IDP_SMTP_URL",
      topic: "Mail",
      production: "set: without it, forgot password, sign-up with verification, invitations and e-mail change are off",
      description:
        "Outgoing mail server (see [Mail](#mail)): `smtp://[user:password@]host[:port]` (port 587 by default; STARTTLS when the server offers it, `?starttls=required` to refuse sending without it) or `smtps://…` (TLS from the start, port 465 by default). Percent-encode special characters of the user and password. Unset: mail goes to the log in development and is off in production. The password is masked in `idp config check` and never logged.",
    }),
    mail_from: z
      .string()
      .refine((value) => parse_mailbox(value) !== null, MAILBOX_RULE)
      .optional()
      .meta({
        env: "IDP_MAIL_FROM",
        topic: "Mail",
        production: "set (required with `IDP_SMTP_URL`)",
        description:
          "The From of outgoing mail: an address (`idp@example.com`) or a name and an address (`Example ID <idp@example.com>`, an RFC 5322 mailbox; quote a name with commas). Without a name, mail goes out under `IDP_BRAND_NAME` (or the issuer's host). Required with `IDP_SMTP_URL`.",
      }),
    key_rotation_days: z.coerce.number().int().min(0).max(3650).default(90).meta({
      env: "IDP_KEY_ROTATION_DAYS",
      topic: "Tokens and keys",
      description:
        "Days a signing key signs before the next key, published in the JWKS all along, takes over; the old key stays published until the tokens it signed expire. 0: keys rotate only by hand (`idp keys rotate`, the admin console or API).",
    }),
    keys_poll_seconds: z.coerce.number().int().min(1).max(3600).default(5).meta({
      env: "IDP_KEYS_POLL_SECONDS",
      topic: "Tokens and keys",
      description: "How often an instance looks for keys rotated elsewhere (and for attribute definitions changed elsewhere, which discovery lists).",
    }),
    purge_interval_seconds: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 3600)
      .default(600)
      .meta({
        env: "IDP_PURGE_INTERVAL_SECONDS",
        topic: "Database",
        description: "How often expired rows are deleted.",
      }),
    /** Scheduled backups in the server (app/backup/schedule.ts); `idp backup` takes one by hand. */
    backup: z
      .strictObject({
        dir: z.string().min(1).optional().meta({
          env: "IDP_BACKUP_DIR",
          topic: "Database",
          production: "set (or `idp backup` from cron), with the files copied off the machine",
          description:
            "Turns on scheduled backups: a backup file (see [Backups](#backups)) every `IDP_BACKUP_INTERVAL` into this directory (created 0700), named `idp-backup-<UTC time>.idpbackup`. One instance takes each run, also with several on one database. Not with `sqlite::memory:`.",
        }),
        interval_seconds: duration(86400, 366 * 86400).meta({
          env: "IDP_BACKUP_INTERVAL",
          topic: "Database",
          shown_default: "`24h`",
          description: "Time between two scheduled backups: seconds, or with a unit (`90m`, `24h`, `7d`).",
        }),
        keep: z.coerce.number().int().min(1).max(10_000).default(7).meta({
          env: "IDP_BACKUP_KEEP",
          topic: "Database",
          description: "Scheduled backups kept in `IDP_BACKUP_DIR`: the newest ones; older ones are deleted after each backup (other files there are left alone).",
        }),
        encrypt: bool(false).meta({
          env: "IDP_BACKUP_ENCRYPT",
          topic: "Database",
          description: "Encrypt the scheduled backups with `IDP_SECRET_KEY` (AES-256-GCM, as `idp backup --encrypt`); needs it set.",
        }),
      })
      .prefault({}),
    /** src/app/workers.ts: SO_REUSEPORT processes under one primary. */
    workers: z
      .preprocess(
        (value) => (typeof value === "string" && value.trim().toLowerCase() === "auto" ? "auto" : value),
        z.union([z.literal("auto"), z.coerce.number().int().min(1).max(1024)], { error: "must be a whole number from 1 to 1024, or auto (one per core)" }),
      )
      .default(1)
      .meta({
        env: "IDP_WORKERS",
        topic: "Server and issuer",
        description:
          "Server processes sharing the port (`idp serve --workers N`), `auto` = one per core; see [All cores](#all-cores). `1`: one process, the port exclusive. Refused with `sqlite::memory:`.",
      }),
    shutdown_grace_seconds: z.coerce.number().int().min(0).max(600).default(10).meta({
      env: "IDP_SHUTDOWN_GRACE_SECONDS",
      topic: "Server and issuer",
      description: "Time in-flight requests get on SIGTERM or SIGINT before connections are closed, seconds.",
    }),
    request_timeout_seconds: z.coerce.number().int().min(1).max(600).default(15).meta({
      env: "IDP_REQUEST_TIMEOUT_SECONDS",
      topic: "Server and issuer",
      description: "A request unanswered this long gets 503 (e.g. a database that stopped answering without closing).",
    }),
    idle_timeout_seconds: z.coerce.number().int().min(1).max(255).default(30).meta({
      env: "IDP_IDLE_TIMEOUT_SECONDS",
      topic: "Server and issuer",
      description:
        "Idle or slow connections (slow clients, Slowloris) are closed after this; Bun's own limit, at most 255 (Deno.serve has no such setting: on Deno this is not applied). Keep it above `IDP_REQUEST_TIMEOUT_SECONDS`.",
    }),
    /** Deno's network permission beyond what the configuration names (scripts/deno/permissions.ts). */
    deno_allow_net: comma_list(z.array(z.string().refine(is_net_permission, "each entry must be a host name or address, optionally with :port, or * for any")))
      .default([])
      .meta({
        env: "IDP_DENO_ALLOW_NET",
        topic: "Server and issuer",
        description:
          'On Deno only (README, "Running on Deno"): comma-separated hosts (`host`, `host:port`, `[::1]:8080`) added to `--allow-net` besides the listening address, the database and the mail server, which it grants by itself: the hosts of upstream identity providers and of the URLs clients register (`jwks_uri`, `request_uri`, logout URIs), or `*` for any host (the outbound fence, `IDP_OUTBOUND_ALLOW`, still applies). The provider connects to the address it checked, so list addresses as well as names. Ignored on Bun.',
      }),
    /**
     * Requests to URLs clients register (jwks_uri, backchannel_logout_uri): oidc/outbound/fetch.ts. The
     * defaults refuse every non-public address (OWASP SSRF Prevention Cheat Sheet).
     */
    outbound: z
      .strictObject({
        allow_http: bool(false).meta({
          env: "IDP_OUTBOUND_ALLOW_HTTP",
          topic: "Security and secrets",
          description: "Let the provider call http URLs that clients register (`jwks_uri`, `backchannel_logout_uri`); https only otherwise.",
        }),
        allow: comma_list(z.array(z.string().refine(is_allow_entry, "each entry must be a host name, an IP address or a CIDR range (10.0.0.0/8)")))
          .default([])
          .meta({
            env: "IDP_OUTBOUND_ALLOW",
            topic: "Security and secrets",
            description:
              "Comma-separated host names, addresses and CIDR ranges (`idp.intranet,10.0.0.0/8,127.0.0.1/32`) the provider may call although they are not public. By default every loopback, private, link-local, unique-local, multicast, CGNAT or reserved address (IPv4-mapped IPv6 included) is refused, after DNS resolution, and redirects are never followed.",
          }),
        connect_timeout_ms: z.coerce.number().int().min(100).max(60_000).default(3000).meta({
          env: "IDP_OUTBOUND_CONNECT_TIMEOUT_MS",
          topic: "Security and secrets",
          description: "Time until the response headers of such a call (DNS, connect, TLS, first answer).",
        }),
        timeout_ms: z.coerce.number().int().min(100).max(120_000).default(5000).meta({
          env: "IDP_OUTBOUND_TIMEOUT_MS",
          topic: "Security and secrets",
          description: "Time for the whole call, body included.",
        }),
        max_bytes: z.coerce
          .number()
          .int()
          .min(1024)
          .max(16 * 1024 * 1024)
          .default(512 * 1024)
          .meta({
            env: "IDP_OUTBOUND_MAX_BYTES",
            topic: "Security and secrets",
            description: "Largest response body read (a client's JWK Set).",
          }),
      })
      .prefault({}),
    /** Sign-in with other identity providers (oidc/federation); `secret_key` also seals the private signing keys (oidc/keys/sealed_keys.ts). */
    federation: z
      .strictObject({
        secret_key: z
          .string()
          .regex(/^[A-Za-z0-9_-]{43}=?$/, "must be 32 bytes in base64url (43 characters): openssl rand -base64 32 | tr '+/' '-_' | tr -d '='")
          .optional()
          .meta({
            env: "IDP_SECRET_KEY",
            topic: "Security and secrets",
            production: "set, with a copy kept apart from the database and its backups",
            description:
              "32 bytes, base64url (`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='`): the AES-256-GCM key of the private signing keys and the upstreams' client secrets at rest. Without it the signing keys are stored in clear (a warning in production) and no upstream with a secret can be added or used; once set, keys stored before are encrypted at the next start, and a start without it (or with another key) is refused.",
          }),
        state_ttl_seconds: z.coerce.number().int().min(60).max(3600).default(600).meta({
          env: "IDP_FEDERATION_STATE_TTL_SECONDS",
          topic: "Federation",
          description: "How long the upstream leg of a sign-in may take (its `state` then expires and is purged).",
        }),
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
          .default([])
          .meta({
            env: null,
            topic: "Federation",
            description:
              "Upstream identity providers declared in the config file, with the fields of `idp upstreams add` (see [Sign in with another identity provider](#sign-in-with-another-identity-provider)), applied at every start: added, or replaced by name. Removing an entry does not remove the upstream (`idp upstreams remove`). Their client secrets are masked in `idp config check`.",
          }),
      })
      .prefault({}),
    /** Failed sign-ins, counted in fixed windows in the store (oidc/limits/login.ts). */
    login_throttle: z
      .strictObject({
        window_seconds: seconds(900).meta({ env: "IDP_LOGIN_WINDOW_SECONDS", topic: "Rate limits", description: "Window of the failed-login counters." }),
        max_failures: limit(10).meta({
          env: "IDP_LOGIN_MAX_FAILURES",
          topic: "Rate limits",
          description: "Failures for one username from one address before 429 until the window ends.",
        }),
        max_failures_per_ip: limit(100).meta({ env: "IDP_LOGIN_MAX_FAILURES_PER_IP", topic: "Rate limits", description: "Failures from one address (any username) before 429." }),
        delay_after: limit(5).meta({
          env: "IDP_LOGIN_DELAY_AFTER",
          topic: "Rate limits",
          description: "Failures for one username, from any address, after which each attempt for it waits `delay_ms`.",
        }),
        delay_ms: z.coerce.number().int().min(0).max(10_000).default(1000).meta({ env: "IDP_LOGIN_DELAY_MS", topic: "Rate limits", description: "That delay, milliseconds." }),
      })
      .prefault({}),
    /** Rate limits of the endpoints clients call (oidc/limits/endpoints.ts, oidc/limits/client_auth.ts). */
    rate_limits: z
      .strictObject({
        enabled: bool(true).meta({
          env: "IDP_RATE_LIMITS",
          topic: "Rate limits",
          description:
            "Rate limits on `/token` (with `/par` and `/device_authorization`, which count as `/token`), `/revoke`, `/introspect`, `/register`, `/authorize` and upstream sign-in starts (`false` for benchmarks). They target abuse; authenticated, successful traffic has no quota unless one is set below.",
        }),
        window_seconds: seconds(60).meta({ env: "IDP_RATE_LIMIT_WINDOW_SECONDS", topic: "Rate limits", description: "Their window (so `Retry-After` is at most this)." }),
        auth_failures_per_client_ip: limit(10).meta({
          env: "IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT_IP",
          topic: "Rate limits",
          description:
            "Failed client authentications (`invalid_client`) for one `client_id` from one address; then that pair gets 429 before any check, even with the right secret. A few failures during a secret rotation stay below it.",
        }),
        auth_failures_per_ip: limit(100).meta({
          env: "IDP_RATE_LIMIT_AUTH_FAILURES_PER_IP",
          topic: "Rate limits",
          description: "Failed client authentications from one address, any `client_id`s (one address trying many clients); then the address gets 429.",
        }),
        auth_failures_per_client: limit(100).meta({
          env: "IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT",
          topic: "Rate limits",
          description:
            "Failed client authentications for one `client_id` from all addresses; past it, an address that has failed for it gets 429 at once. Never a lockout of the `client_id` itself: client ids are public, and anyone could lock the real client out.",
        }),
        unauthenticated_per_ip: limit(1200).meta({
          env: "IDP_RATE_LIMIT_UNAUTHENTICATED_PER_IP",
          topic: "Rate limits",
          description: "Requests without client credentials (public clients, or none) to `/token`, `/revoke`, `/introspect` from one address, all three together.",
        }),
        token_per_client: quota(0).meta({
          env: "IDP_RATE_LIMIT_TOKEN_PER_CLIENT",
          topic: "Rate limits",
          description: "Optional quota of `/token` requests per window, per claimed `client_id`; `0`: no quota.",
        }),
        token_per_ip: quota(0).meta({
          env: "IDP_RATE_LIMIT_TOKEN_PER_IP",
          topic: "Rate limits",
          description: "Optional quota of `/token` requests per window, per address; `0`: no quota.",
        }),
        revoke_per_client: quota(0).meta({
          env: "IDP_RATE_LIMIT_REVOKE_PER_CLIENT",
          topic: "Rate limits",
          description: "Optional quota of `/revoke` requests per window, per claimed `client_id`; `0`: no quota.",
        }),
        revoke_per_ip: quota(0).meta({
          env: "IDP_RATE_LIMIT_REVOKE_PER_IP",
          topic: "Rate limits",
          description: "Optional quota of `/revoke` requests per window, per address; `0`: no quota.",
        }),
        introspect_per_client: quota(0).meta({
          env: "IDP_RATE_LIMIT_INTROSPECT_PER_CLIENT",
          topic: "Rate limits",
          description: "Optional quota of `/introspect` requests per window, per claimed `client_id`; `0`: no quota.",
        }),
        introspect_per_ip: quota(0).meta({
          env: "IDP_RATE_LIMIT_INTROSPECT_PER_IP",
          topic: "Rate limits",
          description: "Optional quota of `/introspect` requests per window, per address; `0`: no quota.",
        }),
        register_per_client: quota(60).meta({
          env: "IDP_RATE_LIMIT_REGISTER_PER_CLIENT",
          topic: "Rate limits",
          description: "`/register/:client_id` requests (RFC 7592 client management) per window, per `client_id`; `0` removes the limit.",
        }),
        register_per_ip: quota(60).meta({
          env: "IDP_RATE_LIMIT_REGISTER_PER_IP",
          topic: "Rate limits",
          description: "`/register` requests (RFC 7591 registration) per window, per address (nobody is authenticated yet at `/register`); `0` removes the limit.",
        }),
        authorize_per_ip: quota(300).meta({
          env: "IDP_RATE_LIMIT_AUTHORIZE_PER_IP",
          topic: "Rate limits",
          description:
            "Requests to `/authorize` (GET or POST) and codes entered at `/device` from one address per window: most start a sign-in, stored as an interaction until it completes or is purged. All count, also those answered at once (a signed-in user with consent on record gets a code) or with an error. Then 429 page with `Retry-After`, before anything is read or stored. 300 leaves room for many people behind one NAT (a sign-in is one or two requests); `0` removes it.",
        }),
        register_per_ip_per_day: quota(500).meta({
          env: "IDP_RATE_LIMIT_REGISTER_PER_IP_PER_DAY",
          topic: "Rate limits",
          description:
            "`/register` requests without an initial access token (`IDP_REGISTRATION=open`) per address per day (a fixed 24-hour window); then 429 with `Retry-After`. `0` removes it.",
        }),
        federation_start_per_ip: quota(60).meta({
          env: "IDP_RATE_LIMIT_FEDERATION_START_PER_IP",
          topic: "Rate limits",
          description:
            "Sign-ins started through an upstream (`/federation/<name>/start`, each stores a pending state) from one address per window; then 429 with `Retry-After`. `0` removes it.",
        }),
      })
      .prefault({}),
    passkeys: bool(true).meta({
      env: "IDP_PASSKEYS",
      topic: "Second factors and passkeys",
      description:
        "Passkeys (WebAuthn): sign-in without a password and a second factor. `off` hides them everywhere. They need an https issuer with a domain name (`http://localhost` in development).",
    }),
    require_2fa: z
      .string()
      .regex(/^(off|all|group:[A-Za-z0-9._:/-]{1,64})$/, "must be off, all or group:NAME (a group name: 1 to 64 ASCII letters, digits or - _ . : /)")
      .default("off")
      .meta({
        env: "IDP_REQUIRE_2FA",
        topic: "Second factors and passkeys",
        description:
          "`all`: every password sign-in needs a second factor (TOTP or a passkey); users without one add one after the password. `group:NAME`: the same for the members of that group (`idp groups`; the name compares without case). `off`: only users who set one up (a client may still require it: `idp clients add|update --require-2fa`).",
      }),
    /** The admin REST API under /admin/api/v1 (oidc/admin/). */
    admin_api: bool(true).meta({
      env: "IDP_ADMIN_API",
      topic: "Admin console and roles",
      description:
        "The admin REST API under `/admin/api/v1` (see [Admin API](#admin-api)); `off` answers 404 there. Harmless on: it needs a token with the `admin` scope, which only a client made with `--admin` gets.",
    }),
    /** SCIM 2.0 provisioning under /scim/v2 (oidc/scim/, http/middleware/scim.ts). */
    scim: bool(true).meta({
      env: "IDP_SCIM",
      topic: "Admin console and roles",
      description:
        "SCIM 2.0 provisioning (RFC 7644) under `/scim/v2`, for Microsoft Entra ID, Okta and other directories (see [Provisioning (SCIM)](#provisioning-scim)); `off` answers 404 there. Harmless on: it needs a token with the `scim` scope, which only a client made with `--admin` gets.",
    }),
    /** The admin web console at /admin (http/endpoints/admin_console/, oidc/admin/console.ts). */
    admin_console: z
      .strictObject({
        enabled: bool(true).meta({
          env: "IDP_ADMIN_CONSOLE",
          topic: "Admin console and roles",
          description:
            "The admin web console at `/admin` (see [Admin console](#admin-console)); `off` answers 404 there. Harmless on: it needs a member of `IDP_ADMIN_GROUP` signed in with a second factor.",
        }),
        group: z
          .string()
          .regex(/^[A-Za-z0-9._:/-]{1,64}$/, "must be a group name: 1 to 64 ASCII letters, digits or - _ . : /")
          .default("admins")
          .meta({
            env: "IDP_ADMIN_GROUP",
            topic: "Admin console and roles",
            description: "The group whose members (signed in with a second factor) may use the admin console.",
          }),
        auditor_group: z
          .string()
          .regex(/^[A-Za-z0-9._:/-]{1,64}$/, "must be a group name: 1 to 64 ASCII letters, digits or - _ . : /")
          .optional()
          .meta({
            env: "IDP_AUDITOR_GROUP",
            topic: "Admin console and roles",
            description:
              "A group whose members (signed in with a second factor) see the admin console read-only: dashboard, users, groups, applications, audit log, keys; every change is refused. Unset: no such role.",
          }),
        helpdesk_group: z
          .string()
          .regex(/^[A-Za-z0-9._:/-]{1,64}$/, "must be a group name: 1 to 64 ASCII letters, digits or - _ . : /")
          .optional()
          .meta({
            env: "IDP_HELPDESK_GROUP",
            topic: "Admin console and roles",
            description:
              "A group whose members (signed in with a second factor) may, in the admin console, see users and the audit log and reset a user's second factors, send a password reset link and end sessions: nothing else, and never on a member of a console group. Unset: no such role.",
          }),
      })
      .prefault({}),
    /** The device authorization grant (RFC 8628), for clients registered with its grant type. */
    device: z
      .strictObject({
        code_ttl: z.coerce.number().int().min(60).max(1800).default(600).meta({
          env: "IDP_DEVICE_CODE_TTL",
          topic: "Authorization requests",
          description: "Seconds a device authorization (its `device_code` and `user_code`, RFC 8628) stays usable (60 to 1800; short, as a user code is low in entropy, §5.1).",
        }),
        interval: z.coerce.number().int().min(1).max(60).default(5).meta({
          env: "IDP_DEVICE_POLL_INTERVAL",
          topic: "Authorization requests",
          description: "Seconds a device waits between polls of /token (RFC 8628 §3.2 `interval`; 1 to 60; `slow_down` adds 5).",
        }),
        user_code_attempts: limit(10).meta({
          env: "IDP_DEVICE_USER_CODE_ATTEMPTS",
          topic: "Authorization requests",
          description: "Wrong user codes one address may enter at `/device` per `IDP_LOGIN_WINDOW_SECONDS` window before it gets 429 (RFC 8628 §5.1).",
        }),
      })
      .prefault({}),
    /** Pushed authorization requests (RFC 9126). */
    par: z
      .strictObject({
        required: bool(false).meta({
          env: "IDP_REQUIRE_PAR",
          topic: "Authorization requests",
          description:
            "RFC 9126 §5: `/authorize` refuses requests that were not pushed to `/par` (advertised as `require_pushed_authorization_requests`; a client may require it for itself in its metadata).",
        }),
        request_uri_ttl: z.coerce.number().int().min(5).max(600).default(60).meta({
          env: "IDP_PAR_REQUEST_URI_TTL",
          topic: "Authorization requests",
          description: "Seconds a pushed request's `request_uri` stays usable (5 to 600; single use either way).",
        }),
      })
      .prefault({}),
    /** Request objects by reference (OIDC Core §6.2), fetched through the outbound fence (oidc/outbound/fetch.ts). */
    request_uri: z
      .strictObject({
        enabled: bool(true).meta({
          env: "IDP_REQUEST_URI",
          topic: "Authorization requests",
          description:
            "OIDC Core §6.2 request objects by reference: `/authorize` fetches `request_uri` when it is one of the client's registered `request_uris` (through the outbound fence). `off`: `request_uri_not_supported` (PAR's references still work).",
        }),
        max_bytes: z.coerce
          .number()
          .int()
          .min(1024)
          .max(1024 * 1024)
          .default(64 * 1024)
          .meta({
            env: "IDP_REQUEST_URI_MAX_BYTES",
            topic: "Authorization requests",
            description: "Largest request object fetched from a `request_uri` (1024 to 1048576 bytes).",
          }),
      })
      .prefault({}),
    /** Pairwise subject identifiers (OIDC Core §8.1). */
    pairwise: z
      .strictObject({
        salt: z.string().min(32, "must be at least 32 characters of secret randomness (openssl rand -base64 32)").max(512).optional().meta({
          env: "IDP_PAIRWISE_SALT",
          topic: "Security and secrets",
          description:
            "Secret (32+ characters, e.g. `openssl rand -base64 32`) of pairwise subject identifiers (OIDC Core §8.1). Unset: only `public` subjects, and clients cannot register `pairwise`. Never change it once a pairwise client exists: every `sub` it was given would change. Masked in `idp config check`.",
        }),
      })
      .prefault({}),
    /** DPoP (RFC 9449). */
    dpop: z
      .strictObject({
        proof_window_seconds: z.coerce.number().int().min(5).max(600).default(60).meta({
          env: "IDP_DPOP_PROOF_WINDOW_SECONDS",
          topic: "Tokens and keys",
          description: "How far a DPoP proof's `iat` may be from the server's clock, either way (RFC 9449 §11.1; 5 to 600).",
        }),
        require_nonce: bool(false).meta({
          env: "IDP_DPOP_REQUIRE_NONCE",
          topic: "Tokens and keys",
          description:
            "RFC 9449 §8: every DPoP proof must carry a server nonce (`DPoP-Nonce`, `use_dpop_nonce`); costs clients a round trip, and the `jti` replay cache already refuses a replayed proof, so off by default.",
        }),
      })
      .prefault({}),
    /** The FAPI 2.0 Security Profile (oidc/clients/fapi.ts). */
    fapi: z.enum(["off", "2.0"]).default("off").meta({
      env: "IDP_FAPI",
      topic: "Clients and registration",
      description:
        '`2.0`: every client runs the FAPI 2.0 Security Profile (PAR, PKCE S256, `private_key_jwt`, DPoP, 60 s codes, PS256/ES256/EdDSA), and discovery lists only that; needs `IDP_CODE_TTL` ≤ 60 and a signing alg besides RS256. `off`: only clients whose metadata has `fapi_profile: "2.0"`.',
    }),
    /** The LDAP directory (oidc/ldap/, served by app/ldap_listener.ts): off unless a listen address is set. */
    ldap: z
      .strictObject({
        listen: z
          .string()
          .refine((v) => parse_listen(v) !== null, "must be host:port (127.0.0.1:3389, [::1]:3389, 0.0.0.0:389)")
          .optional()
          .meta({
            env: "IDP_LDAP_LISTEN",
            topic: "LDAP directory",
            description:
              "Where the read-only LDAP directory listens for plain LDAP with StartTLS (RFC 4511, RFC 4513), e.g. `127.0.0.1:3389`; see [LDAP applications](#ldap-applications). Unset: no LDAP. An address other than loopback needs `IDP_LDAP_TLS_CERT`: simple binds over a connection without TLS are accepted from loopback only.",
          }),
        ldaps_listen: z
          .string()
          .refine((v) => parse_listen(v) !== null, "must be host:port (0.0.0.0:6636)")
          .optional()
          .meta({
            env: "IDP_LDAPS_LISTEN",
            topic: "LDAP directory",
            description: "Where the directory listens for LDAPS (TLS from the first byte), e.g. `0.0.0.0:6636`. Needs `IDP_LDAP_TLS_CERT` and `IDP_LDAP_TLS_KEY`.",
          }),
        tls_cert: z.string().min(1).optional().meta({
          env: "IDP_LDAP_TLS_CERT",
          topic: "LDAP directory",
          description: "PEM file of the certificate (and its chain) for StartTLS and LDAPS, read at start.",
        }),
        tls_key: z.string().min(1).optional().meta({
          env: "IDP_LDAP_TLS_KEY",
          topic: "LDAP directory",
          description: "PEM file of its private key, read at start.",
        }),
        base_dn: z.string().regex(DN_SHAPE, "must be a DN such as dc=example,dc=com").optional().meta({
          env: "IDP_LDAP_BASE_DN",
          topic: "LDAP directory",
          shown_default: "`dc=` each label of the issuer's host (`dc=idp` for an IP address)",
          description:
            "The directory's suffix: users are `uid=<username>,ou=people,<base>`, groups `cn=<group>,ou=groups,<base>`, service accounts `cn=<name>,ou=services,<base>`.",
        }),
        user_binds: z.enum(["all", "single_factor", "off"]).default("single_factor").meta({
          env: "IDP_LDAP_USER_BINDS",
          topic: "LDAP directory",
          description:
            "Which users may bind with their password (through the sign-in page's throttles). `single_factor`: those whose sign-in is a password alone; a user with an authenticator app or a passkey, or under `IDP_REQUIRE_2FA`, is refused (a password bind would skip the second factor). `all`: every active user. `off`: only service accounts bind.",
        }),
        posix: bool(false).meta({
          env: "IDP_LDAP_POSIX",
          topic: "LDAP directory",
          description:
            "POSIX accounts and groups (RFC 2307) for `sssd`/`nslcd`: users get `posixAccount` (`uidNumber`, `gidNumber` of their own group, `homeDirectory` `/home/<username>`, `loginShell` `/bin/bash`), groups `posixGroup` (`gidNumber`, `memberUid`). Numbers are given once and kept.",
        }),
        posix_first_id: z.coerce
          .number()
          .int()
          .min(1000)
          .max(2 ** 31 - 2)
          .default(100_000)
          .meta({
            env: "IDP_LDAP_POSIX_FIRST_ID",
            topic: "LDAP directory",
            description:
              "The first `uidNumber`/`gidNumber` given out (one sequence for both: a user's number is also its own group's); above the host's local users and `nobody` (65534) by default.",
          }),
        size_limit: limit(1000).meta({
          env: "IDP_LDAP_SIZE_LIMIT",
          topic: "LDAP directory",
          description: "The most entries a search returns (then `sizeLimitExceeded`), and the largest page of a paged search (RFC 2696), which may go on for any number of pages.",
        }),
        time_limit_seconds: z.coerce.number().int().min(1).max(3600).default(30).meta({
          env: "IDP_LDAP_TIME_LIMIT",
          topic: "LDAP directory",
          description: "Seconds one search may take (then `timeLimitExceeded` with the entries found so far); a client's smaller time limit applies.",
        }),
        idle_timeout_seconds: z.coerce.number().int().min(1).max(86_400).default(300).meta({
          env: "IDP_LDAP_IDLE_TIMEOUT",
          topic: "LDAP directory",
          description: "Seconds a connection may go without sending one whole request before it is closed (a half-sent one does not count: slow senders are closed too).",
        }),
        max_connections: z.coerce.number().int().min(1).max(100_000).default(512).meta({
          env: "IDP_LDAP_MAX_CONNECTIONS",
          topic: "LDAP directory",
          description: "Open LDAP connections at most (each process); one more is closed at once.",
        }),
      })
      .prefault({}),
    /** The operator's brand on every page and mail (oidc/ui/brand.ts, read at start by app/brand.ts; theme_dir: app/theme.ts). */
    brand: z
      .strictObject({
        // Also a mail subject: no control characters (a line break would be a header of its own).
        name: z
          .string()
          .trim()
          .min(1, "must not be empty")
          .max(100, "must be at most 100 characters")
          .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), "must not contain control characters (line breaks, tabs)")
          .optional()
          .meta({
            env: "IDP_BRAND_NAME",
            topic: "Branding and languages",
            shown_default: "the issuer's host",
            description: "The name in every page's header, title and footer and in every mail (subject and body); see [Branding and themes](#branding-and-themes).",
          }),
        logo: z.string().min(1).optional().meta({
          env: "IDP_BRAND_LOGO",
          topic: "Branding and languages",
          description:
            "Path to a PNG, WebP or SVG file (at most 512 KiB; recognised by its content, not its name), read at start and shown in the header as an image; in HTML mails too when the issuer is https (not SVG).",
        }),
        favicon: z.string().min(1).optional().meta({
          env: "IDP_BRAND_FAVICON",
          topic: "Branding and languages",
          shown_default: "our icon",
          description: "Path to an SVG, PNG or ICO file (at most 512 KiB): the pages' icon.",
        }),
        color: z
          .string()
          .trim()
          .regex(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i, "must be a hex colour: #rgb or #rrggbb (#1f5fbf)")
          .transform((v) => (v.length === 4 ? `#${[...v.slice(1)].map((c) => c + c).join("")}` : v).toLowerCase())
          .optional()
          .meta({
            env: "IDP_BRAND_COLOR",
            topic: "Branding and languages",
            description:
              "`#rgb` or `#rrggbb`: the primary button, the header mark, links and accents, in pages and mails. Text on the button is white or near-black, whichever reads (4.5:1); links use the colour darkened (light scheme) or lightened (dark scheme) until they read.",
          }),
        css: z.string().min(1).optional().meta({
          env: "IDP_BRAND_CSS",
          topic: "Branding and languages",
          description: "Path to a stylesheet (UTF-8, at most 256 KiB) linked after ours on every page, served as `/static/brand/custom.css`.",
        }),
        theme_dir: z.string().min(1).optional().meta({
          env: "IDP_THEME_DIR",
          topic: "Branding and languages",
          description:
            "A folder of templates that replace ours by name (`login.eta`, `mail/password_reset.html.eta`), its `partials/` and its `static/` files (served under `/static/theme/`). A template that does not compile, or replaces none, stops the start.",
        }),
      })
      .prefault({}),
  })
  .superRefine((config, context) => {
    if (config.fapi === "2.0") {
      // FAPI 2.0 §5.3.2.1: codes live at most 60 s; §5.4.1: PS256, ES256 or EdDSA signatures.
      if (config.tokens.code_ttl > 60) context.addIssue({ code: "custom", path: ["tokens", "code_ttl"], message: "must be at most 60 seconds with fapi 2.0 (FAPI 2.0 §5.3.2.1)" });
      if (!config.signing_algs.some((alg) => alg !== "RS256"))
        context.addIssue({ code: "custom", path: ["signing_algs"], message: "needs PS256, ES256 or EdDSA with fapi 2.0 (FAPI 2.0 §5.4.1)" });
    }
    // The LDAP listeners: TLS needs both files, LDAPS needs TLS, and other hosts must be able to start TLS.
    const ldap = config.ldap;
    if ((ldap.tls_cert === undefined) !== (ldap.tls_key === undefined)) {
      context.addIssue({
        code: "custom",
        path: ["ldap", ldap.tls_cert === undefined ? "tls_cert" : "tls_key"],
        message: "is required with IDP_LDAP_TLS_CERT and IDP_LDAP_TLS_KEY: set both",
      });
    }
    if (ldap.ldaps_listen !== undefined && ldap.tls_cert === undefined) {
      context.addIssue({ code: "custom", path: ["ldap", "tls_cert"], message: "is required with ldaps_listen (LDAPS is TLS from the first byte)" });
    }
    const plain = ldap.listen === undefined ? null : parse_listen(ldap.listen);
    if (plain !== null && !is_loopback_host(plain.host) && ldap.tls_cert === undefined) {
      context.addIssue({
        code: "custom",
        path: ["ldap", "tls_cert"],
        message: "is required when ldap.listen is not a loopback address (passwords would cross the network in clear: RFC 4513 §5.1.2)",
      });
    }
    const domain = config.forward_auth.cookie_domain;
    if (domain !== undefined && !in_cookie_domain(new URL(config.issuer).hostname, domain)) {
      context.addIssue({
        code: "custom",
        path: ["forward_auth", "cookie_domain"],
        message: `the issuer's host ${new URL(config.issuer).hostname} is not in ${domain}: the provider could not set the cookie (RFC 6265 §5.3)`,
      });
    }
    if (config.backup.encrypt && config.federation.secret_key === undefined) {
      context.addIssue({ code: "custom", path: ["backup", "encrypt"], message: "needs IDP_SECRET_KEY, the key the backups are encrypted with" });
    }
    if (config.backup.dir !== undefined && config.database_url === "sqlite::memory:") {
      context.addIssue({
        code: "custom",
        path: ["backup", "dir"],
        message: "cannot back up sqlite::memory: (it lives only inside the server's process): use a SQLite file or PostgreSQL",
      });
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
