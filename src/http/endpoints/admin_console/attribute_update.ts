/**
 * POST /admin/attributes/update: saves the edit form (scope, claim name, flags; the name and type
 * stay) by the rule of `idp attributes update` (oidc/attributes/definitions.ts). The form carries
 * the ETag of the attribute as shown: a change made since by someone else is not overwritten.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of } from "../../../oidc/admin/etag.ts";
import { update_attribute } from "../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { attributes_page, type AttributeEditForm } from "./attributes.ts";
import { no_such_attribute } from "./attribute_confirm.ts";

export const AdminConsoleAttributeUpdateRequest = Fw.Request(
  "AdminConsoleAttributeUpdateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    name: z.string().max(256),
    etag: z.string().max(64).optional(),
    scope: z.string().max(256).optional(),
    claim: z.string().max(256).optional(),
    user_editable: z.literal("on").optional(),
    required: z.literal("on").optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleAttributeUpdate = (idp: Provider) =>
  class AdminConsoleAttributeUpdate extends Fw.Renderable(Fw.Endpoint(AdminConsoleAttributeUpdateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/attributes/update`;

    async call() {
      const gate = await console_gate(idp, this, "manage_attributes");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_attribute_update_request;
      check_console_csrf(gate.admin, input.csrf);
      const current = await idp.store.get_attribute_definition(input.name);
      if (current === null) return no_such_attribute(idp, this, gate.admin);
      const form: AttributeEditForm = {
        name: current.name,
        etag: input.etag ?? "",
        scope: (input.scope ?? "").trim(),
        claim: (input.claim ?? "").trim(),
        user_editable: input.user_editable === "on",
        required: input.required === "on",
      };
      const ip = client_ip(this.context, idp.config);
      try {
        check_if_match(input.etag ?? null, etag_of(current));
        const changes = {
          ...(form.scope !== current.scope && { scope: form.scope }),
          ...(form.claim !== current.claim && { claim: form.claim }),
          ...(form.user_editable !== current.user_editable && { user_editable: form.user_editable }),
          ...(form.required !== current.required && { required: form.required }),
        };
        await update_attribute(idp.store, current.name, changes, idp.now());
        await record_console_event(idp, gate.admin.user, ip, { action: "attribute_updated", details: { name: current.name, changed: Object.keys(changes) } });
        return this.redirect_to(`${console_url(idp, "/attributes")}?done=attribute_updated`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "attribute_updated", outcome: "failure", details: { name: current.name } });
        const status = error instanceof AdminError && error.error === "precondition_failed" ? 412 : 422;
        return this.view("admin/attributes", await attributes_page(idp, gate.admin, { error: words, edit: form }), status);
      }
    }
  };
