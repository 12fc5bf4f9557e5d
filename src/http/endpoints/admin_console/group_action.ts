/**
 * POST /admin/groups: create or delete a group, add or remove a member (the rules of the API and
 * `idp groups`: oidc/admin/groups.ts, the store's idempotent membership). `back=user` returns to
 * the member's page, where the membership forms also are. A deletion comes only from its
 * confirmation page (group_confirm.ts: its own form token and re-authentication); a removal from
 * the admin group is sent to the member's confirmation page (user_confirm.ts `remove_admin`).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError, not_found } from "../../../oidc/admin/errors.ts";
import { create_group } from "../../../oidc/admin/groups.ts";
import { check_group_deletion, is_admin_group } from "../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { UserRow } from "../../../store/types.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { group_of } from "../admin/groups/find.ts";
import { user_of } from "../admin/users/find.ts";
import { group_danger } from "./group_confirm.ts";
import { groups_page } from "./groups.ts";
import { user_page } from "./user.ts";
import { user_confirm_url } from "./user_confirm.ts";

export const AdminConsoleGroupActionRequest = Fw.Request(
  "AdminConsoleGroupActionRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(["create", "delete", "add_member", "remove_member"]),
    group: z.string().max(256).optional(),
    description: z.string().max(1000).optional(),
    user: z.string().max(256).optional(),
    back: z.literal("user").optional(),
    password: z.string().max(4096).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleGroupAction = (idp: Provider) =>
  class AdminConsoleGroupAction extends Fw.Renderable(Fw.Endpoint(AdminConsoleGroupActionRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/groups`;

    async call() {
      const gate = await console_gate(idp, this, "manage_groups");
      if ("refused" in gate) return gate.refused;
      const { admin } = gate;
      const input = this.admin_console_group_action_request;
      // A deletion's token is its confirmation page's, checked below (confirmation_problem).
      if (input.action !== "delete") check_console_csrf(admin, input.csrf);
      const ip = client_ip(this.context, idp.config);
      const name = (input.group ?? "").trim();
      let member: UserRow | null = null;
      let danger: Danger | null = null;
      try {
        switch (input.action) {
          case "create": {
            const description = (input.description ?? "").trim();
            const group = await create_group(idp.store, name, description === "" ? null : description);
            await record_console_event(idp, admin.user, ip, { action: "group_created", details: { group: group.name } });
            return this.redirect_to(`${console_url(idp, "/groups")}?done=group_created`, 303);
          }
          case "delete": {
            const group = await group_of(idp, name);
            danger = await group_danger(idp, group);
            const problem = await confirmation_problem(idp, admin, danger, input, ip);
            if (problem !== null) {
              await record_console_event(idp, admin.user, ip, { action: "group_delete", outcome: "failure", details: { group: group.name, reason: "reauthentication" } });
              return this.view("admin/confirm", danger_values(idp, admin, danger, { error: problem }), 403);
            }
            check_group_deletion(idp, group);
            if (!(await idp.store.delete_group(group.id))) throw not_found("group", group.name);
            await record_console_event(idp, admin.user, ip, { action: "group_deleted", details: { group: group.name } });
            return this.redirect_to(`${console_url(idp, "/groups")}?done=group_deleted`, 303);
          }
          case "add_member":
          case "remove_member": {
            const group = await group_of(idp, name);
            member = await user_of(idp, (input.user ?? "").trim());
            if (input.action === "add_member") {
              const added = await idp.store.add_group_member(group.id, member.id, idp.now());
              await record_console_event(idp, admin.user, ip, { action: "group_member_added", user_id: member.id, details: { group: group.name, added } });
            } else {
              // Leaving the admin group can lock people out: confirmed on its own page, never from this form.
              if (is_admin_group(idp, group.name)) return this.redirect_to(user_confirm_url(idp, member.id, "remove_admin"), 303);
              if (!(await idp.store.remove_group_member(group.id, member.id))) throw new AdminError("not_found", `${member.username} is not in group ${group.name}`);
              await record_console_event(idp, admin.user, ip, { action: "group_member_removed", user_id: member.id, details: { group: group.name } });
            }
            const done = input.action === "add_member" ? "member_added" : "member_removed";
            return this.redirect_to(input.back === "user" ? `${console_url(idp, `/users/${member.id}`)}?done=${done}` : `${console_url(idp, "/groups")}?done=${done}`, 303);
          }
        }
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, admin.user, ip, { action: `group_${input.action}`, outcome: "failure", user_id: member?.id ?? null, details: { group: name } });
        if (danger !== null) return this.view("admin/confirm", danger_values(idp, admin, { ...danger, refusal: words }), 409);
        if (input.back === "user" && member !== null) return this.view("admin/user", await user_page(idp, admin, member, { error: words }), 409);
        // A refusal of the state (the admin group, the last administrator) is a conflict; bad input is 422.
        const status = error instanceof AdminError && error.error === "conflict" ? 409 : 422;
        return this.view("admin/groups", await groups_page(idp, admin, { error: words, form: { name, description: input.description ?? "" } }), status);
      }
    }
  };
