/**
 * GET /admin/resources/confirm?action=remove&uri=…: the confirmation page
 * (http/pages/admin_confirm.ts) of removing a resource server. It says what removing does (no
 * new token for it; tokens issued stay valid until they expire) and names the applications whose
 * token exchange policy names it (oidc/admin/resources.ts `clients_exchanging_for`): the store
 * does not refuse the removal, their exchanges for it are refused afterwards. Its form posts to
 * /admin/resources/remove (resource_remove.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { clients_exchanging_for } from "../../../oidc/admin/resources.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ResourceServerRow } from "../../../store/types.ts";
import { console_gate, console_url, console_values, type ConsoleEndpoint } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";

/** The confirmation of removing `resource`; the token is bound to its URI. */
export async function resource_danger(idp: Provider, resource: ResourceServerRow): Promise<Danger> {
  const exchanging = (await clients_exchanging_for(idp.store, resource.uri)).map((client) => client.metadata.client_name ?? client.client_id);
  return {
    kind: "resource",
    action: "remove",
    subject: resource.uri,
    page: "resources",
    heading: { key: "admin.confirm.resource_remove_title" },
    consequence:
      exchanging.length === 0
        ? { key: "admin.confirm.resource_remove", values: { uri: resource.uri } }
        : { key: "admin.confirm.resource_remove_exchange", values: { uri: resource.uri, clients: exchanging.join(", ") } },
    facts: [
      { label: "admin.resource_uri", value: resource.uri, code: true },
      { label: "admin.scopes", value: resource.scopes.join(" "), code: true },
      { label: "admin.token_format", value: resource.access_token_format },
      ...(exchanging.length === 0 ? [] : [{ label: "admin.exchanging_clients", value: exchanging.join(", ") }]),
    ],
    button: { key: "admin.remove_resource" },
    post: console_url(idp, "/resources/remove"),
    fields: { uri: resource.uri },
    back: console_url(idp, "/resources"),
    refusal: null,
  };
}

export function resource_confirm_url(idp: Provider, uri: string): string {
  return confirm_url(idp, "/resources", "remove", { uri });
}

/** The 404 page of a resource that is not (or no longer) registered. */
export function no_such_resource(idp: Provider, endpoint: Pick<ConsoleEndpoint, "view">, admin: ConsoleSession) {
  return endpoint.view(
    "message",
    {
      ...console_values(idp, admin, "resources", "No such resource server"),
      message: "This resource server is not registered (any more).",
      link: { href: console_url(idp, "/resources"), text: "Back to the resource servers" },
      form: null,
    },
    404,
  );
}

export const AdminConsoleResourceConfirmRequest = Fw.Request("AdminConsoleResourceConfirmRequest", z.object({ action: z.literal("remove"), uri: z.string().max(4096) }), {
  from: ["query"],
});

export const AdminConsoleResourceConfirm = (idp: Provider) =>
  class AdminConsoleResourceConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleResourceConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/resources/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_resources");
      if ("refused" in gate) return gate.refused;
      const resource = await idp.store.get_resource_server(this.admin_console_resource_confirm_request.uri);
      if (resource === null) return no_such_resource(idp, this, gate.admin);
      return this.view("admin/confirm", danger_values(idp, gate.admin, await resource_danger(idp, resource)));
    }
  };
