/**
 * Sign-in through an upstream identity provider, as a relying party built on openid-client
 * (panva), whose every request goes through our SSRF fence (outbound/fetch.ts, `customFetch`):
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
import { constant_time_equal, sha256 } from "../crypto/secrets.ts";
import { PageError, Throttled } from "../errors.ts";
import { count, COUNTERS, counting } from "../limits/counters.ts";
import { OutboundError } from "../outbound/fetch.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, UpstreamRow, UserRow } from "../../store/types.ts";
import { local_account, refused } from "./local_account.ts";
import { mapped_profile, upstream_methods } from "./profile.ts";
import { primary_email, upstream_configuration } from "./relying_party.ts";
import { redirect_uri } from "./upstreams.ts";

type StateData = {
  verifier: string;
  nonce: string | null;
  interaction_id: string | null;
  binding_hash: string;
  /** Set when a signed-in user links this upstream from the account page. */
  link_user_id: string | null;
};

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
  if (!counting(idp.config, COUNTERS.federation_starts_per_ip)) return;
  const now = idp.now();
  const state = await count(idp, COUNTERS.federation_starts_per_ip, { ip }, now);
  if (state.over) {
    // Audited once per window (the first refusal): a flood must not become one audit row per request.
    if (state.count === state.limit + 1) await record_event(idp, { type: "federation_login", outcome: "failure", ip, details: { reason: "rate limited" } });
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
  let upstream_amr: unknown;
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
      const response = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(upstream.userinfo_endpoint!),
        "GET",
        undefined,
        new Headers({ accept: "application/json" }),
      );
      claims = (await response.json()) as Record<string, unknown>;
      if (typeof claims !== "object" || claims === null || Array.isArray(claims)) throw new Error("the user endpoint did not answer a JSON object");
      if (upstream.emails_endpoint !== null) claims = { ...claims, ...(await primary_email(config, tokens.access_token, upstream.emails_endpoint)) };
    }
  } catch (error) {
    if (error instanceof client.AuthorizationResponseError) {
      await audit_failure(`upstream answered ${error.error}`);
      if (error.error === "access_denied")
        throw refused(`Sign-in with ${upstream.display_name} was cancelled`, `${upstream.display_name} did not sign you in. Start again, or sign in another way.`);
      throw unavailable(upstream);
    }
    const cause = (error as { cause?: unknown }).cause;
    if (error instanceof OutboundError || cause instanceof OutboundError) {
      await audit_failure(`unreachable: ${(error instanceof OutboundError ? error : (cause as OutboundError)).reason}`);
      throw unavailable(upstream);
    }
    // A mismatched state, nonce, issuer or audience, a bad signature: refused, never retried.
    await audit_failure(`refused: ${error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : "error"}`);
    throw refused(
      `Sign-in with ${upstream.display_name} failed`,
      `The answer from ${upstream.display_name} could not be verified. Start again; if this keeps happening, tell the administrator.`,
    );
  }
  const profile = mapped_profile(claims, upstream.claim_mapping as Record<string, string>);
  if (profile.subject === "") {
    await audit_failure("no subject in the upstream's answer");
    throw unavailable(upstream);
  }
  const local = await local_account(idp, upstream, profile, data.link_user_id, ip);
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
