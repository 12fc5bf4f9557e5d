/**
 * POST /admin/attributes: declares a custom attribute by the rules of `idp attributes add` and the
 * admin API (oidc/attributes/definitions.ts): the same checks, the same words when they refuse,
 * and the form kept as typed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { add_attribute } from "../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { attributes_page, type AttributeForm } from "./attributes.ts";

export const AdminConsoleAttributeCreateRequest = Fw.Request(
  "AdminConsoleAttributeCreateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    name: z.string().max(256).optional(),
    type: z.string().max(32).optional(),
    scope: z.string().max(256).optional(),
    claim: z.string().max(256).optional(),
    user_editable: z.literal("on").optional(),
    required: z.literal("on").optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleAttributeCreate = (idp: Provider) =>
  class AdminConsoleAttributeCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleAttributeCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/attributes`;

    async call() {
      const gate = await console_gate(idp, this, "manage_attributes");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_attribute_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const form: AttributeForm = {
        name: (input.name ?? "").trim(),
        type: input.type ?? "string",
        scope: (input.scope ?? "").trim(),
        claim: (input.claim ?? "").trim(),
        user_editable: input.user_editable === "on",
        required: input.required === "on",
      };
      const ip = client_ip(this.context, idp.config);
      try {
        const row = await add_attribute(idp.store, { ...form, scope: form.scope === "" ? undefined : form.scope, claim: form.claim === "" ? undefined : form.claim }, idp.now());
        await record_console_event(idp, gate.admin.user, ip, { action: "attribute_created", details: { name: row.name, type: row.type, scope: row.scope, claim: row.claim } });
        return this.redirect_to(`${console_url(idp, "/attributes")}?done=attribute_created`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "attribute_created", outcome: "failure", details: { name: form.name } });
        const status = error instanceof AdminError && error.error === "conflict" ? 409 : 422;
        return this.view("admin/attributes", await attributes_page(idp, gate.admin, { error: words, form }), status);
      }
    }
  };
