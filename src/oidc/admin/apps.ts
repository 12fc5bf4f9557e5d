/**
 * Administering protected applications (forward authentication, forward_auth/): the rules
 * `idp apps` (src/cli/apps.ts) applies. An application is its name, its URL, who may open it and
 * its rules per path prefix (forward_auth/apps.ts says how each is written). Every group named
 * must exist (a typo would lock everyone out without a word) and is stored as the group spells it.
 */
import { MAX_GROUPS, MAX_RULES, app_location, app_name_problem, parse_rule, within } from "../forward_auth/apps.ts";
import { StoreConflictError, type ProtectedAppChanges, type ProtectedAppRow, type ProtectedAppRule, type Store } from "../../store/types.ts";
import { group_name_problem } from "../../store/group_names.ts";
import { AdminError, invalid_field as invalid, not_found } from "./errors.ts";

/** What an operator gives: each field in its text form; undefined leaves it (update) or takes the default (create). */
export type AppInput = {
  url?: string | undefined;
  /** Empty: any signed-in user. */
  allowed_groups?: readonly string[] | undefined;
  require_2fa?: boolean | undefined;
  /** `PREFIX=GROUPS[+2fa]` each; replaces every rule. */
  rules?: readonly string[] | undefined;
};

async function spelled(store: Store, field: string, names: readonly string[]): Promise<string[]> {
  if (names.length > MAX_GROUPS) throw invalid(field, `at most ${MAX_GROUPS} groups`);
  const out: string[] = [];
  for (const name of names) {
    const problem = group_name_problem(name);
    if (problem !== null) throw invalid(field, problem);
    const group = await store.get_group_by_name(name);
    if (group === null) throw invalid(field, `no group "${name}" (create it first)`);
    if (!out.includes(group.name)) out.push(group.name);
  }
  return out;
}

async function rules_of(store: Store, texts: readonly string[], app_path: string): Promise<ProtectedAppRule[]> {
  if (texts.length > MAX_RULES) throw invalid("rules", `at most ${MAX_RULES} rules`);
  const rules: ProtectedAppRule[] = [];
  for (const text of texts) {
    const rule = parse_rule(text);
    if (typeof rule === "string") throw invalid("rules", rule);
    if (!within(app_path, rule.prefix)) throw invalid("rules", `rule ${rule.prefix} is outside the application's path ${app_path}: it would never apply`);
    if (rules.some((other) => other.prefix === rule.prefix)) throw invalid("rules", `two rules for ${rule.prefix}: give one`);
    rules.push({ ...rule, groups: await spelled(store, "rules", rule.groups) });
  }
  return rules.sort((a, b) => a.prefix.localeCompare(b.prefix));
}

function location_of(url: string) {
  const location = app_location(url);
  if (typeof location === "string") throw invalid("url", location);
  return location;
}

function taken(name: string, conflict: { host: string; path: string } | null): AdminError {
  return conflict === null
    ? new AdminError("conflict", `application ${name} is registered already`, [{ field: "name", message: "is taken" }])
    : new AdminError("conflict", `another application is registered at ${conflict.host}${conflict.path === "/" ? "" : conflict.path}`, [{ field: "url", message: "is taken" }]);
}

export async function create_app(store: Store, name: string, input: AppInput, now: number): Promise<ProtectedAppRow> {
  const problem = app_name_problem(name);
  if (problem !== null) throw invalid("name", problem);
  if (input.url === undefined) throw invalid("url", "is required (https://app.example.com)");
  const location = location_of(input.url);
  const allowed_groups = await spelled(store, "allowed_groups", input.allowed_groups ?? []);
  const rules = await rules_of(store, input.rules ?? [], location.path);
  if ((await store.get_protected_app(name)) !== null) throw taken(name, null);
  const same_place = (await store.list_protected_apps_for_host(location.host)).find((app) => app.path === location.path);
  if (same_place !== undefined) throw taken(name, location);
  try {
    return await store.create_protected_app({ name, ...location, allowed_groups, require_2fa: input.require_2fa ?? false, rules, created_at: now });
  } catch (error) {
    if (error instanceof StoreConflictError) throw taken(name, location);
    throw error;
  }
}

/** Changes the fields given; a new URL keeps the rules only when they still lie under its path. */
export async function update_app(store: Store, name: string, input: AppInput, now: number): Promise<ProtectedAppRow> {
  const current = await store.get_protected_app(name);
  if (current === null) throw not_found("application", name);
  const changes: ProtectedAppChanges = { updated_at: now };
  const location = input.url === undefined ? null : location_of(input.url);
  if (location !== null) {
    const same_place = (await store.list_protected_apps_for_host(location.host)).find((app) => app.path === location.path && app.name !== name);
    if (same_place !== undefined) throw taken(name, location);
    Object.assign(changes, location);
  }
  if (input.allowed_groups !== undefined) changes.allowed_groups = await spelled(store, "allowed_groups", input.allowed_groups);
  if (input.require_2fa !== undefined) changes.require_2fa = input.require_2fa;
  const path = location?.path ?? current.path;
  if (input.rules !== undefined) changes.rules = await rules_of(store, input.rules, path);
  else if (location !== null) {
    const outside = current.rules.find((rule) => !within(path, rule.prefix));
    if (outside !== undefined) throw invalid("rules", `rule ${outside.prefix} would be outside the new path ${path}: give the rules again (--rule) or clear them`);
  }
  try {
    const updated = await store.update_protected_app(name, changes);
    if (updated === null) throw not_found("application", name);
    return updated;
  } catch (error) {
    if (error instanceof StoreConflictError) throw taken(name, location);
    throw error;
  }
}

/** Removes the application: the proxy's next check for it answers that no application is registered there. */
export async function remove_app(store: Store, name: string): Promise<void> {
  if (!(await store.delete_protected_app(name))) throw not_found("application", name);
}
