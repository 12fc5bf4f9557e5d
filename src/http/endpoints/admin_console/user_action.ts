/**
 * POST /admin/users/:id/actions: one action on a user, each by the rule the API uses:
 * enable (oidc/admin/users.ts change_user), send a password reset link
 * (oidc/accounts/password_reset.ts), end one session (logout/end_session.ts, as the account page does:
 * its tokens revoked, back-channel logout sent), withdraw a consent (as the account page and the
 * API's DELETE …/grants/:client_id do: the grant and every token of the application for the user go;
 * not outage-causing, so the form token is enough), and the destructive ones, which come only from
 * their confirmation page (user_confirm.ts: its own form token and re-authentication): delete,
 * disable, reset second factors, end every session, remove from the admin group. Never oneself,
 * never the last administrator (oidc/admin/lockout.ts).
 * Whatever ends sessions (disable, delete, the reset, end every session) sends their clients
 * back-channel logout (logout/bulk.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError, not_found } from "../../../oidc/admin/errors.ts";
import { check_lockout } from "../../../oidc/admin/lockout.ts";
import { change_user, reset_second_factors } from "../../../oidc/admin/users.ts";
import { mail_reset_link, reset_refusal } from "../../../oidc/accounts/password_reset.ts";
import { with_backchannel_logout } from "../../../oidc/logout/bulk.ts";
import { end_session } from "../../../oidc/logout/end_session.ts";
import { session_sid } from "../../../oidc/logout/sid.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { end_user_sessions } from "../../../oidc/signin/sessions.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { USER_ACTION_PERMISSIONS, may_act_on } from "../../../oidc/admin/roles.ts";
import { console_gate, console_url, refusal_words, role_refusal, TARGET_REFUSAL } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { user_of } from "../admin/users/find.ts";
import { user_page } from "./user.ts";
import { USER_DANGERS, user_danger, type UserDanger } from "./user_confirm.ts";

const ACTIONS = ["enable", "send_reset", "end_session", "revoke_consent", ...USER_DANGERS] as const;
/** The actions that cannot be undone, or lock a person out: confirmed on their own page first. */
const DESTRUCTIVE: ReadonlySet<string> = new Set(USER_DANGERS);

export const AdminConsoleUserActionRequest = Fw.Request(
  "AdminConsoleUserActionRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(ACTIONS),
    // A sid: SHA-256 in base64url (logout/sid.ts).
    session: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, "must be a session id from the user's page")
      .optional(),
    // The application whose consent goes (revoke_consent).
    client: z.string().min(1).max(256).optional(),
    password: z.string().max(4096).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleUserAction = (idp: Provider) =>
  class AdminConsoleUserAction extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserActionRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/users/:id/actions`;

    async call() {
      const input = this.admin_console_user_action_request;
      // What the role may do (oidc/admin/roles.ts), before anything else.
      const gate = await console_gate(idp, this, USER_ACTION_PERMISSIONS[input.action]);
      if ("refused" in gate) return gate.refused;
      const { admin } = gate;
      // A destructive action's token is its confirmation page's, checked below (confirmation_problem).
      if (!DESTRUCTIVE.has(input.action)) check_console_csrf(admin, input.csrf);
      const user = await user_of(idp, this.route_params.id ?? "");
      // The helpdesk acts on people without a console role only.
      if (!(await may_act_on(idp, admin.roles, user))) return role_refusal(idp, this, admin, TARGET_REFUSAL);
      const ip = client_ip(this.context, idp.config);
      const audit = (action: string, details: Record<string, string | number | boolean | null> = {}, outcome: "success" | "failure" = "success") =>
        record_console_event(idp, admin.user, ip, { action, outcome, user_id: user.id, details });
      const back = (done: string) => this.redirect_to(`${console_url(idp, `/users/${user.id}`)}?done=${done}`, 303);
      const danger: Danger | null = DESTRUCTIVE.has(input.action) ? await user_danger(idp, admin, user, input.action as UserDanger) : null;
      try {
        if (danger !== null) {
          const problem = await confirmation_problem(idp, admin, danger, input, ip);
          if (problem !== null) {
            await audit(input.action, { reason: "reauthentication" }, "failure");
            return this.view("admin/confirm", danger_values(idp, admin, danger, { error: problem }), 403);
          }
        }
        const group = idp.config.admin_console.group;
        switch (input.action) {
          case "disable":
          case "enable": {
            // Never oneself, never the last active administrator (oidc/admin/lockout.ts).
            if (input.action === "disable") await check_lockout(idp.store, group, user, "disable", { actor_id: admin.user.id });
            const status = input.action === "disable" ? "disabled" : "active";
            const change = () => change_user(idp.store, user, { status }, idp.now());
            const { action, ended } = await (status === "disabled" ? with_backchannel_logout(idp, user.id, change) : change());
            await audit(action, ended ?? {});
            return back(action);
          }
          case "remove_admin": {
            await check_lockout(idp.store, group, user, "remove_admin", { actor_id: admin.user.id });
            const row = await idp.store.get_group_by_name(group);
            if (row === null || !(await idp.store.remove_group_member(row.id, user.id))) throw new AdminError("not_found", `${user.username} is not in group ${group}`);
            await audit("group_member_removed", { group: row.name });
            return back("member_removed");
          }
          case "send_reset": {
            if (!idp.mail.enabled) throw new AdminError("conflict", "mail is off: set IDP_SMTP_URL and IDP_MAIL_FROM, or set a password for the user");
            const refused = reset_refusal(user);
            if (refused !== null) throw new AdminError("conflict", refused);
            await mail_reset_link(idp, user);
            await audit("password_reset_requested");
            return back("reset_sent");
          }
          case "end_session": {
            const row = (await idp.store.list_sessions_for_user(user.id)).find((session) => session_sid(session.id_hash) === input.session);
            // Already gone (ended elsewhere, expired): the outcome is the one asked for.
            if (row !== undefined) await end_session(idp, { session: row, user }, { client_id: null, ip: ip || null, initiator: "admin" });
            await audit("session_ended");
            return back("session_ended");
          }
          case "revoke_consent": {
            const client_id = input.client ?? "";
            const removed = await idp.store.delete_grant(user.id, client_id);
            // RFC 7009 §2.1: the tokens based on the authorization go with it (refresh tokens included).
            const revoked = await idp.store.revoke_for_user_client(user.id, client_id, idp.now());
            if (!removed && revoked === 0) throw not_found("grant of that user for client", client_id);
            await record_console_event(idp, admin.user, ip, { action: "consent_revoked", user_id: user.id, client_id, details: { tokens_revoked: revoked } });
            return back("consent_revoked");
          }
          case "end_sessions": {
            const ended = await with_backchannel_logout(idp, user.id, () => end_user_sessions(idp.store, user.id, idp.now()));
            await audit("sessions_ended", ended);
            return back("sessions_ended");
          }
          case "reset_second_factors": {
            const ended = await with_backchannel_logout(idp, user.id, () => reset_second_factors(idp.store, user, idp.now()));
            await audit("two_factor_removed", ended);
            return back("second_factors_reset");
          }
          case "delete": {
            await check_lockout(idp.store, group, user, "delete", { actor_id: admin.user.id });
            if (!(await with_backchannel_logout(idp, user.id, () => idp.store.delete_user(user.id)))) throw not_found("user", user.id);
            await audit("user_deleted", { username: user.username });
            return this.redirect_to(`${console_url(idp, "/users")}?done=user_deleted`, 303);
          }
        }
      } catch (error) {
        const words = refusal_words(error);
        await audit(input.action, { reason: error instanceof AdminError ? error.error : "error" }, "failure");
        // A destructive action's refusal stays on its confirmation page, without the form.
        if (danger !== null) return this.view("admin/confirm", danger_values(idp, admin, { ...danger, refusal: words }), 409);
        return this.view("admin/user", await user_page(idp, admin, user, { error: words }), 409);
      }
    }
  };
