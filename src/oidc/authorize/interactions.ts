/**
 * Interactions: an authorization request waiting for the user (login, consent) between
 * /authorize and the redirect back to the client.
 *
 * Binding: the `idp_interaction` cookie holds a per-browser random value; each interaction stores
 * its SHA-256, so an interaction id that leaks (history, logs, a shared link) cannot be completed
 * from another browser. CSRF: every form carries HMAC-SHA256(binding value, "csrf:" + id); it is
 * tied to this browser AND this interaction, so a token copied from the attacker's own
 * interaction is foreign here. Checked in constant time.
 */
import { cookie_options, interaction_cookie_name, read_cookie, type CookieReader, type CookieToSet } from "../browser/cookies.ts";
import { constant_time_equal, random_token, sha256 } from "../crypto/secrets.ts";
import { check_form_token, form_token } from "../browser/form_tokens.ts";
import { PageError, Throttled } from "../errors.ts";
import { count, COUNTERS, counting } from "../limits/counters.ts";
import type { Provider } from "../provider.ts";
import type { ClaimsRequest } from "../claims/request.ts";
import type { JsonObject } from "../../store/types.ts";

/**
 * How the response goes back to the client (OAuth 2.0 Multiple Response Types §2.1, Form Post
 * Response Mode; JARM's *.jwt modes, jwt_responses.ts). `fragment` is only the delivery of
 * fragment.jwt: a plain fragment response is not accepted for the code flow.
 */
export type ResponseMode = "query" | "form_post" | "fragment" | "jwt" | "query.jwt" | "fragment.jwt" | "form_post.jwt";

/** A validated authorization request (OIDC Core §3.1.2.1), as the interaction keeps it. */
export type AuthorizationRequest = {
  client_id: string;
  redirect_uri: string;
  response_mode: ResponseMode;
  scopes: string[];
  state: string | null;
  nonce: string | null;
  code_challenge: string | null;
  code_challenge_method: "S256" | null;
  prompt: string[];
  /** The request's max_age, else the client's default_max_age (OIDC Registration §2); null: none. */
  max_age: number | null;
  /** The user the client expects: the sub of a verified id_token_hint, or claims.id_token.sub.value. */
  expected_sub: string | null;
  /** OIDC Core §3.1.2.1 login_hint: pre-fills the username. */
  login_hint: string | null;
  /** OIDC Core §3.1.2.1 ui_locales: the page languages the client asked for, in preference order (ui/catalogs.ts chooses). */
  ui_locales: string[];
  /** OIDC Core §5.5: the claims request, normalized (claims/request.ts). */
  claims: ClaimsRequest | null;
  /** OIDC Core §3.1.2.1 acr_values, in preference order (see `needs_step_up`). */
  acr_values: string[];
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is to be bound to; null: unbound. */
  dpop_jkt: string | null;
  /**
   * RFC 8628 §3.3: set when the interaction approves a device authorization (device.ts) rather
   * than answering a redirect URI: the authorization, and its user code as shown to the user.
   */
  device: { device_code_hash: string; user_code: string } | null;
  /** RFC 8707 §2: the registered resources the client asked tokens for (resources.ts); empty: none. */
  resources: string[];
};

/** Fields added after the first release: interactions stored before them read as "not sent". */
const REQUEST_DEFAULTS: Omit<
  AuthorizationRequest,
  "client_id" | "redirect_uri" | "scopes" | "state" | "nonce" | "code_challenge" | "code_challenge_method" | "prompt" | "max_age"
> = {
  response_mode: "query",
  expected_sub: null,
  login_hint: null,
  ui_locales: [],
  claims: null,
  acr_values: [],
  dpop_jkt: null,
  device: null,
  resources: [],
};

/** Who authenticated in this interaction (or which session was reused). */
export type Authentication = {
  user_id: string;
  session_id_hash: string;
  auth_time: number;
  amr: string[];
};

export type Interaction = {
  id: string;
  request: AuthorizationRequest;
  authentication: Authentication | null;
  /** The form token of this interaction in this browser. */
  csrf: string;
};

/**
 * Counts one request that may start an interaction (/authorize, a code entered at /device) from
 * address `ip`: `rate_limits.authorize_per_ip` per window (counters.ts `interactions_per_ip`).
 * Nobody is authenticated yet, and each interaction is a row until it completes or is purged, so
 * a flood from one address would fill the store. Called before the request is read any further
 * (no pushed request consumed, no session touched, no interaction created): a refused request
 * costs one counter write, and gets Throttled (429 page, Retry-After). Requests that end up
 * storing nothing (a signed-in user answered at once, an error) count too: they are not known
 * until the work the limit saves is done.
 */
export async function count_interaction_start(idp: Provider, ip: string): Promise<void> {
  if (!counting(idp.config, COUNTERS.interactions_per_ip)) return;
  const now = idp.now();
  const state = await count(idp, COUNTERS.interactions_per_ip, { ip }, now);
  if (state.over) throw new Throttled("Too many sign-in requests came from your network. Wait a minute and try again.", state.reset_at - now);
}

/** Stores a new interaction bound to this browser; returns its id and the binding cookie. */
export async function begin_interaction(
  idp: Provider,
  request: AuthorizationRequest,
  authentication: Authentication | null,
  cookies: CookieReader,
): Promise<{ id: string; cookie: CookieToSet }> {
  // Several tabs may sign in at once: keep the browser's binding value when it has one.
  const binding = read_cookie(cookies, interaction_cookie_name(idp)) ?? random_token(32);
  const id = random_token(32);
  const now = idp.now();
  const ttl = idp.config.tokens.interaction_ttl;
  await idp.store.create_interaction({
    id,
    params: { request, binding_hash: sha256(binding) } as unknown as JsonObject,
    result: authentication as unknown as JsonObject | null,
    session_id_hash: authentication?.session_id_hash ?? null,
    created_at: now,
    expires_at: now + ttl,
  });
  return { id, cookie: { name: interaction_cookie_name(idp), value: binding, options: cookie_options(idp, ttl) } };
}

/** The page of an interaction step, below the issuer. */
export function interaction_url(idp: Provider, id: string, step: "login" | "consent"): string {
  return `${idp.config.issuer}/interaction/${encodeURIComponent(id)}/${step}`;
}

export function expired_interaction(): PageError {
  return new PageError("This sign-in request has expired", "The sign-in took too long or was already completed. Go back to the application and start again.", "invalid_request");
}

/**
 * Loads an interaction for the browser that started it; a PageError otherwise. Null for the
 * account page's own sign-in (signin/second_factor.ts): it has no authorization request, and
 * its pages are /account/login and the two-factor page.
 */
export async function load_interaction(idp: Provider, id: string, cookies: CookieReader): Promise<Interaction | null> {
  const row = await idp.store.get_interaction(id);
  if (row === null || row.expires_at <= idp.now()) throw expired_interaction();
  const params = row.params as unknown as { request?: AuthorizationRequest; binding_hash: string };
  const binding = read_cookie(cookies, interaction_cookie_name(idp));
  if (binding === null || !constant_time_equal(sha256(binding), params.binding_hash)) {
    throw new PageError(
      "This sign-in was started in another browser",
      "For your security, a sign-in can only be completed in the browser where it started. Go back to the application and start again here.",
      "access_denied",
    );
  }
  if (params.request === undefined) return null;
  return {
    id: row.id,
    request: { ...REQUEST_DEFAULTS, ...params.request },
    authentication: row.result as unknown as Authentication | null,
    csrf: csrf_token(binding, row.id),
  };
}

export function csrf_token(binding: string, id: string): string {
  return form_token(binding, "interaction", id);
}

/** Rejects a form whose CSRF token is missing or not this interaction's (403 page). */
export function check_csrf(interaction: Interaction, given: string | undefined): void {
  check_form_token(given, interaction.csrf, "The form was not sent from this sign-in page. Go back to the application and start again.");
}

export async function record_authentication(idp: Provider, id: string, authentication: Authentication): Promise<void> {
  await idp.store.update_interaction(id, { result: authentication as unknown as JsonObject, session_id_hash: authentication.session_id_hash });
}

/**
 * An interaction is single use: it ends when the browser is sent back to the client. Only the
 * caller that deletes it may go on (a double-submitted form gets the "expired" page).
 */
export async function end_interaction(idp: Provider, id: string): Promise<void> {
  if (!(await idp.store.delete_interaction(id))) throw expired_interaction();
}
