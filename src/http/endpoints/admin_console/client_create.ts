/**
 * POST /admin/clients: registers an application from the new-application page (client_new.ts) by
 * the API's rules (checked_metadata: the registration rules of RFC 7591, then
 * oidc/admin/clients.ts). A confidential one gets a secret, shown on the answer page once and
 * stored only as its hash; that page leads to the application's page for its other settings. A
 * refusal shows the form again as typed, with the rule's words.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { create_client_with_secret } from "../../../oidc/admin/clients.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_values, refusal_words } from "../../pages/admin_console.ts";
import { checked_metadata, checked_subject_type } from "../admin/clients/metadata.ts";
import { client_url } from "./client_confirm.ts";
import { FORM_GRANT_TYPES, new_client_page, type ClientForm } from "./client_new.ts";

const grant = z.enum(FORM_GRANT_TYPES);

export const AdminConsoleClientCreateRequest = Fw.Request(
  "AdminConsoleClientCreateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    client_name: z.string().max(256).optional(),
    redirect_uris: z.string().max(20000).optional(),
    // One checkbox checked arrives as a string, several as a list.
    grant_types: z.union([grant, z.array(grant)]).optional(),
    kind: z.enum(["confidential", "public"]).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

/** The registration metadata of the console's client form (RFC 7591 §2). */
export function form_metadata(form: ClientForm): Record<string, unknown> {
  const redirect_uris = form.redirect_uris.split(/\s+/).filter((uri) => uri !== "");
  const response_types = form.grant_types.includes("authorization_code") ? ["code"] : [];
  return {
    ...(form.client_name !== "" && { client_name: form.client_name }),
    redirect_uris,
    grant_types: form.grant_types,
    response_types,
    token_endpoint_auth_method: form.kind === "public" ? "none" : "client_secret_basic",
  };
}

/** The form as typed (one grant checked arrives as a string). */
export function typed_form(input: {
  client_name?: string | undefined;
  redirect_uris?: string | undefined;
  grant_types?: string | string[] | undefined;
  kind?: "confidential" | "public" | undefined;
}): ClientForm {
  const grants = input.grant_types === undefined ? [] : Array.isArray(input.grant_types) ? input.grant_types : [input.grant_types];
  return { client_name: (input.client_name ?? "").trim(), redirect_uris: input.redirect_uris ?? "", grant_types: grants, kind: input.kind ?? "confidential" };
}

export const AdminConsoleClientCreate = (idp: Provider) =>
  class AdminConsoleClientCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleClientCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/clients`;

    async call() {
      const gate = await console_gate(idp, this, "manage_clients");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_client_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const form = typed_form(input);
      try {
        const metadata = checked_metadata(idp, form_metadata(form));
        await checked_subject_type(idp, metadata, null);
        const { client, secret } = await create_client_with_secret(idp.store, metadata, idp.now());
        await record_console_event(idp, gate.admin.user, client_ip(this.context, idp.config), { action: "client_registered", client_id: client.client_id });
        return this.view(
          "admin/client_secret",
          {
            ...console_values(idp, gate.admin, "clients", "Application registered"),
            client_id: client.client_id,
            client_name: client.metadata.client_name ?? client.client_id,
            secret,
            back: client_url(idp, client.client_id),
            back_text: "admin.client.to_settings",
          },
          201,
        );
      } catch (error) {
        return this.view("admin/client_new", new_client_page(idp, gate.admin, form, { error: refusal_words(error) }), 422);
      }
    }
  };
