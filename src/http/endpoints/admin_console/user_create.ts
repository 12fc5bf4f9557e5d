/**
 * POST /admin/users: a new user with a password (the rules of the API's POST /users and
 * `idp users add`: oidc/admin/users.ts), then their page. A refusal shows the new-user page again
 * with what was typed (never the password) and the rule's words.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { invalid_field } from "../../../oidc/admin/errors.ts";
import { checked_username, create_user_with_password, EMAIL } from "../../../oidc/admin/users.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { new_user_page } from "./user_new.ts";

export const AdminConsoleUserCreateRequest = Fw.Request(
  "AdminConsoleUserCreateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    username: z.string().max(256).optional(),
    email: z.string().max(254).optional(),
    name: z.string().max(512).optional(),
    password: z.string().max(1024).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleUserCreate = (idp: Provider) =>
  class AdminConsoleUserCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/users`;

    async call() {
      const gate = await console_gate(idp, this, "create_users");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_user_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const typed = { username: (input.username ?? "").trim(), email: (input.email ?? "").trim(), name: (input.name ?? "").trim() };
      try {
        const checked = checked_username(typed.username);
        if ("problem" in checked) throw invalid_field("username", checked.problem);
        if (typed.email !== "" && !EMAIL.test(typed.email)) throw invalid_field("email", "is not an e-mail address");
        const user = await create_user_with_password(
          idp.store,
          idp.config,
          { username: checked.username, email: typed.email || null, name: typed.name || null },
          input.password ?? "",
        );
        await record_console_event(idp, gate.admin.user, client_ip(this.context, idp.config), { action: "user_created", user_id: user.id });
        return this.redirect_to(`${console_url(idp, `/users/${user.id}`)}?done=user_created`, 303);
      } catch (error) {
        return this.view("admin/user_new", new_user_page(idp, gate.admin, { error: refusal_words(error), form: typed }), 422);
      }
    }
  };
