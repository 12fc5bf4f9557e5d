/**
 * Bulk actions on the users selected on the console's users page (views/admin/users.eta):
 * disable, enable, add to a group, end every session. One confirmation page lists the users
 * (endpoints/admin_console/users_bulk_confirm.ts) and asks for the administrator's password; its
 * form posts to endpoints/admin_console/users_bulk_action.ts. Each user goes through the rules of
 * the single action (user_action.ts): the role's permission and `may_act_on`, never oneself nor
 * the last administrator (oidc/admin/lockout.ts), back-channel logout for whatever ends sessions.
 * A user the rules refuse is skipped, with the reason shown; the others are changed, each
 * audited on its own.
 */
import { REAUTH_WINDOW_SECONDS, type ConsoleSession } from "../../oidc/admin/console.ts";
import { lockout_problem } from "../../oidc/admin/lockout.ts";
import { may_act_on, type ConsolePermission } from "../../oidc/admin/roles.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { GroupRow, UserRow } from "../../store/types.ts";
import { console_url, console_values, TARGET_REFUSAL } from "./admin_console.ts";

export const BULK_ACTIONS = ["disable", "enable", "add_to_group", "end_sessions"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** What each bulk action needs, as its single action (oidc/admin/roles.ts USER_ACTION_PERMISSIONS, group_action.ts). */
export const BULK_PERMISSIONS: Readonly<Record<BulkAction, ConsolePermission>> = {
  disable: "disable_users",
  enable: "enable_users",
  add_to_group: "manage_groups",
  end_sessions: "end_sessions",
};

/** The most users one bulk action takes: two pages of the users list. */
export const MAX_BULK = 100;

/** Each action's catalog messages: what happens, and the button. */
const WORDS: Record<BulkAction, { consequence: string; button: string }> = {
  disable: { consequence: "admin.bulk.consequence_disable", button: "admin.bulk.button_disable" },
  enable: { consequence: "admin.bulk.consequence_enable", button: "admin.bulk.button_enable" },
  add_to_group: { consequence: "admin.bulk.consequence_add_to_group", button: "admin.bulk.button_add_to_group" },
  end_sessions: { consequence: "admin.bulk.consequence_end_sessions", button: "admin.bulk.button_end_sessions" },
};

/** One selected user and why they are skipped (null: they are changed). */
export type BulkLine = { user: UserRow; skip: string | null };

export type BulkPlan = { action: BulkAction; group: GroupRow | null; lines: BulkLine[]; missing: number };

/** The selected ids, once each, at most MAX_BULK: from repeated checkboxes or the confirmation form's list. */
export function selected_ids(given: string | string[] | undefined): string[] {
  const all = (given === undefined ? [] : Array.isArray(given) ? given : given.split(",")).map((id) => id.trim()).filter((id) => id !== "");
  return [...new Set(all)].slice(0, MAX_BULK);
}

/** Why `action` on `user` is skipped, by the single action's rules, or null. */
export async function bulk_skip(idp: Provider, admin: ConsoleSession, action: BulkAction, user: UserRow, group: GroupRow | null): Promise<string | null> {
  // The helpdesk acts on people without a console role only (roles.ts may_act_on).
  if (!(await may_act_on(idp, admin.roles, user))) return TARGET_REFUSAL;
  switch (action) {
    case "disable": {
      const problem = await lockout_problem(idp.store, idp.config.admin_console.group, user, "disable", admin.user.id);
      if (problem !== null) return problem.message;
      return user.status === "disabled" ? `${user.username} is already disabled.` : null;
    }
    case "enable":
      return user.status === "disabled" ? null : `${user.username} is not disabled.`;
    case "add_to_group": {
      if (group === null) return "Choose a group to add the users to.";
      const groups = await idp.store.list_user_groups(user.id);
      return groups.some((name) => name.toLowerCase() === group.name.toLowerCase()) ? `${user.username} is already in the group ${group.name}.` : null;
    }
    case "end_sessions":
      // Ending one's own sessions here would sign the console out half-way: the account page does it.
      return user.id === admin.user.id ? "This is you: end your own sessions on your account page." : null;
  }
}

/**
 * The plan of `action` on the users `ids` (those that no longer exist are counted in `missing`),
 * or what is wrong with the request (no user selected, no such group).
 */
export async function bulk_plan(idp: Provider, admin: ConsoleSession, action: BulkAction, ids: string[], group_name: string | undefined): Promise<BulkPlan | { problem: string }> {
  if (ids.length === 0) return { problem: "Select at least one user, then choose what to do." };
  let group: GroupRow | null = null;
  if (action === "add_to_group") {
    const name = (group_name ?? "").trim();
    if (name === "") return { problem: "Choose a group to add the users to." };
    group = await idp.store.get_group_by_name(name);
    if (group === null) return { problem: `There is no group named ${name}.` };
  }
  const lines: BulkLine[] = [];
  let missing = 0;
  for (const id of ids) {
    const user = await idp.store.get_user_by_id(id);
    if (user === null) missing += 1;
    else lines.push({ user, skip: await bulk_skip(idp, admin, action, user, group) });
  }
  return { action, group, lines, missing };
}

/** What the confirmation token is bound to: the action, the group and the users (in a fixed order). */
function token_subject(plan: BulkPlan): string {
  return `${plan.group?.id ?? ""}:${plan.lines
    .map((line) => line.user.id)
    .sort()
    .join(",")}`;
}

/** The token action of a bulk confirmation (oidc/admin/console.ts `confirmation_token`). */
export function bulk_token(admin: ConsoleSession, plan: BulkPlan): { action: string; subject: string; token: string } {
  const action = `user:bulk_${plan.action}`;
  const subject = token_subject(plan);
  return { action, subject, token: admin.confirmation_token(action, subject) };
}

/** One line of the page: the user and what happens to them (`outcome`: will change, changed, skipped). */
type PageLine = { id: string; username: string; email: string; outcome: "change" | "done" | "skipped"; reason: string | null };

/**
 * The template values of the confirmation page (`results` absent) or of the results page:
 * `results` says for each user id what was done (null) or why it was skipped.
 */
export function bulk_values(
  idp: Provider,
  admin: ConsoleSession,
  plan: BulkPlan,
  extra: { error?: string | null; results?: Map<string, string | null> } = {},
): Record<string, unknown> {
  const values = { group: plan.group?.name ?? "" };
  const lines: PageLine[] = plan.lines.map(({ user, skip }) => {
    const result = extra.results?.get(user.id);
    const reason = skip ?? result ?? null;
    const outcome = reason !== null ? "skipped" : extra.results === undefined ? "change" : "done";
    return { id: user.id, username: user.username, email: user.email ?? "", outcome, reason };
  });
  const changing = lines.filter((line) => line.outcome !== "skipped").length;
  return console_values(idp, admin, "users", "Users", {
    heading_message: { key: extra.results === undefined ? "admin.bulk.confirm_title" : "admin.bulk.results_title", values: { count: lines.length } },
    bulk: {
      action: plan.action,
      consequence: { key: WORDS[plan.action].consequence, values },
      button: { key: WORDS[plan.action].button, values: { ...values, count: changing } },
      lines,
      changing,
      skipped: lines.length - changing,
      missing: plan.missing,
      post: console_url(idp, "/users/bulk"),
      fields: [
        { name: "action", value: plan.action },
        { name: "group", value: plan.group?.name ?? "" },
        { name: "ids", value: plan.lines.map((line) => line.user.id).join(",") },
      ],
      back: console_url(idp, "/users"),
      done: extra.results !== undefined,
    },
    confirm_csrf: bulk_token(admin, plan).token,
    needs_password: admin.user.password_hash !== "",
    reauth_minutes: REAUTH_WINDOW_SECONDS / 60,
    error: extra.error ?? null,
  });
}
