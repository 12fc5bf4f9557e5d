/**
 * GET /admin/users/:id: one user: the profile form (with the ETag of what it shows, so a save
 * over someone else's change is refused), status, groups, browser sessions, the harmless actions,
 * and the links to the confirmation pages of the destructive ones (user_confirm.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { session_sid } from "../../../oidc/logout/sid.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { UserRow } from "../../../store/types.ts";
import { user_of, user_view } from "../admin/users/find.ts";
import { describe_user_agent, user_agent_message } from "../../pages/sessions.ts";
import { may_act_on } from "../../../oidc/admin/roles.ts";
import { console_can, console_gate, console_notice, console_url, console_values, when } from "../../pages/admin_console.ts";
import { USER_DANGERS, user_confirm_url } from "./user_confirm.ts";

export const AdminConsoleUserRequest = Fw.Request("AdminConsoleUserRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The user page's values; `extra` carries a refusal's words and, on a stale save, nothing else. */
export async function user_page(idp: Provider, admin: ConsoleSession, user: UserRow, extra: Record<string, unknown> = {}) {
  const view = await user_view(idp, user);
  const now = idp.now();
  const sessions = (await idp.store.list_sessions_for_user(user.id))
    .filter((row) => row.expires_at > now)
    .map((row) => ({
      sid: session_sid(row.id_hash),
      device: describe_user_agent(row.user_agent),
      device_message: user_agent_message(row.user_agent),
      ip: row.ip,
      signed_in: when(row.auth_time),
      last_seen: when(row.last_seen_at),
      amr: row.amr.join(", "),
    }));
  // The helpdesk sees, but does not act on, someone with a console role (oidc/admin/roles.ts).
  const can = console_can(admin);
  if (!(await may_act_on(idp, admin.roles, user))) for (const permission of Object.keys(can) as (keyof typeof can)[]) if (!permission.startsWith("view_")) can[permission] = false;
  const all_groups = (await idp.store.list_groups()).map((group) => group.name).filter((name) => !view.groups.includes(name));
  return console_values(idp, admin, "users", `User ${user.username}`, {
    // The heading in the page's language (views/admin/_nav.eta): a catalog message with the name.
    heading_message: { key: "admin.title.user", values: { username: user.username } },
    user: view,
    etag: etag_of(view),
    created: when(user.created_at),
    sessions,
    other_groups: all_groups,
    action: console_url(idp, `/users/${user.id}`),
    audit: `${console_url(idp, "/audit")}?${new URLSearchParams({ user: user.id })}`,
    mail: idp.mail.enabled,
    // The destructive actions are links to their confirmation pages (user_confirm.ts), never buttons of a form here.
    confirm: Object.fromEntries(USER_DANGERS.map((action) => [action, user_confirm_url(idp, user.id, action)])),
    admin_group: idp.config.admin_console.group.toLowerCase(),
    can,
    ...extra,
  });
}

export const AdminConsoleUser = (idp: Provider) =>
  class AdminConsoleUser extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/users/:id`;

    async call() {
      const gate = await console_gate(idp, this, "view_users");
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
      return this.view("admin/user", await user_page(idp, gate.admin, user, { notice: console_notice(this.admin_console_user_request.done) }));
    }
  };
