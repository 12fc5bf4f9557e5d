/**
 * GET /admin/attributes: the custom attributes users carry (oidc/attributes/): each with its type,
 * the scope that releases it, its claim name and flags, and links to edit it (`?edit=NAME`: the
 * form above the list, attribute_update.ts) and to remove it (attribute_confirm.ts); the form to
 * declare one (attribute_create.ts). The rules are `idp attributes`' (definitions.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import { DEFAULT_ATTRIBUTE_SCOPE } from "../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { ATTRIBUTE_TYPES, type AttributeDefinitionRow } from "../../../store/types.ts";
import { console_gate, console_notice, console_values, when } from "../../pages/admin_console.ts";
import { attribute_confirm_url } from "./attribute_confirm.ts";

export const AdminConsoleAttributesRequest = Fw.Request("AdminConsoleAttributesRequest", z.object({ done: z.string().max(64).optional(), edit: z.string().max(64).optional() }), {
  from: ["query"],
});

/** The declare form as typed: kept when the rules refuse it. */
export type AttributeForm = { name: string; type: string; scope: string; claim: string; user_editable: boolean; required: boolean };
/** The edit form: the attribute's name and the ETag of what it showed, then the fields it changes. */
export type AttributeEditForm = { name: string; etag: string; scope: string; claim: string; user_editable: boolean; required: boolean };

const EMPTY_FORM: AttributeForm = { name: "", type: "string", scope: DEFAULT_ATTRIBUTE_SCOPE, claim: "", user_editable: false, required: false };

export const edit_form_of = (row: AttributeDefinitionRow): AttributeEditForm => ({
  name: row.name,
  etag: etag_of(row),
  scope: row.scope,
  claim: row.claim,
  user_editable: row.user_editable,
  required: row.required,
});

export async function attributes_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const rows = await idp.store.list_attribute_definitions();
  const attributes = rows.map((row) => ({
    ...row,
    created: when(row.created_at),
    edit_url: `${idp.config.issuer}${ADMIN_CONSOLE}/attributes?${new URLSearchParams({ edit: row.name })}`,
    // The removal is confirmed on its own page (attribute_confirm.ts).
    remove_url: attribute_confirm_url(idp, row.name),
  }));
  return console_values(idp, admin, "attributes", "Attributes", { attributes, types: ATTRIBUTE_TYPES, form: EMPTY_FORM, edit: null, ...extra });
}

export const AdminConsoleAttributes = (idp: Provider) =>
  class AdminConsoleAttributes extends Fw.Renderable(Fw.Endpoint(AdminConsoleAttributesRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/attributes`;

    async call() {
      const gate = await console_gate(idp, this, "view_attributes");
      if ("refused" in gate) return gate.refused;
      const { done, edit } = this.admin_console_attributes_request;
      const editing = edit !== undefined && gate.admin.permissions.has("manage_attributes") ? await idp.store.get_attribute_definition(edit) : null;
      return this.view("admin/attributes", await attributes_page(idp, gate.admin, { notice: console_notice(done), edit: editing === null ? null : edit_form_of(editing) }));
    }
  };
