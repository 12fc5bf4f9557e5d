/**
 * POST /admin/resources: adds a resource server by the rules of `idp resources add` and the
 * admin API (oidc/admin/resources.ts): the same checks, the same words when they refuse, and the
 * form kept as typed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { create_resource_server, resource_ttl_of, scope_list } from "../../../oidc/admin/resources.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { resources_page, type ResourceForm } from "./resources.ts";

export const AdminConsoleResourceCreateRequest = Fw.Request(
  "AdminConsoleResourceCreateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    uri: z.string().max(4096).optional(),
    scopes: z.string().max(8192).optional(),
    format: z.string().max(32).optional(),
    ttl: z.string().max(32).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleResourceCreate = (idp: Provider) =>
  class AdminConsoleResourceCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleResourceCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/resources`;

    async call() {
      const gate = await console_gate(idp, this, "manage_resources");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_resource_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const form: ResourceForm = { uri: (input.uri ?? "").trim(), scopes: input.scopes ?? "", format: input.format ?? "opaque", ttl: input.ttl ?? "" };
      const ip = client_ip(this.context, idp.config);
      try {
        const row = await create_resource_server(
          idp.store,
          { uri: form.uri, scopes: scope_list([form.scopes]), access_token_format: form.format, access_token_ttl: resource_ttl_of(form.ttl) },
          idp.now(),
        );
        await record_console_event(idp, gate.admin.user, ip, {
          action: "resource_created",
          details: { uri: row.uri, scopes: row.scopes, access_token_format: row.access_token_format, access_token_ttl: row.access_token_ttl },
        });
        return this.redirect_to(`${console_url(idp, "/resources")}?done=resource_created`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "resource_created", outcome: "failure", details: { uri: form.uri } });
        // A URI taken already is a conflict with the state; bad input is 422.
        const status = error instanceof AdminError && error.error === "conflict" ? 409 : 422;
        return this.view("admin/resources", await resources_page(idp, gate.admin, { error: words, form }), status);
      }
    }
  };
