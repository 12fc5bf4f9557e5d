/**
 * The decisions of the authorization code flow (OIDC Core §3.1.2): after /authorize, after login
 * and after consent, what happens next — the login page, the consent page, or the redirect back
 * to the client with a code or an error.
 */
import { random_id, random_token, sha256 } from "./crypto/secrets.ts";
import type { OAuthErrorCode } from "./errors.ts";
import type { Authentication, AuthorizationRequest } from "./interactions.ts";
import type { Provider } from "./provider.ts";
import { covers } from "./scopes.ts";
import type { ClientRow } from "./store/types.ts";

export type Step =
  | { kind: "login" }
  | { kind: "consent" }
  /** Back to the client (code or error): the URL to redirect to. */
  | { kind: "redirect"; url: string };

/**
 * Appends response parameters to the redirect URI, keeping its own query (RFC 6749 §3.1.2:
 * "MUST retain the query component"). RFC 9207 §2: every response carries `iss`.
 */
export function client_redirect(idp: Provider, request: Pick<AuthorizationRequest, "redirect_uri" | "state">, values: Record<string, string>): string {
  const params = new URLSearchParams(values);
  if (request.state !== null) params.set("state", request.state);
  params.set("iss", idp.config.issuer);
  const uri = request.redirect_uri;
  const hash = uri.indexOf("#");
  const base = hash === -1 ? uri : uri.slice(0, hash);
  return `${base}${base.includes("?") ? "&" : "?"}${params.toString()}`;
}

/** RFC 6749 §4.1.2.1: error_description is limited to %x20-21 / %x23-5B / %x5D-7E. */
export function description_chars(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, " ");
}

export function error_redirect(
  idp: Provider,
  request: Pick<AuthorizationRequest, "redirect_uri" | "state">,
  error: OAuthErrorCode,
  description: string,
): string {
  return client_redirect(idp, request, { error, error_description: description_chars(description) });
}

/** Does the user still have to approve these scopes for this client? */
export async function needs_consent(idp: Provider, client: ClientRow, user_id: string, request: AuthorizationRequest): Promise<boolean> {
  if (request.prompt.includes("consent")) return true;
  if (client.metadata.skip_consent === true) return false;
  const grant = await idp.store.getGrant(user_id, client.client_id);
  return grant === null || !covers(grant.scopes, request.scopes);
}

/** OIDC Core §3.1.2.1 prompt and max_age: must the user authenticate (again)? */
export function needs_login(idp: Provider, request: AuthorizationRequest, authentication: Authentication | null): boolean {
  if (authentication === null) return true;
  if (request.prompt.includes("login") || request.prompt.includes("select_account")) return true;
  return request.max_age !== null && idp.now() - authentication.auth_time > request.max_age;
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
  const none = request.prompt.includes("none");
  if (authentication === null || (!done.login && needs_login(idp, request, authentication))) {
    // OIDC Core §3.1.2.1: prompt=none must not display any UI.
    if (none) return { kind: "redirect", url: error_redirect(idp, request, "login_required", "the user is not signed in") };
    return { kind: "login" };
  }
  if (!done.consent && (await needs_consent(idp, client, authentication.user_id, request))) {
    if (none) return { kind: "redirect", url: error_redirect(idp, request, "consent_required", "the user has not approved this client") };
    return { kind: "consent" };
  }
  const code = await issue_code(idp, request, authentication);
  return { kind: "redirect", url: client_redirect(idp, request, { code }) };
}

/**
 * Issues an authorization code: 256 bits of randomness, stored as its SHA-256, single use, short
 * lived (RFC 6749 §4.1.2: "a maximum authorization code lifetime of 10 minutes is RECOMMENDED").
 * Every token issued from it carries its grant_id, so a replay can revoke them (RFC 6749 §4.1.2).
 */
export async function issue_code(idp: Provider, request: AuthorizationRequest, authentication: Authentication): Promise<string> {
  const code = random_token(32);
  const now = idp.now();
  await idp.store.insertCode({
    code_hash: sha256(code),
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
    grant_id: random_id(),
    created_at: now,
    expires_at: now + idp.config.tokens.code_ttl,
  });
  // OIDC Back-Channel Logout §2.3: remember that this client signed in through the session.
  await idp.store.addSessionClient(authentication.session_id_hash, request.client_id, now);
  return code;
}
