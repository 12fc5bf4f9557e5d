/**
 * GET /admin/attributes/confirm?action=remove&name=…: the confirmation page
 * (http/pages/admin_confirm.ts) of removing a custom attribute: it says that every user's value
 * goes with it and that applications no longer receive its claim.
 * Its form posts to /admin/attributes/remove (attribute_remove.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { AttributeDefinitionRow } from "../../../store/types.ts";
import { console_gate, console_url, console_values, type ConsoleEndpoint } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";

/** The confirmation of removing `attribute`; the token is bound to its name. */
export function attribute_danger(idp: Provider, attribute: AttributeDefinitionRow): Danger {
  return {
    kind: "attribute",
    action: "remove",
    subject: attribute.name,
    page: "attributes",
    heading: { key: "admin.confirm.attribute_remove_title" },
    consequence: { key: "admin.confirm.attribute_remove", values: { name: attribute.name, claim: attribute.claim } },
    facts: [
      { label: "admin.attribute_name", value: attribute.name, code: true },
      { label: "admin.attribute_claim", value: attribute.claim, code: true },
      { label: "admin.attribute_scope", value: attribute.scope, code: true },
    ],
    button: { key: "admin.remove_attribute" },
    post: console_url(idp, "/attributes/remove"),
    fields: { name: attribute.name },
    back: console_url(idp, "/attributes"),
    refusal: null,
  };
}

export function attribute_confirm_url(idp: Provider, name: string): string {
  return confirm_url(idp, "/attributes", "remove", { name });
}

/** The 404 page of an attribute that is not (or no longer) declared. */
export function no_such_attribute(idp: Provider, endpoint: Pick<ConsoleEndpoint, "view">, admin: ConsoleSession) {
  return endpoint.view(
    "message",
    {
      ...console_values(idp, admin, "attributes", "No such attribute"),
      message: "This attribute is not declared (any more).",
      link: { href: console_url(idp, "/attributes"), text: "Back to the attributes" },
      form: null,
    },
    404,
  );
}

export const AdminConsoleAttributeConfirmRequest = Fw.Request("AdminConsoleAttributeConfirmRequest", z.object({ action: z.literal("remove"), name: z.string().max(256) }), {
  from: ["query"],
});

export const AdminConsoleAttributeConfirm = (idp: Provider) =>
  class AdminConsoleAttributeConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleAttributeConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/attributes/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_attributes");
      if ("refused" in gate) return gate.refused;
      const attribute = await idp.store.get_attribute_definition(this.admin_console_attribute_confirm_request.name);
      if (attribute === null) return no_such_attribute(idp, this, gate.admin);
      return this.view("admin/confirm", danger_values(idp, gate.admin, attribute_danger(idp, attribute)));
    }
  };
