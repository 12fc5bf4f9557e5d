/**
 * Sign-in through an upstream identity provider, as a relying party built on openid-client
 * (panva), whose every request goes through our SSRF fence (outbound.ts, `customFetch`):
 *
 * - begin: authorization code with PKCE S256 (RFC 7636), `state` (RFC 6749 §10.12) and, for
 *   OpenID Connect, `nonce` (OIDC Core §3.1.2.1). The state's SHA-256 is stored with the
 *   verifier, the nonce, the interaction to resume and the browser it is bound to: single use.
 * - complete: the state is taken (deleted) and must belong to this upstream and this browser;
 *   openid-client checks `iss` in the response when the upstream advertises it (RFC 9207), the
 *   ID Token's signature, `iss`, `aud`, `exp`, `nonce` (OIDC Core §3.1.3.7); then the local
 *   account: a linked one, an auto-link by verified e-mail when the operator enabled it for this
 *   upstream, or a just-in-time account when its policy is jit.
 */
import * as client from "openid-client";
import { record_event } from "../audit.ts";
import { constant_time_equal, random_token, sha256 } from "../crypto/secrets.ts";
import { PageError, Throttled } from "../errors.ts";
import { OutboundError, outbound_fetch } from "../outbound.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, UpstreamRow, UserRow } from "../../store/types.ts";
import { address_key, parse_address } from "../account/addresses.ts";
import { send_link_notice } from "./link_notice.ts";
import { open_secret } from "./secret_box.ts";
import { DEFAULT_CLAIM_MAPPING, redirect_uri } from "./upstreams.ts";

/** The `amr` of a session started through an upstream (RFC 8176 §2: "fed", federated). */
export const AMR_FEDERATED = "fed";

/**
 * The upstream's own methods kept in the session's amr next to "fed" (RFC 8176 §2): a second
 * factor at the upstream then counts for `acr_values=mfa` here (acr.ts). Passkey methods are not
 * kept: their phishing resistance is the upstream's origin, not ours (a passkey at the upstream
 * counts as "mfa", below).
 */
const KEPT_UPSTREAM_AMR = ["pwd", "otp", "mfa"];

/**
 * Upstream amr values (RFC 8176 §2) that mean a multi-factor sign-in there: with the upstream's
 * `trust_upstream_mfa`, they stand in for the local second factor (the session gets "mfa").
 */
export const UPSTREAM_MFA_AMR = ["mfa", "otp", "hwk", "swk", "sms", "tel"];

/**
 * What the upstream said about its own sign-in, as our methods: "fed", its password and
 * one-time-code methods, and "mfa" when it asserted a multi-factor sign-in (an amr of
 * UPSTREAM_MFA_AMR, or an `acr` the operator listed in `mfa_acr_values`; OIDC Core §2) and the
 * operator trusts it to (`trust_upstream_mfa`). An untrusted upstream's second factor is
 * dropped: the local one is asked for instead.
 */
export function upstream_methods(upstream: Pick<UpstreamRow, "trust_upstream_mfa" | "mfa_acr_values">, amr: unknown, acr: unknown): { amr: string[]; mfa: boolean } {
  const said = Array.isArray(amr) ? amr.filter((method): method is string => typeof method === "string") : [];
  const mfa = upstream.trust_upstream_mfa && (said.some((method) => UPSTREAM_MFA_AMR.includes(method)) || (typeof acr === "string" && upstream.mfa_acr_values.includes(acr)));
  const kept = KEPT_UPSTREAM_AMR.filter((method) => said.includes(method) && (upstream.trust_upstream_mfa || method === "pwd"));
  if (mfa && !kept.includes("mfa")) kept.push("mfa");
  return { amr: [AMR_FEDERATED, ...kept], mfa };
}

/** Every status but redirects reaches openid-client, which reads OAuth error bodies itself. */
const ANSWERED = [...Array(100).keys()].map((i) => 200 + i).concat([...Array(200).keys()].map((i) => 400 + i));

type StateData = {
  verifier: string;
  nonce: string | null;
  interaction_id: string | null;
  binding_hash: string;
  /** Set when a signed-in user links this upstream from the account page. */
  link_user_id: string | null;
};

const CONFIG_TTL_SECONDS = 10 * 60;
/** Per provider, per upstream name: one configuration, replaced when the upstream row changes. */
const configurations = new WeakMap<Provider, Map<string, { at: number; updated_at: number; config: client.Configuration }>>();

export class UpstreamUnavailable extends Error {}

function upstream_fetch(idp: Provider, name: string): client.CustomFetch {
  return async (url, options) => {
    const headers: Record<string, string> = {};
    new Headers(options.headers as HeadersInit).forEach((value, key) => {
      headers[key] = value;
    });
    const body = options.body === undefined || options.body === null ? undefined : String(options.body);
    const method = (options.method ?? "GET").toUpperCase() === "POST" ? "POST" : "GET";
    const answer = await outbound_fetch(idp, url, { purpose: `upstream:${name}`, method, headers, body, accept_status: ANSWERED });
    const empty = answer.status === 204 || answer.body.byteLength === 0;
    return new Response(empty ? null : (answer.body as unknown as BodyInit), { status: answer.status, headers: answer.headers });
  };
}

/** The client assertion's lifetime (seconds): one request. */
const ASSERTION_TTL_SECONDS = 60;

/**
 * `private_key_jwt` (OIDC Core §9, RFC 7523 §2.2): an assertion signed with our own active
 * signing key, whose public half the upstream reads from our JWKS (register our jwks_uri there).
 * `aud` is the upstream's issuer, as openid-client's own PrivateKeyJwt sends it (RFC 7523bis:
 * an assertion bound to one server cannot be replayed at another's token endpoint); `jti` is
 * random, so the upstream can refuse a replay.
 */
function private_key_jwt(idp: Provider, client_id: string): client.ClientAuth {
  const auth = async (as: client.ServerMetadata, _client: client.ClientMetadata, body: URLSearchParams) => {
    const now = idp.now();
    const assertion = await idp.keys.sign({ iss: client_id, sub: client_id, aud: as.issuer, jti: random_token(32), iat: now, exp: now + ASSERTION_TTL_SECONDS }, { typ: "JWT" });
    body.set("client_id", client_id);
    body.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    body.set("client_assertion", assertion);
  };
  // openid-client declares ClientAuth synchronous; oauth4webapi, which calls it, awaits it.
  return auth as unknown as client.ClientAuth;
}

function client_auth(idp: Provider, upstream: UpstreamRow): client.ClientAuth {
  if (upstream.token_endpoint_auth_method === "private_key_jwt") return private_key_jwt(idp, upstream.client_id);
  if (upstream.client_secret_enc === null) return client.None();
  return client.ClientSecretPost(open_secret(idp.config.federation.secret_key, upstream.name, upstream.client_secret_enc));
}

/** The upstream's configuration: its discovery document (oidc) or its declared endpoints (oauth2). */
export async function upstream_configuration(idp: Provider, upstream: UpstreamRow): Promise<client.Configuration> {
  let cache = configurations.get(idp);
  if (cache === undefined) configurations.set(idp, (cache = new Map()));
  const hit = cache.get(upstream.name);
  if (hit !== undefined && hit.updated_at === upstream.updated_at && idp.now() - hit.at < CONFIG_TTL_SECONDS) return hit.config;
  const insecure = idp.config.outbound.allow_http;
  const fetcher = upstream_fetch(idp, upstream.name);
  let config: client.Configuration;
  try {
    if (upstream.kind === "oidc") {
      config = await client.discovery(new URL(upstream.issuer!), upstream.client_id, undefined, client_auth(idp, upstream), {
        [client.customFetch]: fetcher,
        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
      });
      // OIDC Core §3.1.3.7 lets a client skip the ID Token's signature when it came over TLS from
      // the token endpoint, and openid-client does; we check it anyway (the JWKS through the same
      // fence): http upstreams are allowed on intranets, and a TLS-terminating middlebox is not
      // the upstream.
      client.enableNonRepudiationChecks(config);
    } else {
      const issuer = upstream.issuer ?? new URL(upstream.authorization_endpoint!).origin;
      config = new client.Configuration(
        {
          issuer,
          authorization_endpoint: upstream.authorization_endpoint!,
          token_endpoint: upstream.token_endpoint!,
          ...(upstream.userinfo_endpoint === null ? {} : { userinfo_endpoint: upstream.userinfo_endpoint }),
        },
        upstream.client_id,
        undefined,
        client_auth(idp, upstream),
      );
      config[client.customFetch] = fetcher;
      if (insecure) client.allowInsecureRequests(config);
    }
  } catch (error) {
    throw new UpstreamUnavailable(error instanceof OutboundError ? `discovery: ${error.reason}` : `discovery: ${error instanceof Error ? error.message : "error"}`);
  }
  cache.set(upstream.name, { at: idp.now(), updated_at: upstream.updated_at, config });
  return config;
}

function unavailable(upstream: UpstreamRow): PageError {
  return new PageError(
    `${upstream.display_name} is not available`,
    `Signing in with ${upstream.display_name} does not work right now: it did not answer, or answered something we could not use. Try again later, or sign in another way.`,
    "temporarily_unavailable",
  );
}

/**
 * Counts one start of an upstream sign-in from address `ip` (`rate_limits.federation_start_per_ip`
 * per window, any upstream): each start stores a pending state row and sends the browser away, so
 * a flood from one address is refused (Throttled: 429, Retry-After) before anything is stored.
 */
export async function count_upstream_start(idp: Provider, ip: string): Promise<void> {
  const rules = idp.config.rate_limits;
  if (!rules.enabled || rules.federation_start_per_ip === 0) return;
  const now = idp.now();
  const state = await idp.store.hit(`rl:fedstart:a:${sha256(ip)}`, rules.window_seconds, now);
  if (state.count > rules.federation_start_per_ip) {
    // Audited once per window (the first refusal): a flood must not become one audit row per request.
    if (state.count === rules.federation_start_per_ip + 1) await record_event(idp, { type: "federation_login", outcome: "failure", ip, details: { reason: "rate limited" } });
    throw new Throttled("Too many sign-ins were started from your network. Wait a minute and try again.", state.reset_at - now);
  }
}

export async function enabled_upstream(idp: Provider, name: string): Promise<UpstreamRow> {
  const upstream = await idp.store.get_upstream(name);
  if (upstream === null || !upstream.enabled) throw new PageError("Unknown sign-in method", "This way of signing in is not configured here.", "invalid_request", true);
  return upstream;
}

/** The URL of the upstream's authorization endpoint for this browser (`binding`: its interaction cookie). */
export async function begin_upstream(
  idp: Provider,
  upstream: UpstreamRow,
  context: { interaction_id: string | null; binding: string; link_user_id: string | null; ip: string },
): Promise<string> {
  let config: client.Configuration;
  try {
    config = await upstream_configuration(idp, upstream);
  } catch (error) {
    await record_event(idp, { type: "federation_login", outcome: "failure", ip: context.ip, details: { upstream: upstream.name, reason: (error as Error).message } });
    throw unavailable(upstream);
  }
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = upstream.kind === "oidc" ? client.randomNonce() : null;
  const data: StateData = { verifier, nonce, interaction_id: context.interaction_id, binding_hash: sha256(context.binding), link_user_id: context.link_user_id };
  await idp.store.create_upstream_state({
    state_hash: sha256(state),
    upstream: upstream.name,
    data: data as unknown as JsonObject,
    expires_at: idp.now() + idp.config.federation.state_ttl_seconds,
  });
  const params: Record<string, string> = {
    redirect_uri: redirect_uri(idp.config, upstream.name),
    response_type: "code",
    scope: upstream.scopes.join(" "),
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  };
  if (nonce !== null) params.nonce = nonce;
  return client.buildAuthorizationUrl(config, params).href;
}

export type UpstreamProfile = {
  subject: string;
  name: string | null;
  email: string | null;
  email_verified: boolean;
  picture: string | null;
  preferred_username: string | null;
  groups: string[];
};

function mapped(claims: Record<string, unknown>, mapping: Record<string, string>): UpstreamProfile {
  const pick = (local: string): unknown => claims[mapping[local] ?? DEFAULT_CLAIM_MAPPING[local]!];
  const text = (local: string): string | null => {
    const value = pick(local);
    return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : null;
  };
  const groups = pick("groups");
  return {
    subject: text("subject") ?? "",
    name: text("name"),
    email: text("email"),
    // Only an explicit true counts (OIDC Core §5.1: email_verified is a boolean).
    email_verified: pick("email_verified") === true,
    picture: text("picture"),
    preferred_username: text("preferred_username"),
    groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === "string") : [],
  };
}

export type UpstreamOutcome = {
  upstream: UpstreamRow;
  user: UserRow;
  interaction_id: string | null;
  /** "linked": a signed-in user linked this upstream from the account page; no new session. */
  kind: "signed_in" | "linked";
  amr: string[];
  /** The upstream asserted a multi-factor sign-in and the operator trusts it (upstream_methods). */
  upstream_mfa: boolean;
  /** The upstream ID Token's `acr`, as it said it (recorded in the audit log). */
  upstream_acr: string | null;
};

function refused(title: string, message: string): PageError {
  return new PageError(title, message, "access_denied");
}

/**
 * The callback: `query` is the upstream's answer, `binding` this browser's interaction cookie.
 * PageError for anything refused; every refusal and failure is audited.
 */
export async function complete_upstream(idp: Provider, name: string, query: URLSearchParams, binding: string | null, ip: string): Promise<UpstreamOutcome> {
  // The reason is the library's message, capped: it names the check that failed, never a token.
  const audit_failure = (reason: string, extra: JsonObject = {}) =>
    record_event(idp, { type: "federation_login", outcome: "failure", ip, details: { upstream: name, reason: reason.slice(0, 300), ...extra } });
  const state = query.get("state");
  const row = state === null ? null : await idp.store.take_upstream_state(sha256(state), idp.now());
  if (state === null || row === null || row.upstream !== name) {
    await audit_failure("unknown or expired state");
    throw refused("This sign-in cannot be completed", "The answer of the other sign-in service does not belong to a sign-in started here, or it took too long. Start again.");
  }
  const data = row.data as unknown as StateData;
  if (binding === null || !constant_time_equal(sha256(binding), data.binding_hash)) {
    await audit_failure("state of another browser");
    throw refused("This sign-in was started in another browser", "For your security, a sign-in can only be completed in the browser where it started. Start again here.");
  }
  const upstream = await enabled_upstream(idp, name);
  let config: client.Configuration;
  try {
    config = await upstream_configuration(idp, upstream);
  } catch (error) {
    await audit_failure((error as Error).message);
    throw unavailable(upstream);
  }
  const current = new URL(redirect_uri(idp.config, name));
  for (const [key, value] of query) current.searchParams.append(key, value);

  let claims: Record<string, unknown>;
  let upstream_amr: unknown = undefined;
  let upstream_acr: string | null = null;
  try {
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: data.verifier,
      expectedState: state,
      ...(data.nonce === null ? {} : { expectedNonce: data.nonce }),
      idTokenExpected: upstream.kind === "oidc",
    });
    if (upstream.kind === "oidc") {
      const id_claims = tokens.claims()!;
      claims = { ...id_claims };
      upstream_amr = id_claims.amr;
      if (typeof id_claims.acr === "string") upstream_acr = id_claims.acr.slice(0, 255);
      if (config.serverMetadata().userinfo_endpoint !== undefined) {
        // OIDC Core §5.3.2: userinfo's sub must be the ID Token's (openid-client checks it).
        const userinfo = await client.fetchUserInfo(config, tokens.access_token, id_claims.sub);
        claims = { ...userinfo, ...id_claims };
      }
    } else {
      const response = await client.fetchProtectedResource(config, tokens.access_token, new URL(upstream.userinfo_endpoint!), "GET", undefined, new Headers({ accept: "application/json" }));
      claims = (await response.json()) as Record<string, unknown>;
      if (typeof claims !== "object" || claims === null || Array.isArray(claims)) throw new Error("the user endpoint did not answer a JSON object");
      if (upstream.emails_endpoint !== null) claims = { ...claims, ...(await primary_email(config, tokens.access_token, upstream.emails_endpoint)) };
    }
  } catch (error) {
    if (error instanceof client.AuthorizationResponseError) {
      await audit_failure(`upstream answered ${error.error}`);
      if (error.error === "access_denied") throw refused(`Sign-in with ${upstream.display_name} was cancelled`, `${upstream.display_name} did not sign you in. Start again, or sign in another way.`);
      throw unavailable(upstream);
    }
    const cause = (error as { cause?: unknown }).cause;
    if (error instanceof OutboundError || cause instanceof OutboundError) {
      await audit_failure(`unreachable: ${(error instanceof OutboundError ? error : (cause as OutboundError)).reason}`);
      throw unavailable(upstream);
    }
    // A mismatched state, nonce, issuer or audience, a bad signature: refused, never retried.
    await audit_failure(`refused: ${error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : "error"}`);
    throw refused(`Sign-in with ${upstream.display_name} failed`, `The answer from ${upstream.display_name} could not be verified. Start again; if this keeps happening, tell the administrator.`);
  }
  const profile = mapped(claims, upstream.claim_mapping as Record<string, string>);
  if (profile.subject === "") {
    await audit_failure("no subject in the upstream's answer");
    throw unavailable(upstream);
  }
  const local = await local_account(idp, upstream, profile, data, ip);
  const methods = upstream_methods(upstream, upstream_amr, upstream_acr);
  // The upstream's own words about its sign-in, as it said them (its acr is its vocabulary).
  await record_event(idp, {
    type: "federation_login",
    outcome: "success",
    user_id: local.user.id,
    ip,
    details: {
      upstream: name,
      upstream_amr: Array.isArray(upstream_amr) ? upstream_amr.filter((m): m is string => typeof m === "string").slice(0, 10) : null,
      upstream_acr,
      upstream_mfa: methods.mfa,
    },
  });
  return { ...local, amr: methods.amr, upstream_mfa: methods.mfa, upstream_acr, upstream, interaction_id: data.interaction_id };
}

/**
 * A GitHub-style address list ([{email, primary, verified}]): the primary address and whether it
 * is verified, as `email` and `email_verified` (replacing what the user endpoint said).
 */
async function primary_email(config: client.Configuration, access_token: string, endpoint: string): Promise<Record<string, unknown>> {
  const response = await client.fetchProtectedResource(config, access_token, new URL(endpoint), "GET", undefined, new Headers({ accept: "application/json" }));
  const list = (await response.json()) as unknown;
  if (!Array.isArray(list)) throw new Error("the e-mail endpoint did not answer a JSON array");
  const primary = list.find((entry): entry is { email: string; verified?: unknown } => typeof entry === "object" && entry !== null && entry.primary === true && typeof entry.email === "string");
  return primary === undefined ? { email: null, email_verified: false } : { email: primary.email, email_verified: primary.verified === true };
}

async function local_account(
  idp: Provider,
  upstream: UpstreamRow,
  profile: UpstreamProfile,
  data: StateData,
  ip: string,
): Promise<{ user: UserRow; kind: "signed_in" | "linked"; amr: string[] }> {
  const amr = [AMR_FEDERATED];
  const identity = await idp.store.get_identity(upstream.name, profile.subject);
  const details = (how: string): JsonObject => ({ upstream: upstream.name, how });

  // Linking from the account page: the signed-in user proved the local account already.
  if (data.link_user_id !== null) {
    const user = await idp.store.get_user_by_id(data.link_user_id);
    if (user === null) throw refused("Account not found", "Sign in again and retry.");
    if (identity !== null && identity.user_id !== user.id) {
      await record_event(idp, { type: "federation_link", outcome: "failure", user_id: user.id, ip, details: { ...details("manual"), reason: "linked to another account" } });
      throw refused("Already linked", `This ${upstream.display_name} account is already linked to another account here.`);
    }
    if (identity === null) {
      await idp.store.link_identity({ upstream: upstream.name, subject: profile.subject, user_id: user.id, email: profile.email });
      await send_link_notice(idp, user, upstream, profile.email);
    }
    await record_event(idp, { type: "federation_link", outcome: "success", user_id: user.id, ip, details: details("manual") });
    return { user, kind: "linked", amr };
  }

  if (identity !== null) {
    const user = await idp.store.get_user_by_id(identity.user_id);
    if (user === null) throw refused("Account not found", "The account linked to this sign-in no longer exists.");
    await idp.store.touch_identity(upstream.name, profile.subject, idp.now());
    await map_groups(idp, upstream, user, profile, ip);
    return { user, kind: "signed_in", amr };
  }

  // First sign-in with this upstream account. The address in its stored spelling (addresses.ts).
  const email = profile.email === null ? null : stored_address(profile.email);
  const same_email = email === null ? [] : await users_with_address(idp, email);
  if (same_email.length > 0) {
    // Automatic linking only on an operator's opt-in, one candidate, an address verified at the
    // upstream (OIDC Core §5.1 email_verified) AND here, and an active account: else whoever
    // controls an upstream account with an unverified address would take the local one, and an
    // account holding an address it never proved (sign-up without verification, an
    // administrator's edit) would receive its owner's upstream identity.
    const user = same_email.length === 1 ? same_email[0]! : null;
    const proven = user !== null && profile.email_verified && user.email_verified === true && user.status === "active";
    if (upstream.auto_link && proven) {
      await idp.store.link_identity({ upstream: upstream.name, subject: profile.subject, user_id: user.id, email });
      await record_event(idp, { type: "federation_link", outcome: "success", user_id: user.id, ip, details: details("auto_verified_email") });
      await send_link_notice(idp, user, upstream, email);
      await map_groups(idp, upstream, user, profile, ip);
      return { user, kind: "signed_in", amr };
    }
    await record_event(idp, {
      type: "federation_link",
      outcome: "failure",
      ip,
      details: {
        ...details("auto_verified_email"),
        reason: !upstream.auto_link
          ? "auto-link disabled"
          : user === null
            ? "several accounts"
            : !profile.email_verified
              ? "e-mail not verified upstream"
              : user.status !== "active"
                ? `local account ${user.status}`
                : "e-mail not verified here",
      },
    });
    throw refused(
      "Link your account first",
      `An account here already uses this e-mail address. Sign in with its password or passkey, then link ${upstream.display_name} on your account page.`,
    );
  }
  if (upstream.policy !== "jit") {
    await record_event(idp, { type: "federation_login", outcome: "failure", ip, details: { upstream: upstream.name, reason: "no linked account (policy link)" } });
    throw refused("No linked account", `No account here is linked to this ${upstream.display_name} account. Sign in another way, then link ${upstream.display_name} on your account page.`);
  }
  const user = await idp.store.create_user({
    username: await free_username(idp, upstream, profile),
    // No local password (the shared convention): password sign-in always fails.
    password_hash: "",
    name: profile.name,
    // Only an address the upstream verified is kept: an unverified one would block its owner's
    // sign-up and let a later "forgot password" by its owner set a password on this account.
    email: profile.email_verified ? email : null,
    email_verified: profile.email_verified && email !== null,
    picture: profile.picture,
  });
  await idp.store.link_identity({ upstream: upstream.name, subject: profile.subject, user_id: user.id, email: profile.email_verified ? email : null });
  await record_event(idp, { type: "federation_account_created", outcome: "success", user_id: user.id, ip, details: details("jit") });
  await map_groups(idp, upstream, user, profile, ip);
  return { user, kind: "signed_in", amr };
}

/** The address in its stored spelling (addresses.ts: domain as lower-case U-labels); as given when it does not parse. */
function stored_address(email: string): string {
  const parsed = parse_address(email);
  return "problem" in parsed ? email : parsed.email;
}

/**
 * The accounts holding `email` by address_key (case-insensitive, the domain as A-labels):
 * find_users_by_email folds ASCII case only, so both spellings of an IDN domain are looked up.
 */
async function users_with_address(idp: Provider, email: string): Promise<UserRow[]> {
  if (email.lastIndexOf("@") <= 0) return [];
  const key = address_key(email);
  const at = email.lastIndexOf("@");
  const spellings = new Set([email, `${email.slice(0, at)}@${key.slice(key.lastIndexOf("@") + 1)}`]);
  const found = new Map<string, UserRow>();
  for (const spelling of spellings) {
    for (const user of await idp.store.find_users_by_email(spelling)) if (user.email !== null && address_key(user.email) === key) found.set(user.id, user);
  }
  return [...found.values()];
}

/** A username derived from the upstream's, free here. */
async function free_username(idp: Provider, upstream: UpstreamRow, profile: UpstreamProfile): Promise<string> {
  const wanted = profile.preferred_username ?? profile.email?.split("@")[0] ?? `${upstream.name}-${profile.subject}`;
  const base = wanted.normalize("NFKC").replace(/[^\p{L}\p{N}._-]/gu, "").slice(0, 40) || `${upstream.name}-user`;
  for (let i = 0; i < 5; i++) {
    const candidate = i === 0 ? base : `${base}-${i + 1}`;
    if ((await idp.store.get_user_by_username(candidate)) === null) return candidate;
  }
  return `${base}-${random_token(6).slice(0, 8).toLowerCase()}`;
}

/**
 * The upstream's groups into local groups through the operator's mapping only (`group_map`): a
 * group name the upstream asserts is the upstream's vocabulary (anyone may create a gitlab.com
 * group named like a local one), so nothing unmapped counts. Mapped groups must exist here (an
 * upstream never creates one); the memberships this upstream's mapping added and it no longer
 * asserts are removed. Changes are audited.
 */
async function map_groups(idp: Provider, upstream: UpstreamRow, user: UserRow, profile: UpstreamProfile, ip: string): Promise<void> {
  const mapping = upstream.group_map;
  const group_ids: string[] = [];
  for (const upstream_group of new Set(profile.groups)) {
    const local = Object.hasOwn(mapping, upstream_group) ? mapping[upstream_group] : undefined;
    if (local === undefined) continue;
    const group = await idp.store.get_group_by_name(local);
    if (group !== null) group_ids.push(group.id);
  }
  const changed = await idp.store.sync_upstream_group_members(upstream.name, user.id, group_ids, idp.now());
  for (const name of changed.added) await record_event(idp, { type: "group_member_added", outcome: "success", user_id: user.id, ip, details: { group: name, upstream: upstream.name } });
  for (const name of changed.removed) await record_event(idp, { type: "group_member_removed", outcome: "success", user_id: user.id, ip, details: { group: name, upstream: upstream.name } });
}
