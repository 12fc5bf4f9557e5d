/**
 * Which application a request is for and what it asks of the user: pure functions of the
 * registered applications and the request's host and path (request.ts), no store, no clock.
 *
 * - The application: the one on the request's host whose path is the longest prefix of the
 *   request's path (a prefix matches at a segment boundary: `/grafana` matches `/grafana` and
 *   `/grafana/x`, never `/grafanax`).
 * - Its rule: the longest rule prefix that matches the same way; none matches → the
 *   application's own groups. Groups name who may open it (any of them; none: any signed-in
 *   user). A second factor is needed when the application or that rule asks for one.
 * - Paths compare exactly. A backend that ignores case would see `/ADMIN` as `/admin`, so the
 *   longest rule matched without regard to case applies too when it differs: every rule found
 *   either way must be met, and `/ADMIN` is never less protected than `/admin`.
 */
import { has_second_factor } from "../signin/methods.ts";
import { group_name_key } from "../../store/group_names.ts";
import type { ProtectedAppRow, ProtectedAppRule } from "../../store/types.ts";

/** Whether `prefix` covers `path` at a segment boundary ("/" covers everything). */
export function covers(prefix: string, path: string, fold = false): boolean {
  const p = fold ? prefix.toLowerCase() : prefix;
  const q = fold ? path.toLowerCase() : path;
  if (p === "/" || q === p) return true;
  return q.startsWith(p.endsWith("/") ? p : `${p}/`);
}

/** The application of `host` (its apps listed longest path first) for `path`; null when none covers it. */
export function application_for(apps: readonly ProtectedAppRow[], path: string): ProtectedAppRow | null {
  let found: ProtectedAppRow | null = null;
  for (const app of apps) if (covers(app.path, path) && (found === null || app.path.length > found.path.length)) found = app;
  return found;
}

/** What opening `path` of `app` needs: every group list must be met (by one of its groups each), and a second factor when `second_factor`. */
export type Requirement = { group_lists: string[][]; second_factor: boolean; rules: string[] };

function longest(rules: readonly ProtectedAppRule[], path: string, fold: boolean): ProtectedAppRule | null {
  let found: ProtectedAppRule | null = null;
  for (const rule of rules) if (covers(rule.prefix, path, fold) && (found === null || rule.prefix.length > found.prefix.length)) found = rule;
  return found;
}

export function requirement(app: ProtectedAppRow, path: string): Requirement {
  const exact = longest(app.rules, path, false);
  const folded = longest(app.rules, path, true);
  const applied = exact === folded ? [exact] : [exact, folded];
  const group_lists: string[][] = [];
  const rules: string[] = [];
  let second_factor = app.require_2fa;
  for (const rule of applied) {
    if (rule === null) {
      if (app.allowed_groups.length > 0) group_lists.push(app.allowed_groups);
      continue;
    }
    rules.push(rule.prefix);
    if (rule.groups.length > 0) group_lists.push(rule.groups);
    second_factor ||= rule.require_2fa;
  }
  return { group_lists, second_factor, rules };
}

/** Whether a user in `groups` meets every group list of the requirement. */
export function groups_allow(requirement: Requirement, groups: readonly string[]): boolean {
  if (requirement.group_lists.length === 0) return true;
  const keys = new Set(groups.map(group_name_key));
  return requirement.group_lists.every((list) => list.some((name) => keys.has(group_name_key(name))));
}

/** Whether a session signed in with `amr` lacks the second factor the requirement asks for (signin/methods.ts). */
export function lacks_second_factor(requirement: Requirement, amr: readonly string[]): boolean {
  return requirement.second_factor && !has_second_factor(amr);
}
