/**
 * GET /admin/users/:id/confirm?action=…: the confirmation page (http/pages/admin_confirm.ts) of a
 * destructive action on a user: delete, disable, end every session, reset the second factors,
 * remove from the admin group. Its form posts to /admin/users/:id/actions (user_action.ts). What
 * the rules would refuse is refused here already, saying why: oneself or the last administrator
 * (oidc/admin/lockout.ts), someone outside the admin group, an account already disabled, second
 * factors that are not there.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, in_admin_group, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { lockout_problem } from "../../../oidc/admin/lockout.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { UserRow } from "../../../store/types.ts";
import { USER_ACTION_PERMISSIONS, may_act_on } from "../../../oidc/admin/roles.ts";
import { console_gate, console_url, console_values, role_refusal, TARGET_REFUSAL } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { user_of } from "../admin/users/find.ts";

/** The user actions confirmed on this page, as user_action.ts names them. */
export const USER_DANGERS = ["delete", "disable", "end_sessions", "reset_second_factors", "remove_admin"] as const;
export type UserDanger = (typeof USER_DANGERS)[number];

/** Each action's catalog messages: the heading, what happens, the button. */
const WORDS: Record<UserDanger, { heading: string; consequence: string; button: string }> = {
  delete: { heading: "admin.confirm.user_delete_title", consequence: "admin.confirm.user_delete", button: "admin.delete_user" },
  disable: { heading: "admin.confirm.user_disable_title", consequence: "admin.confirm.user_disable", button: "admin.disable_account" },
  end_sessions: { heading: "admin.confirm.user_end_sessions_title", consequence: "admin.confirm.user_end_sessions", button: "admin.end_all_sessions" },
  reset_second_factors: { heading: "admin.confirm.user_reset_2fa_title", consequence: "admin.confirm.user_reset_2fa", button: "admin.reset_2fa" },
  remove_admin: { heading: "admin.confirm.user_remove_admin_title", consequence: "admin.confirm.user_remove_admin", button: "admin.remove_from" },
};

/** Why `action` on `user` is refused before it is asked for, or null. */
async function refusal(idp: Provider, admin: ConsoleSession, user: UserRow, action: UserDanger): Promise<string | null> {
  const group = idp.config.admin_console.group;
  if (action === "delete" || action === "disable" || action === "remove_admin") {
    const problem = await lockout_problem(idp.store, group, user, action, admin.user.id);
    if (problem !== null) return problem.message;
  }
  if (action === "remove_admin" && !(await in_admin_group(idp, user.id))) return `${user.username} is not in the admin group ${group}.`;
  if (action === "disable" && user.status === "disabled") return `${user.username} is already disabled.`;
  if (action === "reset_second_factors" && user.totp_secret === null && user.totp_enabled_at === null && (await idp.store.list_passkeys_for_user(user.id)).length === 0) {
    return `user "${user.username}" has no two-step verification or passkey to reset`;
  }
  return null;
}

/** The confirmation of `action` on `user`. */
export async function user_danger(idp: Provider, admin: ConsoleSession, user: UserRow, action: UserDanger): Promise<Danger> {
  const values = { username: user.username, group: idp.config.admin_console.group };
  const words = WORDS[action];
  return {
    kind: "user",
    action,
    subject: user.id,
    page: "users",
    heading: { key: words.heading, values },
    consequence: { key: words.consequence, values },
    facts: [{ label: "login.username", value: user.username }, ...(user.email === null ? [] : [{ label: "account.email", value: user.email }])],
    button: { key: words.button, values },
    post: console_url(idp, `/users/${user.id}/actions`),
    fields: { action },
    back: console_url(idp, `/users/${user.id}`),
    refusal: await refusal(idp, admin, user, action),
  };
}

/** The link to the confirmation of `action` on the user `id`. */
export function user_confirm_url(idp: Provider, id: string, action: UserDanger): string {
  return confirm_url(idp, `/users/${id}`, action);
}

export const AdminConsoleUserConfirmRequest = Fw.Request("AdminConsoleUserConfirmRequest", z.object({ action: z.enum(USER_DANGERS) }), { from: ["query"] });

export const AdminConsoleUserConfirm = (idp: Provider) =>
  class AdminConsoleUserConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/users/:id/confirm`;

    async call() {
      const gate = await console_gate(idp, this, USER_ACTION_PERMISSIONS[this.admin_console_user_confirm_request.action]);
      if ("refused" in gate) return gate.refused;
      let user: UserRow;
      try {
        user = await user_of(idp, this.route_params.id ?? "");
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return this.view(
          "message",
          {
            ...console_values(idp, gate.admin, "users", "No such user"),
            message: "This user does not exist (any more).",
            link: { href: console_url(idp, "/users"), text: "Back to users" },
            form: null,
          },
          404,
        );
      }
      if (!(await may_act_on(idp, gate.admin.roles, user))) return role_refusal(idp, this, gate.admin, TARGET_REFUSAL);
      const danger = await user_danger(idp, gate.admin, user, this.admin_console_user_confirm_request.action);
      return this.view("admin/confirm", danger_values(idp, gate.admin, danger), danger.refusal === null ? 200 : 409);
    }
  };
