/**
 * GET /admin/saml/sp?entity_id=…: a SAML application: its entityID, assertion consumer services,
 * our metadata URL to give it, the NameID format it gets, its extra attributes, the groups
 * allowed, IdP-initiated sign-in and what is signed; the edit form (saml_update.ts, with the ETag
 * it was read at) and the link to remove it (saml_confirm.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import { SAML_SIGN_MODES } from "../../../oidc/admin/saml.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { idp_entity_id } from "../../../oidc/saml/metadata.ts";
import { NAMEID_FORMAT_NAMES } from "../../../oidc/saml/names.ts";
import { stored_sp_metadata } from "../../../oidc/saml/sp_metadata.ts";
import type { SamlServiceProviderRow } from "../../../store/types.ts";
import { console_gate, console_notice, console_url, console_values, when } from "../../pages/admin_console.ts";
import { confirm_url } from "../../pages/admin_confirm.ts";
import { no_such_saml_sp, saml_sp_url } from "./saml.ts";

export const AdminConsoleSamlSpRequest = Fw.Request("AdminConsoleSamlSpRequest", z.object({ entity_id: z.string().max(1024), done: z.string().max(64).optional() }), {
  from: ["query"],
});

/** The edit form as typed: kept when the rules refuse it. */
export type SamlEditForm = {
  name: string;
  nameid_format: string;
  attributes: string;
  groups: string;
  idp_initiated: boolean;
  encrypt: boolean;
  sign: string;
  metadata_xml: string;
  metadata_url: string;
};

export function saml_form_from(row: SamlServiceProviderRow): SamlEditForm {
  return {
    name: row.name,
    nameid_format: row.nameid_format,
    attributes: Object.entries(row.attributes)
      .map(([name, claim]) => `${name}=${claim}`)
      .join("\n"),
    groups: row.allowed_groups.join(" "),
    idp_initiated: row.idp_initiated,
    encrypt: row.encrypt,
    sign: row.sign,
    metadata_xml: "",
    metadata_url: "",
  };
}

export function saml_sp_page(idp: Provider, admin: ConsoleSession, row: SamlServiceProviderRow, extra: Record<string, unknown> = {}) {
  const metadata = stored_sp_metadata(row.metadata_xml);
  return console_values(idp, admin, "saml", "SAML application", {
    sp: {
      entity_id: row.entity_id,
      name: row.name,
      acs: metadata.acs.map((acs) => acs.location),
      authn_requests_signed: metadata.authn_requests_signed,
      nameid_format: row.nameid_format,
      attributes: Object.entries(row.attributes).map(([name, claim]) => ({ name, claim })),
      groups: row.allowed_groups,
      idp_initiated: row.idp_initiated,
      sign: row.sign,
      encrypt: row.encrypt,
      metadata_url: row.metadata_url,
      created: when(row.created_at),
      updated: when(row.updated_at),
    },
    idp_metadata_url: idp_entity_id(idp),
    nameid_formats: NAMEID_FORMAT_NAMES,
    sign_modes: SAML_SIGN_MODES,
    action: console_url(idp, "/saml/sp"),
    remove_url: confirm_url(idp, "/saml", "remove", { entity_id: row.entity_id }),
    back: console_url(idp, "/saml"),
    self: saml_sp_url(idp, row.entity_id),
    form: saml_form_from(row),
    etag: etag_of(row),
    ...extra,
  });
}

export const AdminConsoleSamlSp = (idp: Provider) =>
  class AdminConsoleSamlSp extends Fw.Renderable(Fw.Endpoint(AdminConsoleSamlSpRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/saml/sp`;

    async call() {
      const gate = await console_gate(idp, this, "view_saml");
      if ("refused" in gate) return gate.refused;
      const { entity_id, done } = this.admin_console_saml_sp_request;
      const row = await idp.store.get_saml_service_provider(entity_id);
      if (row === null) return no_such_saml_sp(idp, this, gate.admin);
      return this.view("admin/saml_sp", saml_sp_page(idp, gate.admin, row, { notice: console_notice(done) }));
    }
  };
