/**
 * GET /admin/groups: every group with its members (groups are few: one page), the forms to change
 * them, and the links to the confirmation of a deletion (group_confirm.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { is_admin_group } from "../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_notice, console_values } from "../../pages/admin_console.ts";
import { group_confirm_url } from "./group_confirm.ts";

export const AdminConsoleGroupsRequest = Fw.Request("AdminConsoleGroupsRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

export async function groups_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const groups = await Promise.all(
    (await idp.store.list_groups()).map(async (group) => ({
      ...group,
      members: (await idp.store.list_group_members(group.id)).map((member) => member.username),
      // The admin group is never deleted (lasting_power.ts): no link, a sentence saying why.
      delete_url: is_admin_group(idp, group.name) ? null : group_confirm_url(idp, group.name),
    })),
  );
  return console_values(idp, admin, "groups", "Groups", { groups, admin_group: idp.config.admin_console.group, form: { name: "", description: "" }, ...extra });
}

export const AdminConsoleGroups = (idp: Provider) =>
  class AdminConsoleGroups extends Fw.Renderable(Fw.Endpoint(AdminConsoleGroupsRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/groups`;

    async call() {
      const gate = await console_gate(idp, this, "view_groups");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/groups", await groups_page(idp, gate.admin, { notice: console_notice(this.admin_console_groups_request.done) }));
    }
  };
