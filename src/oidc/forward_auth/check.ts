/**
 * The forward-auth check: may the browser behind this proxied request open it? One read of the
 * applications of its host, one of the session (through the forward-auth cookie, cookie.ts), one
 * of the user and one of their groups (the session through the application's host-only cookie
 * when it is outside the cookie domain, callback.ts); no write but the session's "last seen" every few minutes
 * and the first access of a session to an application (access_log.ts).
 *
 * - No application covers the host and path: `unknown` (nothing is redirected anywhere: the
 *   host came from a header).
 * - No live session, or an account that is not active: `sign_in`, with the URL of the start
 *   step (start.ts) on the provider, which signs in and comes back to the original URL.
 * - A user in none of the groups the path needs: `denied` (audited, access_log.ts).
 * - A second factor the path needs and the session lacks: `sign_in` too; the start step asks
 *   for it (a step up) and comes back.
 * - Otherwise `allowed`, with the headers the proxy copies to the application.
 */
import type { CookieReader } from "../browser/cookies.ts";
import type { Provider } from "../provider.ts";
import type { ProtectedAppRow, UserRow } from "../../store/types.ts";
import { note_access, note_refusal } from "./access_log.ts";
import { uses_callback } from "./callback.ts";
import { forward_auth_session, host_cookie_session } from "./cookie.ts";
import { application_for, groups_allow, lacks_second_factor, requirement } from "./policy.ts";
import { FORWARD_AUTH_PATHS } from "./paths.ts";
import type { OriginalRequest } from "./request.ts";

export type CheckOutcome =
  | { kind: "allowed"; app: ProtectedAppRow; headers: [string, string][] }
  | { kind: "sign_in"; app: ProtectedAppRow; start_url: string }
  | { kind: "denied"; app: ProtectedAppRow; user: UserRow; start_url: string }
  | { kind: "unknown" };

/** The URL the browser came for, on the registered application's own scheme and host. */
export function return_url(app: ProtectedAppRow, original: Pick<OriginalRequest, "host" | "uri">): string {
  return `${app.url.slice(0, app.url.indexOf("//"))}//${original.host}${original.uri}`;
}

/** The start step's URL for a browser that came for `target` (start.ts checks it again). */
export function start_url(idp: Provider, target: string | null): string {
  const base = `${idp.config.issuer}${FORWARD_AUTH_PATHS.start}`;
  return target === null ? base : `${base}?rd=${encodeURIComponent(target)}`;
}

export async function check_forward_auth(idp: Provider, original: OriginalRequest, cookies: CookieReader, ip: string | null): Promise<CheckOutcome> {
  const app = application_for(await idp.store.list_protected_apps_for_host(original.host), original.path);
  if (app === null) return { kind: "unknown" };
  const back = start_url(idp, return_url(app, original));
  // An application outside the cookie domain has its own host-only cookie (callback.ts), and only it opens that host.
  const session = uses_callback(idp, app) ? await host_cookie_session(idp, cookies, app) : await forward_auth_session(idp, cookies);
  if (session === null) return { kind: "sign_in", app, start_url: back };
  const user = await idp.store.get_user_by_id(session.user_id);
  if (user === null || user.status !== "active") return { kind: "sign_in", app, start_url: back };
  const needs = requirement(app, original.path);
  const groups = await idp.store.list_user_groups(user.id);
  if (!groups_allow(needs, groups)) {
    await note_refusal(idp, session, app, needs.rules, ip);
    return { kind: "denied", app, user, start_url: back };
  }
  // After the groups: a second factor would not change a refusal.
  if (lacks_second_factor(needs, session.amr)) return { kind: "sign_in", app, start_url: back };
  await note_access(idp, session, app, original.host, ip);
  return { kind: "allowed", app, headers: identity_headers(idp, user, groups) };
}

/**
 * The headers that say who is signed in (names: IDP_FORWARD_AUTH_HEADER_*), each always present,
 * empty when unknown, so a proxy that copies them replaces whatever the client sent. The e-mail
 * address only when verified: an application that links accounts by address must not be handed
 * one nobody proved.
 */
export function identity_headers(idp: Provider, user: UserRow, groups: readonly string[]): [string, string][] {
  const names = idp.config.forward_auth;
  return [
    [names.header_user, header_value(user.username)],
    [names.header_email, user.email !== null && user.email_verified ? header_value(user.email) : ""],
    [names.header_name, header_value(user.name ?? "")],
    // Group names hold no comma (store/group_names.ts).
    [names.header_groups, groups.join(",")],
  ];
}

/**
 * A header value (RFC 9110 §5.5): without control characters, its UTF-8 bytes carried as they are
 * (each byte one character of the header string, as the Fetch API sends a ByteString), so an
 * application that reads UTF-8 gets "Zoë" back.
 */
export function header_value(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  if (/^[\x20-\x7e]*$/.test(clean)) return clean;
  let out = "";
  for (const byte of new TextEncoder().encode(clean)) out += String.fromCharCode(byte);
  return out;
}
