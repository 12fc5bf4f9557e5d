/**
 * The "Do you want to sign out?" step (OIDC RP-Initiated Logout §2).
 *
 * When to ask: §2 says the OP "MUST ask the End-User this question if an id_token_hint was not
 * provided or if the supplied ID Token does not belong to the current OP session with the RP
 * and/or currently logged in End-User", and SHOULD ask otherwise. We ask in every MUST case and
 * waive the SHOULD only when the hint is an ID Token of this very session: same user (sub) AND
 * same session (sid). Such a request comes from an application the user signed in to in this
 * browser and just clicked "sign out" in; asking again would be a second click for nothing. A
 * stale hint (another user, an earlier session, or an ID Token without sid) always asks.
 *
 * The confirmation form carries only checked values (client_id, post_logout_redirect_uri,
 * state — never the ID Token with its personal claims); they are checked again on POST. Its
 * CSRF token is HMAC-SHA256 keyed with the browser's session cookie over those values: it only
 * works in the browser that holds this session, and only for these values. Compared in constant
 * time.
 */
import { display_name } from "../clients/metadata.ts";
import { read_cookie, session_cookie_name, type CookieReader } from "../browser/cookies.ts";
import { constant_time_equal } from "../crypto/secrets.ts";
import { check_form_token, expired_form, form_token } from "../browser/form_tokens.ts";
import type { PageError } from "../errors.ts";
import { subject_for } from "../claims/pairwise.ts";
import type { Provider } from "../provider.ts";
import type { ActiveSession } from "../signin/sessions.ts";
import type { ValidLogout } from "./request.ts";
import { session_sid } from "./sid.ts";

export const CONFIRM_PATH = "/logout/confirm";

/** The request fields the confirmation form sends back. */
export type ConfirmFields = { client_id: string; post_logout_redirect_uri: string; state: string };

export function confirm_fields(request: ValidLogout): ConfirmFields {
  return {
    client_id: request.client?.client_id ?? "",
    post_logout_redirect_uri: request.post_logout_redirect_uri ?? "",
    state: request.state ?? "",
  };
}

/** False only for a hint that is an ID Token of this session (see above). */
export function needs_confirmation(idp: Provider, request: ValidLogout, active: ActiveSession): boolean {
  const hint = request.hint;
  if (hint === null || hint.sid === null) return true;
  // The hint's sub is the one its client was given: pairwise for a pairwise client (OIDC Core §8.1).
  const sub = request.client === null ? active.user.id : subject_for(idp, request.client, active.user.id);
  return !constant_time_equal(hint.sub, sub) || !constant_time_equal(hint.sid, session_sid(active.session.id_hash));
}

export function logout_csrf(session_cookie: string, fields: ConfirmFields): string {
  const values = [fields.client_id, fields.post_logout_redirect_uri, fields.state].map((part) => encodeURIComponent(part)).join(":");
  return form_token(session_cookie, "logout", values);
}

/** The CSRF token for this browser's session, or null when it sends no session cookie. */
export function csrf_for(idp: Provider, cookies: CookieReader, fields: ConfirmFields): string | null {
  const value = read_cookie(cookies, session_cookie_name(idp));
  return value === null ? null : logout_csrf(value, fields);
}

const FORGED_ADVICE = "The sign-out form was not sent from this browser's sign-out page. Go back to the application and sign out again.";

export function forged_form(): PageError {
  return expired_form(FORGED_ADVICE);
}

/** Rejects (403 page) a token that is missing or not this session's token for these values. */
export function check_logout_csrf(idp: Provider, cookies: CookieReader, fields: ConfirmFields, given: string | undefined): void {
  check_form_token(given, csrf_for(idp, cookies, fields), FORGED_ADVICE);
}

/** Values of views/logout.eta (besides the layout's). */
export function confirm_page_values(idp: Provider, request: ValidLogout, active: ActiveSession, csrf: string) {
  return {
    client_name: request.client === null ? null : display_name(request.client),
    user_name: active.user.name ?? active.user.username,
    action: `${idp.config.issuer}${CONFIRM_PATH}`,
    fields: confirm_fields(request),
    csrf,
  };
}
