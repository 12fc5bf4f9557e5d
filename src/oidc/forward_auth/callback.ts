/**
 * Applications outside the cookie domain: the cookie on IDP_FORWARD_AUTH_COOKIE_DOMAIN never
 * reaches them, so each gets a host-only cookie of its own (cookie.ts host_cookie), set by a
 * callback on its own host. The proxy forwards `https://app.example.org/.idp/callback?code=…`
 * (APP_CALLBACK_PATH) to the provider's callback endpoint, which answers with the cookie and a
 * redirect; no cookie is shared between applications.
 *
 * - The start step (start.ts), once the browser may open the application, hands it a code
 *   (`issue_code`): 256 random bits, kept as its SHA-256, bound to the browser session, to the
 *   application's host and to the URL to return to (already checked to be the application's),
 *   valid CODE_TTL seconds. The browser goes to the callback with it.
 * - The callback (`redeem_code`) takes the code once (a second use, or an expired code, finds
 *   nothing: the store deletes it atomically), on the host it was made for only, for a session
 *   still alive, and to an application still registered there outside the cookie domain; then the
 *   host-only cookie for that session, and the way back, which is the URL bound to the code, never
 *   one the request names (no open redirect, RFC 9700 §4.11).
 *
 * The cookie's token goes with its session (a sign-out ends it at the next check), and opens only
 * that host (check.ts reads it through host_cookie_session).
 */
import { in_cookie_domain } from "../../config/schema.ts";
import type { CookieToSet } from "../browser/cookies.ts";
import { random_token, sha256 } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import { live_session } from "../signin/sessions.ts";
import type { ProtectedAppRow, SessionRow } from "../../store/types.ts";
import { host_name } from "./apps.ts";
import { host_cookie } from "./cookie.ts";
import { APP_CALLBACK_PATH } from "./paths.ts";
import { application_for } from "./policy.ts";
import { decoded_path, type OriginalRequest } from "./request.ts";

/** Seconds a code lives: the browser follows it at once. */
export const CODE_TTL = 60;

const CODE = /^[A-Za-z0-9_-]{43}$/;

export const CODE_UNUSABLE = "This sign-in link was used already, has expired, or is not for this address. Open the application again to sign in.";

/** Whether `app` is reached through the callback: its host is outside the cookie domain (or none is set). */
export function uses_callback(idp: Provider, app: ProtectedAppRow): boolean {
  const domain = idp.config.forward_auth.cookie_domain;
  return domain === undefined || !in_cookie_domain(host_name(app.host), domain);
}

/** The origin of `app` (its registered scheme and host). */
function origin_of(app: ProtectedAppRow): string {
  return `${app.url.slice(0, app.url.indexOf("//"))}//${app.host}`;
}

/** A one-time code for `session` at `app`'s host, returning to `target`; the callback URL that carries it. */
export async function issue_code(idp: Provider, session: SessionRow, app: ProtectedAppRow, target: string): Promise<string> {
  const code = random_token(32);
  const now = idp.now();
  await idp.store.create_forward_auth_code({ code_hash: sha256(code), session_id_hash: session.id_hash, host: app.host, target, expires_at: now + CODE_TTL, created_at: now });
  return `${origin_of(app)}${APP_CALLBACK_PATH}?code=${code}`;
}

export type RedeemOutcome = { kind: "invalid"; message: string } | { kind: "go"; url: string; app: ProtectedAppRow; cookie: CookieToSet };

/** The callback at the host `original` names (the proxy's headers), with `code` from its query. */
export async function redeem_code(idp: Provider, original: Pick<OriginalRequest, "host">, code: string | undefined): Promise<RedeemOutcome> {
  const invalid = { kind: "invalid", message: CODE_UNUSABLE } as const;
  if (code === undefined || !CODE.test(code)) return invalid;
  // Taken before anything else is checked: a code is spent by its first use, whatever comes of it.
  const taken = await idp.store.take_forward_auth_code(sha256(code), idp.now());
  if (taken === null || taken.host !== original.host) return invalid;
  const target = new URL(taken.target);
  const path = decoded_path(target.pathname);
  if (target.host.toLowerCase() !== taken.host || path === null) return invalid;
  const app = application_for(await idp.store.list_protected_apps_for_host(taken.host), path);
  if (app === null || !uses_callback(idp, app) || origin_of(app) !== target.origin) return invalid;
  const session = await live_session(idp, await idp.store.get_session(taken.session_id_hash));
  if (session === null) return invalid;
  return { kind: "go", url: taken.target, app, cookie: await host_cookie(idp, session, app) };
}
