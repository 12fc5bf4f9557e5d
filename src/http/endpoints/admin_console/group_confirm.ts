/**
 * GET /admin/groups/confirm?action=delete&group=NAME: the confirmation page (http/pages/admin_confirm.ts)
 * of deleting a group and its memberships. Its form posts to /admin/groups (group_action.ts).
 * The configured admin group is refused here already, saying why (lasting_power.ts
 * `check_group_deletion`).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_group_deletion } from "../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { GroupRow } from "../../../store/types.ts";
import { console_gate, console_url, console_values } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { group_of } from "../admin/groups/find.ts";

/** The confirmation of deleting `group`. */
export async function group_danger(idp: Provider, group: GroupRow): Promise<Danger> {
  const members = (await idp.store.list_group_members(group.id)).length;
  let refusal: string | null = null;
  try {
    check_group_deletion(idp, group);
  } catch (error) {
    if (!(error instanceof AdminError)) throw error;
    refusal = error.message;
  }
  return {
    kind: "group",
    action: "delete",
    subject: group.id,
    page: "groups",
    heading: { key: "admin.confirm.group_delete_title", values: { group: group.name } },
    consequence: { key: "admin.confirm.group_delete", values: { group: group.name, members } },
    facts: [{ label: "account.name", value: group.name, code: true }, ...(group.description === null ? [] : [{ label: "admin.description", value: group.description }])],
    button: { key: "admin.delete_group" },
    post: console_url(idp, "/groups"),
    fields: { action: "delete", group: group.name },
    back: console_url(idp, "/groups"),
    refusal,
  };
}

/** The link to the confirmation of deleting the group `name`. */
export function group_confirm_url(idp: Provider, name: string): string {
  return confirm_url(idp, "/groups", "delete", { group: name });
}

export const AdminConsoleGroupConfirmRequest = Fw.Request("AdminConsoleGroupConfirmRequest", z.object({ action: z.literal("delete"), group: z.string().max(256) }), {
  from: ["query"],
});

export const AdminConsoleGroupConfirm = (idp: Provider) =>
  class AdminConsoleGroupConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleGroupConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/groups/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_groups");
      if ("refused" in gate) return gate.refused;
      let group: GroupRow;
      try {
        group = await group_of(idp, this.admin_console_group_confirm_request.group);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return this.view(
          "message",
          {
            ...console_values(idp, gate.admin, "groups", "No such group"),
            message: "This group does not exist (any more).",
            link: { href: console_url(idp, "/groups"), text: "Back to groups" },
            form: null,
          },
          404,
        );
      }
      const danger = await group_danger(idp, group);
      return this.view("admin/confirm", danger_values(idp, gate.admin, danger), danger.refusal === null ? 200 : 409);
    }
  };
