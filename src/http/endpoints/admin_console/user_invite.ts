/**
 * POST /admin/users/invite: invites a person by e-mail (the rules of `idp users invite`:
 * oidc/accounts/invitations.ts): an invited account and a single-use link mailed to them. Offered only
 * when mail is on and invitation links are served (IDP_SIGNUP invite or open).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { InvitationRefused, invite } from "../../../oidc/accounts/invitations.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, invitations_available } from "../../pages/admin_console.ts";
import { new_user_page } from "./user_new.ts";

export const AdminConsoleUserInviteRequest = Fw.Request(
  "AdminConsoleUserInviteRequest",
  z.object({ csrf: z.string().max(256).optional(), email: z.string().max(254).optional(), name: z.string().max(512).optional(), username: z.string().max(256).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleUserInvite = (idp: Provider) =>
  class AdminConsoleUserInvite extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserInviteRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/users/invite`;

    async call() {
      const gate = await console_gate(idp, this, "create_users");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_user_invite_request;
      check_console_csrf(gate.admin, input.csrf);
      const typed = { email: (input.email ?? "").trim(), name: (input.name ?? "").trim(), username: (input.username ?? "").trim() };
      const ip = client_ip(this.context, idp.config);
      try {
        if (!invitations_available(idp)) throw new AdminError("conflict", "Invitations need mail (IDP_SMTP_URL) and IDP_SIGNUP set to invite or open.");
        const { user, resent } = await invite(idp, { email: typed.email, name: typed.name || null, username: typed.username || null }, { ip });
        await record_console_event(idp, gate.admin.user, ip, { action: "user_invited", user_id: user.id, details: { resent } });
        return this.redirect_to(`${console_url(idp, `/users/${user.id}`)}?done=user_invited`, 303);
      } catch (error) {
        const words = error instanceof InvitationRefused ? error.message : error instanceof AdminError ? error.message : null;
        if (words === null) throw error;
        return this.view("admin/user_new", new_user_page(idp, gate.admin, { error: words, invite_form: typed }), 422);
      }
    }
  };
