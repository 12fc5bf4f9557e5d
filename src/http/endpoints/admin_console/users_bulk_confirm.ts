/**
 * GET /admin/users/bulk?action=…&id=…&id=…: the one confirmation page of a bulk action on the
 * users selected on the users page (http/pages/admin_bulk.ts): it lists them, says which are
 * skipped and why (the single action's rules), and holds the only form that performs it, with
 * its own token and the administrator's password. It posts to users_bulk_action.ts.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_page_request } from "../../errors.ts";
import { BULK_ACTIONS, BULK_PERMISSIONS, bulk_plan, bulk_values, MAX_BULK, selected_ids } from "../../pages/admin_bulk.ts";
import { console_gate } from "../../pages/admin_console.ts";
import { users_page } from "./users.ts";

export const AdminConsoleUsersBulkConfirmRequest = Fw.Request(
  "AdminConsoleUsersBulkConfirmRequest",
  z.object({
    action: z.enum(BULK_ACTIONS),
    id: z.union([z.string().max(64), z.array(z.string().max(64)).max(MAX_BULK)]).optional(),
    group: z.string().max(256).optional(),
  }),
  { from: ["query"], on_invalid: invalid_page_request("The selection could not be read", (issues) => `Go back to the users page and try again (${issues}).`) },
);

export const AdminConsoleUsersBulkConfirm = (idp: Provider) =>
  class AdminConsoleUsersBulkConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleUsersBulkConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/users/bulk`;

    async call() {
      const input = this.admin_console_users_bulk_confirm_request;
      const gate = await console_gate(idp, this, BULK_PERMISSIONS[input.action]);
      if ("refused" in gate) return gate.refused;
      const plan = await bulk_plan(idp, gate.admin, input.action, selected_ids(input.id), input.group);
      if ("problem" in plan) return this.view("admin/users", await users_page(idp, gate.admin, {}, { error: plan.problem }), 422);
      return this.view("admin/users_bulk", bulk_values(idp, gate.admin, plan));
    }
  };
