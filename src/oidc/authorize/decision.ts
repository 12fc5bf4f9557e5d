/**
 * The decisions of the authorization code flow (OIDC Core §3.1.2): after /authorize, after login
 * and after consent, what happens next — the login page, the consent page, or the response to
 * the client (a code or an error, by redirect or form post: http/authorization_response.ts delivers it).
 */
import { acr_claim, needs_second_factor } from "../signin/methods.ts";
import { approved_claims, claims_beyond_scopes } from "../claims/request.ts";
import { load_attribute_catalog } from "../attributes/claims.ts";
import { grant_id, ordered_secret, secret_key } from "../crypto/secrets.ts";
import { PageError, type OAuthErrorCode } from "../errors.ts";
import { code_ttl } from "../clients/fapi.ts";
import { ACCESS_DENIED_DESCRIPTION, check_group_access } from "../claims/groups.ts";
import type { Authentication, AuthorizationRequest, ResponseMode } from "./interactions.ts";
import { names_user } from "../claims/pairwise.ts";
import type { Provider } from "../provider.ts";
import { covers } from "../claims/scopes.ts";
import type { ClientRow, JsonObject } from "../../store/types.ts";

/** The pages an interaction can show. */
export type Page = "login" | "consent";

export type Step =
  | { kind: Page }
  /** Back to the client (code or error): deliver `response` with http/authorization_response.ts `respond()`, which honours response_mode. */
  | { kind: "redirect"; response: ClientResponse };

/** An authorization response (RFC 6749 §4.1.2, §4.1.2.1) and how it is delivered. */
export type ClientResponse = {
  /** The client the response is for (JARM §2.1: the aud of a JWT response). */
  client_id: string;
  redirect_uri: string;
  response_mode: ResponseMode;
  /** Every response parameter, state and iss included. */
  params: Record<string, string>;
};

type ResponseTarget = Pick<AuthorizationRequest, "redirect_uri" | "state" | "response_mode"> & ({ client_id: string } | { client: ClientRow });

/** The response parameters plus `state` (when sent) and `iss` (RFC 9207 §2: on every response). */
export function client_response(idp: Provider, request: ResponseTarget, values: Record<string, string>): ClientResponse {
  const params: Record<string, string> = { ...values };
  if (request.state !== null) params.state = request.state;
  params.iss = idp.config.issuer;
  const client_id = "client_id" in request ? request.client_id : request.client.client_id;
  return { client_id, redirect_uri: request.redirect_uri, response_mode: request.response_mode, params };
}

/** RFC 6749 §4.1.2.1: error_description is limited to %x20-21 / %x23-5B / %x5D-7E. */
export function description_chars(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, " ");
}

export function error_response(idp: Provider, request: ResponseTarget, error: OAuthErrorCode, description: string): ClientResponse {
  return client_response(idp, request, { error, error_description: description_chars(description) });
}

/**
 * response_mode=query: the parameters appended to the redirect URI, keeping its own query
 * (RFC 6749 §3.1.2: "MUST retain the query component").
 */
export function query_url(response: ClientResponse): string {
  const uri = response.redirect_uri;
  const hash = uri.indexOf("#");
  const base = hash === -1 ? uri : uri.slice(0, hash);
  let query = "";
  for (const name in response.params) query += `${query === "" ? "" : "&"}${form_component(name)}=${form_component(response.params[name]!)}`;
  // Fragment encoding (OAuth 2.0 Multiple Response Types §2.1): JARM's fragment.jwt.
  if (response.response_mode === "fragment") return `${base}#${query}`;
  return `${base}${base.includes("?") ? "&" : "?"}${query}`;
}

/** What application/x-www-form-urlencoded leaves as it is (URL Standard §5.2): a code or state usually. */
const FORM_SAFE = /^[A-Za-z0-9*._-]*$/;
/** One name or value encoded exactly as URLSearchParams does (without building one for the usual values). */
function form_component(value: string): string {
  if (FORM_SAFE.test(value)) return value;
  return new URLSearchParams([["", value]]).toString().slice(1);
}

/** Requested claims (OIDC Core §5.5) that neither a granted scope nor an earlier consent covers. */
async function unapproved_claims(idp: Provider, request: AuthorizationRequest, grant: { scopes: string[]; claims: JsonObject | null }): Promise<string[]> {
  // No claims request (the usual case): nothing beyond the scopes, without building two Sets.
  if (request.claims === null) return [];
  const approved = new Set(approved_claims(grant.claims));
  const catalog = await load_attribute_catalog(idp.store);
  return claims_beyond_scopes(request.claims, grant.scopes, catalog.claim_scopes).filter((claim) => !approved.has(claim));
}

/** Does the user still have to approve these scopes (and requested claims) for this client? */
async function needs_consent(idp: Provider, client: ClientRow, user_id: string, request: AuthorizationRequest): Promise<boolean> {
  if (request.prompt.includes("consent")) return true;
  if (client.metadata.skip_consent === true) return false;
  const grant = await idp.store.get_grant(user_id, client.client_id);
  return grant === null || !covers(grant.scopes, request.scopes) || (await unapproved_claims(idp, request, grant)).length > 0;
}

/** Remembers what the user allowed: the scopes, and the claims requested beyond them. */
export async function record_grant(idp: Provider, request: AuthorizationRequest, user_id: string): Promise<void> {
  const extra = request.claims === null ? [] : claims_beyond_scopes(request.claims, request.scopes, (await load_attribute_catalog(idp.store)).claim_scopes);
  let claims: JsonObject | undefined;
  if (extra.length > 0) {
    const grant = await idp.store.get_grant(user_id, request.client_id);
    claims = { approved: [...new Set([...approved_claims(grant?.claims), ...extra])] };
  }
  await idp.store.upsert_grant({ user_id, client_id: request.client_id, scopes: request.scopes, ...(claims ? { claims } : {}), now: idp.now() });
}

/**
 * acr_values (OIDC Core §3.1.2.1; signin/methods.ts): a request that accepts only two factors (`mfa`) makes
 * a session signed in with a password alone (amr without "otp") sign in again — the login page,
 * then the two-factor page; login_required with prompt=none.
 */
export function needs_step_up(request: AuthorizationRequest, authentication: Authentication): boolean {
  return needs_second_factor(request.acr_values, authentication.amr);
}

/** OIDC Core §3.1.2.1 prompt, max_age, id_token_hint: must the user authenticate (again)? */
function needs_login(idp: Provider, client: ClientRow, request: AuthorizationRequest, authentication: Authentication | null): boolean {
  if (authentication === null) return true;
  // select_account is treated as login: there is no account chooser, the sign-in page lets the
  // user pick the account (it is therefore not advertised in prompt_values_supported).
  if (request.prompt.includes("login") || request.prompt.includes("select_account")) return true;
  // max_age=0 always: times are whole seconds, so an elapsed 0 does not mean "just now".
  if (request.max_age !== null && (request.max_age === 0 || idp.now() - authentication.auth_time > request.max_age)) return true;
  // The hint names the user as this client knows them: the pairwise sub for a pairwise client (pairwise.ts).
  if (request.expected_sub !== null && !names_user(idp, client, request.expected_sub, authentication.user_id)) return true;
  return needs_step_up(request, authentication);
}

/** OIDC Core §3.1.2.6: what prompt=none answers instead of showing a page. */
function no_ui_error(page: Page): { error: OAuthErrorCode; description: string } {
  switch (page) {
    case "login":
      return { error: "login_required", description: "the user must sign in" };
    case "consent":
      return { error: "consent_required", description: "the user has not approved this client" };
    default:
      // Any page added later (a second factor, an account chooser) is interaction too.
      return { error: "interaction_required", description: "the user must interact with the sign-in service" };
  }
}

function back(response: ClientResponse): Step {
  return { kind: "redirect", response };
}

/**
 * The next step of an interaction. `done` says which steps the user has just completed in this
 * interaction (they are not asked again even with prompt=login / prompt=consent).
 */
export async function next_step(
  idp: Provider,
  client: ClientRow,
  request: AuthorizationRequest,
  authentication: Authentication | null,
  done: { login: boolean; consent: boolean },
): Promise<Step> {
  const show = (page: Page): Step => {
    // OIDC Core §3.1.2.1: prompt=none must not display any UI.
    if (!request.prompt.includes("none")) return { kind: page };
    const { error, description } = no_ui_error(page);
    return back(error_response(idp, request, error, description));
  };
  if (authentication === null || (!done.login && needs_login(idp, client, request, authentication))) return show("login");
  // id_token_hint (§3.1.2.1): signed in now as someone else than the client expects → an error.
  if (request.expected_sub !== null && !names_user(idp, client, request.expected_sub, authentication.user_id)) {
    return back(error_response(idp, request, "login_required", "the user signed in with another account than the one the client expected"));
  }
  // The client's access policy (groups.ts): checked once the user is known and before consent,
  // so nobody is asked to approve an application they may not use. OIDC Core §3.1.2.6:
  // access_denied to the verified redirect URI (as Keycloak and Authelia answer), also with prompt=none.
  const access = await check_group_access(idp, client, authentication.user_id, { stage: "authorize" });
  if (!access.allowed) {
    // A device has no redirect URI: it learns access_denied from its next poll (RFC 8628 §3.5).
    if (request.device !== null) {
      await idp.store.decide_device_authorization(request.device.device_code_hash, { status: "denied" }, idp.now());
      throw new PageError("Access denied", ACCESS_DENIED_DESCRIPTION, "access_denied");
    }
    return back(error_response(idp, request, "access_denied", ACCESS_DENIED_DESCRIPTION));
  }
  // RFC 8628 §5.4: a device approval is always confirmed by the user, code and client shown,
  // even when an earlier consent covers the scopes (the code may come from an attacker).
  if (request.device !== null) return { kind: "consent" };
  if (!done.consent && (await needs_consent(idp, client, authentication.user_id, request))) return show("consent");
  const code = await issue_code(idp, request, authentication, client);
  return back(client_response(idp, request, { code }));
}

/**
 * Issues an authorization code: 256 bits of randomness after its issue time, stored hashed under
 * a key in issue order (crypto/secrets.ts `ordered_secret`, `secret_key`), single use, short
 * lived (RFC 6749 §4.1.2: "a maximum authorization code lifetime of 10 minutes is RECOMMENDED").
 * Every token issued from it carries its grant_id, so a replay can revoke them (RFC 6749 §4.1.2).
 * The claims request travels with it to the ID Token and the access token (OIDC Core §5.5).
 */
export async function issue_code(idp: Provider, request: AuthorizationRequest, authentication: Authentication, client: ClientRow): Promise<string> {
  const code = ordered_secret();
  const now = idp.now();
  // FAPI 2.0 §5.3.2.1: a FAPI client's codes live at most 60 s (fapi.ts).
  const ttl = code_ttl(idp, client);
  // Both writes are started before either is awaited, so a group-committing store (SQLite) puts
  // them in one transaction: one commit, the costly part of a write, instead of two. OIDC Back-Channel Logout
  // §2.3: session_clients remembers that this client signed in through the session.
  await Promise.all([
    idp.store.insert_code({
      code_hash: secret_key(code),
      client_id: request.client_id,
      user_id: authentication.user_id,
      session_id_hash: authentication.session_id_hash,
      redirect_uri: request.redirect_uri,
      scope: request.scopes.join(" "),
      nonce: request.nonce,
      code_challenge: request.code_challenge,
      code_challenge_method: request.code_challenge_method,
      auth_time: authentication.auth_time,
      amr: authentication.amr,
      // OIDC Core §2: the acr reached, when the client asked for one (signin/methods.ts).
      acr: acr_claim(request.acr_values, authentication.amr),
      claims: request.claims as JsonObject | null,
      dpop_jkt: request.dpop_jkt,
      // RFC 8707 §2.2: the token request may narrow to any of these.
      resources: request.resources.length === 0 ? null : request.resources,
      grant_id: grant_id(),
      created_at: now,
      expires_at: now + ttl,
    }),
    idp.store.add_session_client(authentication.session_id_hash, request.client_id, now),
  ]);
  return code;
}

/** The username the sign-in page starts with: the client's login_hint (OIDC Core §3.1.2.1). */
export function login_prefill(request: AuthorizationRequest): string {
  return request.login_hint ?? "";
}
