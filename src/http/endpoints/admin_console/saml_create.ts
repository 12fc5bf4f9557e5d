/**
 * POST /admin/saml: registers a service provider from its metadata, pasted or fetched from its
 * URL through the outbound fence (oidc/admin/saml.ts fetch_sp_metadata, as `idp saml add
 * --metadata-url`), with a name; its other settings are edited on its page. A refusal keeps the
 * form as typed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError, invalid_field } from "../../../oidc/admin/errors.ts";
import { create_saml_service_provider, fetch_sp_metadata } from "../../../oidc/admin/saml.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { MAX_METADATA_BYTES } from "../../../oidc/saml/xml.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, refusal_words } from "../../pages/admin_console.ts";
import { saml_page, saml_sp_url, type SamlAddForm } from "./saml.ts";

export const AdminConsoleSamlCreateRequest = Fw.Request(
  "AdminConsoleSamlCreateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    name: z.string().max(256).optional(),
    metadata_xml: z.string().max(MAX_METADATA_BYTES).optional(),
    metadata_url: z.string().max(2048).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

/** The metadata the form gives: pasted, or fetched from the URL typed; one of them. */
export async function form_metadata(idp: Provider, form: { metadata_xml: string; metadata_url: string }): Promise<{ metadata_xml: string; metadata_url: string | null } | null> {
  if (form.metadata_xml !== "" && form.metadata_url !== "") throw invalid_field("metadata", "paste the metadata or give its URL, not both");
  if (form.metadata_xml !== "") return { metadata_xml: form.metadata_xml, metadata_url: null };
  if (form.metadata_url !== "") return { metadata_xml: await fetch_sp_metadata(idp, form.metadata_url), metadata_url: form.metadata_url };
  return null;
}

export const AdminConsoleSamlCreate = (idp: Provider) =>
  class AdminConsoleSamlCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleSamlCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/saml`;

    async call() {
      const gate = await console_gate(idp, this, "manage_saml");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_saml_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const form: SamlAddForm = { name: (input.name ?? "").trim(), metadata_xml: (input.metadata_xml ?? "").trim(), metadata_url: (input.metadata_url ?? "").trim() };
      const ip = client_ip(this.context, idp.config);
      try {
        const metadata = await form_metadata(idp, form);
        if (metadata === null) throw invalid_field("metadata", "paste the service provider's metadata or give its URL");
        const { row } = await create_saml_service_provider(idp.store, { ...metadata, ...(form.name === "" ? {} : { name: form.name }) }, idp.now());
        await record_console_event(idp, gate.admin.user, ip, {
          action: "saml_sp_created",
          details: { entity_id: row.entity_id, nameid_format: row.nameid_format, sign: row.sign, idp_initiated: row.idp_initiated },
        });
        return this.redirect_to(`${saml_sp_url(idp, row.entity_id)}&done=saml_sp_created`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "saml_sp_created", outcome: "failure", details: { metadata_url: form.metadata_url || null } });
        const status = error instanceof AdminError && error.error === "conflict" ? 409 : 422;
        return this.view("admin/saml", await saml_page(idp, gate.admin, { error: words, form }), status);
      }
    }
  };
