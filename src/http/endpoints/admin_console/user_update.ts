/**
 * POST /admin/users/:id: saves the profile form. The form carries the ETag of the user as shown
 * (oidc/admin/etag.ts, the API's If-Match rule): a user changed since by someone else is not
 * overwritten, the page says so. The fields are checked by the API's schema (UserPatchSchema)
 * and applied by its rule (oidc/admin/users.ts change_user).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of } from "../../../oidc/admin/etag.ts";
import { change_user } from "../../../oidc/admin/users.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { UserPatchSchema } from "../admin/schemas.ts";
import { user_of, user_view } from "../admin/users/find.ts";
import { user_page } from "./user.ts";

const text = z.string().max(2048).optional();

export const AdminConsoleUserUpdateRequest = Fw.Request(
  "AdminConsoleUserUpdateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    etag: z.string().max(64).optional(),
    name: text,
    given_name: text,
    family_name: text,
    email: text,
    email_verified: z.literal("on").optional(),
    phone_number: text,
  }),
  { from: ["body"], on_invalid: invalid_form },
);

const FIELDS = ["name", "given_name", "family_name", "email", "phone_number"] as const;

export const AdminConsoleUserUpdate = (idp: Provider) =>
  class AdminConsoleUserUpdate extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserUpdateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/users/:id`;

    async call() {
      const gate = await console_gate(idp, this, "edit_users");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_user_update_request;
      check_console_csrf(gate.admin, input.csrf);
      const current = await user_of(idp, this.route_params.id ?? "");
      const ip = client_ip(this.context, idp.config);
      try {
        check_if_match(input.etag ?? null, etag_of(await user_view(idp, current)));
        // An emptied field clears the member (null), as in the API.
        const patch: Record<string, unknown> = {};
        for (const field of FIELDS) patch[field] = (input[field] ?? "").trim() === "" ? null : input[field]!.trim();
        patch.email_verified = input.email_verified === "on" && patch.email !== null;
        const parsed = UserPatchSchema.safeParse(patch);
        if (!parsed.success) {
          const errors = parsed.error.issues.map((issue) => ({ field: String(issue.path[0] ?? "form"), message: issue.message }));
          throw new AdminError("invalid_request", errors.map((e) => `${e.field}: ${e.message}`).join("; "), errors);
        }
        // Only what differs counts as changed (the audit names it).
        const changed = Object.fromEntries(Object.entries(parsed.data).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(current[key as keyof typeof current])));
        const { user } = await change_user(idp.store, current, changed, idp.now());
        await record_console_event(idp, gate.admin.user, ip, { action: "user_updated", user_id: user.id, details: { changed: Object.keys(changed) } });
        return this.redirect_to(`${console_url(idp, `/users/${user.id}`)}?done=user_updated`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, {
          action: "user_updated",
          outcome: "failure",
          user_id: current.id,
          details: { reason: error instanceof AdminError ? error.error : "error" },
        });
        return this.view(
          "admin/user",
          await user_page(idp, gate.admin, current, { error: words }),
          error instanceof AdminError && error.error === "precondition_failed" ? 412 : 422,
        );
      }
    }
  };
