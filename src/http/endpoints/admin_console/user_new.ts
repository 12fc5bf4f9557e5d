/**
 * GET /admin/users/new: the forms that add a person: a user with an initial password (posted to
 * user_create.ts) and, when mail is on and invitation links are served, an invitation by e-mail
 * (user_invite.ts). A refusal of either shows this page again with what was typed.
 */
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_url, console_values, invitations_available } from "../../pages/admin_console.ts";

export type NewUserForm = { username: string; email: string; name: string };
export type InviteForm = { email: string; name: string; username: string };

/** The new-user page's values; `extra` carries what was typed (`form`, `invite_form`) and the refusal, if any. */
export function new_user_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  return console_values(idp, admin, "users", "New user", {
    form: { username: "", email: "", name: "" } satisfies NewUserForm,
    invite: invitations_available(idp),
    invite_form: { email: "", name: "", username: "" } satisfies InviteForm,
    back: console_url(idp, "/users"),
    ...extra,
  });
}

export const AdminConsoleUserNew = (idp: Provider) =>
  class AdminConsoleUserNew extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/users/new`;

    async call() {
      const gate = await console_gate(idp, this, "create_users");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/user_new", new_user_page(idp, gate.admin));
    }
  };
