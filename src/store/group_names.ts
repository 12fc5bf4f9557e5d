/**
 * The rule for group names, in the store because both the store (the unique `name_key` column)
 * and its callers (the CLI, later the admin API) use it, and the store may not import the rules
 * (docs/ARCHITECTURE.md).
 *
 * 1 to 64 ASCII letters, digits and `- _ . : /`: names travel in ID Tokens and are matched by
 * relying parties (Kubernetes RBAC subjects, Grafana role expressions), so they stay plain ASCII
 * with no spaces or quotes; `:` and `/` allow the usual namespacing (`team:ops`, `org/admins`).
 * Two names that differ only in case are the same group.
 */

const GROUP_NAME = /^[A-Za-z0-9._:/-]{1,64}$/;

export const GROUP_NAME_RULE = "1 to 64 ASCII letters, digits or - _ . : /";

/** Why a group name is refused, naming the rule; null when it is fine. */
export function group_name_problem(name: string): string | null {
  return GROUP_NAME.test(name) ? null : `group name "${name}" is not valid: use ${GROUP_NAME_RULE}`;
}

/** Equal keys are the same group (names are ASCII, so lower case is the whole folding). */
export function group_name_key(name: string): string {
  return name.toLowerCase();
}
