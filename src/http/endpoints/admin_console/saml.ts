/**
 * GET /admin/saml: the SAML 2.0 service providers ("SAML applications"), each with its entityID,
 * NameID format, what is signed and who may sign in, a link to its page (saml_sp.ts); and the
 * form to add one from its metadata, pasted or fetched from its URL through the outbound fence
 * (saml_create.ts), by the rules of `idp saml add` (oidc/admin/saml.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { invalid_field } from "../../../oidc/admin/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { idp_entity_id } from "../../../oidc/saml/metadata.ts";
import { console_gate, console_notice, console_url, console_values, type ConsoleEndpoint } from "../../pages/admin_console.ts";

export const AdminConsoleSamlRequest = Fw.Request("AdminConsoleSamlRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The add form as typed: kept when the rules refuse it. */
export type SamlAddForm = { name: string; metadata_xml: string; metadata_url: string };

/** The link to a service provider's page: entityIDs are URIs, so it goes in the query. */
export function saml_sp_url(idp: Provider, entity_id: string): string {
  return `${console_url(idp, "/saml/sp")}?${new URLSearchParams({ entity_id })}`;
}

/** Extra attributes typed one a line, `NAME=CLAIM` as `idp saml --attribute` takes them. */
export function attribute_lines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/).map((entry) => entry.trim())) {
    if (line === "") continue;
    const at = line.lastIndexOf("=");
    if (at <= 0 || at === line.length - 1) throw invalid_field("attributes", `each line must be NAME=CLAIM (employeeType=groups), not "${line}"`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/** Group names separated by spaces or commas. */
export function group_words(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name !== "");
}

export async function saml_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const providers = (await idp.store.list_saml_service_providers()).map((row) => ({
    entity_id: row.entity_id,
    name: row.name,
    nameid_format: row.nameid_format,
    sign: row.sign,
    idp_initiated: row.idp_initiated,
    groups: row.allowed_groups,
    href: saml_sp_url(idp, row.entity_id),
  }));
  return console_values(idp, admin, "saml", "SAML applications", {
    providers,
    idp_metadata_url: idp_entity_id(idp),
    form: { name: "", metadata_xml: "", metadata_url: "" } satisfies SamlAddForm,
    ...extra,
  });
}

/** The 404 page of a service provider that is not (or no longer) registered. */
export function no_such_saml_sp(idp: Provider, endpoint: Pick<ConsoleEndpoint, "view">, admin: ConsoleSession) {
  return endpoint.view(
    "message",
    {
      ...console_values(idp, admin, "saml", "No such SAML application"),
      message: "This SAML application is not registered (any more).",
      link: { href: console_url(idp, "/saml"), text: "Back to the SAML applications" },
      form: null,
    },
    404,
  );
}

export const AdminConsoleSaml = (idp: Provider) =>
  class AdminConsoleSaml extends Fw.Renderable(Fw.Endpoint(AdminConsoleSamlRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/saml`;

    async call() {
      const gate = await console_gate(idp, this, "view_saml");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/saml", await saml_page(idp, gate.admin, { notice: console_notice(this.admin_console_saml_request.done) }));
    }
  };
