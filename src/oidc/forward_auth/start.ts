/**
 * The start step, on the provider's own host (`/forward-auth/start?rd=URL`): where a proxy sends
 * a browser that has no forward-auth cookie, or needs a second factor for what it asked for. The
 * browser's own session (the provider's host-only cookie) says who it is:
 *
 * - `rd` must be a URL of a registered application (policy.ts): the way back goes only there (no
 *   open redirect, RFC 9700 §4.11). Otherwise `invalid`.
 * - Not signed in: `sign_in` (the account's sign-in, which returns here: browser/return_path.ts).
 * - In none of the groups the URL needs: `denied`.
 * - Without the second factor it needs: `step_up` (the session's sign-in stands for the first
 *   step; the second step makes a new session, and returns here).
 * - Otherwise `go`: the forward-auth cookie (cookie.ts) and the way back to `rd`, on the
 *   application's registered scheme; for an application outside the cookie domain, no cookie
 *   here but the way to its callback with a one-time code (callback.ts), which sets its own.
 */
import type { CookieReader, CookieToSet } from "../browser/cookies.ts";
import type { Provider } from "../provider.ts";
import { has_any, second_factors } from "../signin/second_factor.ts";
import type { ActiveSession } from "../signin/sessions.ts";
import type { ProtectedAppRow, SessionRow, UserRow } from "../../store/types.ts";
import { note_refusal } from "./access_log.ts";
import { issue_code, uses_callback } from "./callback.ts";
import { return_url } from "./check.ts";
import { forward_auth_cookie } from "./cookie.ts";
import { FORWARD_AUTH_PATHS } from "./paths.ts";
import { application_for, groups_allow, lacks_second_factor, requirement } from "./policy.ts";
import { ForwardHeadersError, original_request, type OriginalRequest } from "./request.ts";

export type StartOutcome =
  | { kind: "invalid"; message: string }
  | { kind: "sign_in"; return_path: string }
  | { kind: "step_up"; return_path: string; user: UserRow; enrol: boolean; first_amr: string[] | null }
  | { kind: "denied"; app: ProtectedAppRow }
  | { kind: "go"; url: string; app: ProtectedAppRow; cookie: (CookieToSet & { options: { domain: string } }) | null };

/** Longest way back kept through a sign-in (it rides in a cookie, browser/return_path.ts); a longer one returns to the application's root. */
const MAX_RETURN = 1200;

/** The start step's path with `target`, as the account's sign-in returns to it. */
export function start_path(target: string): string {
  return `${FORWARD_AUTH_PATHS.start}?rd=${encodeURIComponent(target)}`;
}

export const NOT_REGISTERED = "The address you came from is not an application registered with this sign-in service, so you are not sent back there.";

/** The application and the way back for `rd`; a string says why there is none. */
export async function registered_target(idp: Provider, rd: string | undefined): Promise<{ app: ProtectedAppRow; original: OriginalRequest; target: string } | string> {
  if (rd === undefined || rd === "") return NOT_REGISTERED;
  let original: OriginalRequest;
  try {
    original = original_request("nginx", { get: (name) => (name.toLowerCase() === "x-original-url" ? rd : null) });
  } catch (error) {
    if (error instanceof ForwardHeadersError) return NOT_REGISTERED;
    throw error;
  }
  const app = application_for(await idp.store.list_protected_apps_for_host(original.host), original.path);
  if (app === null) return NOT_REGISTERED;
  const target = return_url(app, original);
  return { app, original, target: start_path(target).length <= MAX_RETURN ? target : app.url };
}

export async function start_forward_auth(idp: Provider, rd: string | undefined, cookies: CookieReader, active: ActiveSession | null, ip: string | null): Promise<StartOutcome> {
  const found = await registered_target(idp, rd);
  if (typeof found === "string") return { kind: "invalid", message: found };
  const { app, original, target } = found;
  const back = start_path(target);
  if (active === null || active.user.status !== "active") return { kind: "sign_in", return_path: back };
  const needs = requirement(app, original.path);
  if (!groups_allow(needs, await idp.store.list_user_groups(active.user.id))) {
    await note_refusal(idp, active.session, app, needs.rules, ip);
    return { kind: "denied", app };
  }
  if (lacks_second_factor(needs, active.session.amr)) {
    const enrol = !has_any(await second_factors(idp, active.user));
    return { kind: "step_up", return_path: back, user: active.user, enrol, first_amr: first_step(active.session) };
  }
  if (uses_callback(idp, app)) return { kind: "go", url: await issue_code(idp, active.session, app, target), app, cookie: null };
  const cookie = await forward_auth_cookie(idp, cookies, active.session, idp.config.forward_auth.cookie_domain!);
  return { kind: "go", url: target, app, cookie };
}

/** The session's methods as the step up's first step (second_factor.ts with_first_step): none after a password alone. */
function first_step(session: SessionRow): string[] | null {
  return session.amr.length === 1 && session.amr[0] === "pwd" ? null : [...session.amr];
}
