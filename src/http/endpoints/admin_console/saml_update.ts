/**
 * POST /admin/saml/sp: saves a SAML application's edit form by the rules of `idp saml update`
 * (oidc/admin/saml.ts): name, NameID format, extra attributes (the lines replace them), allowed
 * groups (replaced), IdP-initiated sign-in, what is signed, and new metadata when pasted or
 * fetched (of the same entityID). The form carries the ETag it was read at (oidc/admin/etag.ts):
 * a change made since by someone else is not overwritten.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of } from "../../../oidc/admin/etag.ts";
import { update_saml_service_provider } from "../../../oidc/admin/saml.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { MAX_METADATA_BYTES } from "../../../oidc/saml/xml.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, refusal_words } from "../../pages/admin_console.ts";
import { attribute_lines, group_words, no_such_saml_sp, saml_sp_url } from "./saml.ts";
import { form_metadata } from "./saml_create.ts";
import { saml_sp_page, type SamlEditForm } from "./saml_sp.ts";

export const AdminConsoleSamlUpdateRequest = Fw.Request(
  "AdminConsoleSamlUpdateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    etag: z.string().max(64).optional(),
    entity_id: z.string().max(1024),
    name: z.string().max(256).optional(),
    nameid_format: z.string().max(32).optional(),
    attributes: z.string().max(65536).optional(),
    groups: z.string().max(8192).optional(),
    idp_initiated: z.string().max(8).optional(),
    encrypt: z.string().max(8).optional(),
    sign: z.string().max(16).optional(),
    metadata_xml: z.string().max(MAX_METADATA_BYTES).optional(),
    metadata_url: z.string().max(2048).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleSamlUpdate = (idp: Provider) =>
  class AdminConsoleSamlUpdate extends Fw.Renderable(Fw.Endpoint(AdminConsoleSamlUpdateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/saml/sp`;

    async call() {
      const gate = await console_gate(idp, this, "manage_saml");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_saml_update_request;
      check_console_csrf(gate.admin, input.csrf);
      const row = await idp.store.get_saml_service_provider(input.entity_id);
      if (row === null) return no_such_saml_sp(idp, this, gate.admin);
      const form: SamlEditForm = {
        name: input.name ?? "",
        nameid_format: input.nameid_format ?? row.nameid_format,
        attributes: input.attributes ?? "",
        groups: input.groups ?? "",
        idp_initiated: input.idp_initiated !== undefined,
        encrypt: input.encrypt !== undefined,
        sign: input.sign ?? row.sign,
        metadata_xml: (input.metadata_xml ?? "").trim(),
        metadata_url: (input.metadata_url ?? "").trim(),
      };
      const ip = client_ip(this.context, idp.config);
      try {
        check_if_match(input.etag === undefined || input.etag === "" ? null : input.etag, etag_of(row));
        const metadata = await form_metadata(idp, form);
        await update_saml_service_provider(
          idp.store,
          row.entity_id,
          {
            ...(metadata ?? {}),
            name: form.name,
            nameid_format: form.nameid_format,
            attributes: attribute_lines(form.attributes),
            allowed_groups: group_words(form.groups),
            idp_initiated: form.idp_initiated,
            encrypt: form.encrypt,
            sign: form.sign,
          },
          idp.now(),
        );
        await record_console_event(idp, gate.admin.user, ip, { action: "saml_sp_updated", details: { entity_id: row.entity_id, metadata: metadata !== null } });
        return this.redirect_to(`${saml_sp_url(idp, row.entity_id)}&done=saml_sp_updated`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "saml_sp_updated", outcome: "failure", details: { entity_id: row.entity_id } });
        const code = error instanceof AdminError ? error.error : "";
        const status = code === "conflict" || code === "precondition_failed" ? 409 : 422;
        return this.view("admin/saml_sp", saml_sp_page(idp, gate.admin, row, { error: words, form, etag: input.etag ?? "" }), status);
      }
    }
  };
