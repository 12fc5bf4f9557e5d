/**
 * POST /admin/users/bulk: a bulk action on the selected users, from its confirmation page alone
 * (users_bulk_confirm.ts: its own token, bound to the action, the group and the users, and the
 * administrator's password). Each user goes through the single action's rules again
 * (http/pages/admin_bulk.ts `bulk_skip`, then what user_action.ts and group_action.ts do:
 * oidc/admin/lockout.ts, change_user, back-channel logout for whatever ends sessions); a user
 * the rules refuse is skipped and the page says why. Every user is audited on their own.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_confirmation_csrf, reauthentication_problem, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_lockout } from "../../../oidc/admin/lockout.ts";
import { change_user } from "../../../oidc/admin/users.ts";
import { with_backchannel_logout } from "../../../oidc/logout/bulk.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { end_user_sessions } from "../../../oidc/signin/sessions.ts";
import type { GroupRow, JsonObject, UserRow } from "../../../store/types.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { BULK_ACTIONS, BULK_PERMISSIONS, bulk_plan, bulk_token, bulk_values, MAX_BULK, selected_ids, type BulkAction } from "../../pages/admin_bulk.ts";
import { console_gate, refusal_words } from "../../pages/admin_console.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { users_page } from "./users.ts";

export const AdminConsoleUsersBulkActionRequest = Fw.Request(
  "AdminConsoleUsersBulkActionRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(BULK_ACTIONS),
    ids: z.string().max(MAX_BULK * 65),
    group: z.string().max(256).optional(),
    password: z.string().max(4096).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

/** Performs `action` on one user, as the single action does; what to audit. */
async function act(idp: Provider, admin: ConsoleSession, action: BulkAction, user: UserRow, group: GroupRow | null): Promise<{ event: string; details: JsonObject }> {
  switch (action) {
    case "disable": {
      // Checked again here: each user disabled before may have changed who the last administrator is.
      await check_lockout(idp.store, idp.config.admin_console.group, user, "disable", { actor_id: admin.user.id });
      const { action: event, ended } = await with_backchannel_logout(idp, user.id, () => change_user(idp.store, user, { status: "disabled" }, idp.now()));
      return { event, details: { ...(ended ?? {}), bulk: true } };
    }
    case "enable": {
      const { action: event } = await change_user(idp.store, user, { status: "active" }, idp.now());
      return { event, details: { bulk: true } };
    }
    case "add_to_group": {
      const added = await idp.store.add_group_member(group!.id, user.id, idp.now());
      return { event: "group_member_added", details: { group: group!.name, added, bulk: true } };
    }
    case "end_sessions": {
      const ended = await with_backchannel_logout(idp, user.id, () => end_user_sessions(idp.store, user.id, idp.now()));
      return { event: "sessions_ended", details: { ...ended, bulk: true } };
    }
  }
}

export const AdminConsoleUsersBulkAction = (idp: Provider) =>
  class AdminConsoleUsersBulkAction extends Fw.Renderable(Fw.Endpoint(AdminConsoleUsersBulkActionRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/users/bulk`;

    async call() {
      const input = this.admin_console_users_bulk_action_request;
      const gate = await console_gate(idp, this, BULK_PERMISSIONS[input.action]);
      if ("refused" in gate) return gate.refused;
      const { admin } = gate;
      const ip = client_ip(this.context, idp.config);
      const plan = await bulk_plan(idp, admin, input.action, selected_ids(input.ids), input.group);
      if ("problem" in plan) return this.view("admin/users", await users_page(idp, admin, {}, { error: plan.problem }), 422);
      // The token of this confirmation page (this action, group and users) alone: a 403 page otherwise.
      const token = bulk_token(admin, plan);
      check_confirmation_csrf(admin, input.csrf, token.action, token.subject);
      const problem = await reauthentication_problem(idp, admin.user, admin.session.auth_time, input.password, ip);
      if (problem !== null) {
        await record_console_event(idp, admin.user, ip, { action: `bulk_${input.action}`, outcome: "failure", details: { reason: "reauthentication", users: plan.lines.length } });
        return this.view("admin/users_bulk", bulk_values(idp, admin, plan, { error: problem }), 403);
      }
      const results = new Map<string, string | null>();
      for (const line of plan.lines) {
        const { user } = line;
        const { skip } = line;
        if (skip !== null) {
          results.set(user.id, skip);
          await record_console_event(idp, admin.user, ip, { action: input.action, outcome: "failure", user_id: user.id, details: { reason: "refused", bulk: true } });
          continue;
        }
        try {
          const { event, details } = await act(idp, admin, input.action, user, plan.group);
          results.set(user.id, null);
          await record_console_event(idp, admin.user, ip, { action: event, user_id: user.id, details });
        } catch (error) {
          results.set(user.id, refusal_words(error));
          await record_console_event(idp, admin.user, ip, {
            action: input.action,
            outcome: "failure",
            user_id: user.id,
            details: { reason: error instanceof AdminError ? error.error : "error", bulk: true },
          });
        }
      }
      // The lines as they were asked for; each skip or success in `results`.
      return this.view("admin/users_bulk", bulk_values(idp, admin, { ...plan, lines: plan.lines.map((line) => ({ ...line, skip: null })) }, { results }));
    }
  };
