/**
 * What a protected application is: a name, the URL it is served at (scheme, host, optional port
 * and path), who may open it (members of any of its groups, or any signed-in user), whether a
 * second factor is needed, and rules per path prefix below it. The text forms the command line
 * and the docs use are parsed and printed here, in one place.
 *
 * A rule is written `PREFIX=GROUPS[+2fa]`: a path prefix, `=`, the groups whose members may open
 * the paths under it (comma-separated) or `*` for any signed-in user, and optionally `+2fa` for a
 * second factor there. `/admin=admins+2fa`, `/public=*`, `/billing=finance,admins`. Neither `=`,
 * `,`, `*` nor `+` can occur in a group name (store/group_names.ts) or a prefix (below), so every
 * rule reads one way only.
 */
import { group_name_problem } from "../../store/group_names.ts";
import type { ProtectedAppRule } from "../../store/types.ts";

/** Application names: 1 to 64 lower-case ASCII letters, digits or - _ . (a word on a command line, in the audit log). */
const APP_NAME = /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/;
export const APP_NAME_RULE = "1 to 64 lower-case ASCII letters, digits or - _ . (starting and ending with a letter or digit)";

/** Path prefixes: "/" then segments of RFC 3986 pchar without "%" (compared decoded, policy.ts), no empty, "." or ".." segment. */
const PREFIX = /^(?:\/[A-Za-z0-9._~!$&'()@:;-]+)+$/;
export const PREFIX_RULE = "a path such as /admin: segments of letters, digits and - . _ ~ ! $ & ' ( ) @ : ; without ./.. segments, a query or a trailing slash";

/** Rules an application may have: enough for any real layout, and few enough to read. */
export const MAX_RULES = 50;
export const MAX_GROUPS = 100;

export function app_name_problem(name: string): string | null {
  return APP_NAME.test(name) ? null : `"${name}" is not a valid application name: use ${APP_NAME_RULE}`;
}

/** Why `prefix` cannot be a path prefix; null when it can. */
export function prefix_problem(prefix: string): string | null {
  if (prefix.length > 512) return "a path prefix must be at most 512 characters";
  if (!PREFIX.test(prefix) || prefix.split("/").some((segment) => segment === "." || segment === "..")) return `"${prefix}" is not a path prefix: use ${PREFIX_RULE}`;
  return null;
}

export type AppLocation = { url: string; host: string; path: string };

/**
 * Where an application is served, from its URL: http or https, a host name (an IP address too),
 * an optional port, an optional path prefix; no user, query or fragment. `host` keeps a port that
 * is not the scheme's default (WHATWG URL drops the default one), `path` has no trailing slash.
 */
export function app_location(text: string): AppLocation | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not an absolute URL (https://app.example.com)`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http or https URL";
  if (url.username !== "" || url.password !== "") return "must not contain a user name or password";
  if (url.search !== "" || text.includes("?")) return "must not have a query";
  if (url.hash !== "" || text.includes("#")) return "must not have a fragment";
  if (url.hostname === "") return "must name a host";
  const path = url.pathname === "/" ? "/" : url.pathname.replace(/\/+$/, "");
  if (path !== "/") {
    const problem = prefix_problem(path);
    if (problem !== null) return `its path: ${problem}`;
  }
  const host = url.host.toLowerCase();
  return { url: `${url.protocol}//${host}${path === "/" ? "" : path}`, host, path };
}

/** The host name of an application's host, without its port (for the cookie domain). */
export function host_name(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d+$/, "");
}

/** `PREFIX=GROUPS[+2fa]` → the rule; a string says why it is not one. Group names are checked for their shape here, for existence by the caller. */
export function parse_rule(text: string): ProtectedAppRule | string {
  const eq = text.indexOf("=");
  if (eq === -1) return `"${text}" is not a rule: write PREFIX=GROUPS, e.g. /admin=admins, /public=* or /admin=admins+2fa`;
  const prefix = text.slice(0, eq).trim();
  let who = text.slice(eq + 1).trim();
  const problem = prefix_problem(prefix);
  if (problem !== null) return problem;
  const require_2fa = who.endsWith("+2fa");
  if (require_2fa) who = who.slice(0, -"+2fa".length);
  if (who === "*") return { prefix, groups: [], require_2fa };
  const groups = who.split(",").map((name) => name.trim());
  if (groups.length === 0 || groups.some((name) => name === "")) return `rule ${prefix}: name the groups (comma-separated) or * for any signed-in user`;
  if (groups.length > MAX_GROUPS) return `rule ${prefix}: at most ${MAX_GROUPS} groups`;
  for (const name of groups) {
    const bad = group_name_problem(name);
    if (bad !== null) return `rule ${prefix}: ${bad}`;
  }
  return { prefix, groups: [...new Set(groups)], require_2fa };
}

/** The text form of a rule, as parse_rule reads it. */
export function format_rule(rule: ProtectedAppRule): string {
  return `${rule.prefix}=${rule.groups.length === 0 ? "*" : rule.groups.join(",")}${rule.require_2fa ? "+2fa" : ""}`;
}

/** Whether `prefix` lies at or below the application's path (a rule outside it would never apply). */
export function within(app_path: string, prefix: string): boolean {
  return app_path === "/" || prefix === app_path || prefix.startsWith(`${app_path}/`);
}
