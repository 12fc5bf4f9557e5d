/**
 * GET /admin/resources: the resource servers (RFC 8707 resource indicators: an application names
 * one with `resource` and gets an access token for it alone), each with its scopes, the format
 * of its access tokens (opaque or RFC 9068 JWT), their lifetime and the link to remove it
 * (resource_confirm.ts); and the form to add one (resource_create.ts), by the rules of
 * `idp resources add` (oidc/admin/resources.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { ACCESS_TOKEN_FORMATS, RESOURCE_TTL_LIMITS } from "../../../oidc/admin/resources.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_notice, console_values, when } from "../../pages/admin_console.ts";
import { resource_confirm_url } from "./resource_confirm.ts";

export const AdminConsoleResourcesRequest = Fw.Request("AdminConsoleResourcesRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The add form as typed: kept when the rules refuse it. */
export type ResourceForm = { uri: string; scopes: string; format: string; ttl: string };

const EMPTY_FORM: ResourceForm = { uri: "", scopes: "", format: "opaque", ttl: "" };

export async function resources_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const resources = (await idp.store.list_resource_servers()).map((row) => ({
    uri: row.uri,
    scopes: row.scopes.join(" "),
    format: row.access_token_format,
    ttl: row.access_token_ttl,
    created: when(row.created_at),
    // The removal is confirmed on its own page (resource_confirm.ts).
    remove_url: resource_confirm_url(idp, row.uri),
  }));
  return console_values(idp, admin, "resources", "Resource servers", {
    resources,
    formats: ACCESS_TOKEN_FORMATS,
    ttl_limits: RESOURCE_TTL_LIMITS,
    default_ttl: idp.config.tokens.access_token_ttl,
    form: EMPTY_FORM,
    ...extra,
  });
}

export const AdminConsoleResources = (idp: Provider) =>
  class AdminConsoleResources extends Fw.Renderable(Fw.Endpoint(AdminConsoleResourcesRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/resources`;

    async call() {
      const gate = await console_gate(idp, this, "view_resources");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/resources", await resources_page(idp, gate.admin, { notice: console_notice(this.admin_console_resources_request.done) }));
    }
  };
