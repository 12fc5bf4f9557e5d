/**
 * GET /admin/upstreams/confirm?action=delete&upstream=NAME: the confirmation page
 * (http/pages/admin_confirm.ts) of removing a sign-in provider with the identities linked through
 * it. Its form posts to /admin/upstreams (upstream_action.ts) with the ETag of the provider as
 * this page showed it.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import { upstream_admin_view, upstream_of } from "../../../oidc/admin/upstreams.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { UpstreamRow } from "../../../store/types.ts";
import { console_gate, console_url, console_values } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";

/** The confirmation of removing `row`. */
export function upstream_danger(idp: Provider, row: UpstreamRow): Danger {
  const view = upstream_admin_view(idp.config, row);
  return {
    kind: "upstream",
    action: "delete",
    subject: row.name,
    page: "upstreams",
    heading: { key: "admin.confirm.upstream_delete_title", values: { provider: row.display_name } },
    consequence: { key: "admin.confirm.upstream_delete", values: { provider: row.display_name } },
    facts: [
      { label: "account.name", value: row.name, code: true },
      { label: "admin.redirect_uri", value: view.redirect_uri, code: true },
    ],
    button: { key: "account.remove" },
    post: console_url(idp, "/upstreams"),
    fields: { action: "delete", upstream: row.name, etag: etag_of(view) },
    back: console_url(idp, "/upstreams"),
    refusal: null,
  };
}

export function upstream_confirm_url(idp: Provider, name: string): string {
  return confirm_url(idp, "/upstreams", "delete", { upstream: name });
}

export const AdminConsoleUpstreamConfirmRequest = Fw.Request("AdminConsoleUpstreamConfirmRequest", z.object({ action: z.literal("delete"), upstream: z.string().max(64) }), {
  from: ["query"],
});

export const AdminConsoleUpstreamConfirm = (idp: Provider) =>
  class AdminConsoleUpstreamConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleUpstreamConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/upstreams/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_upstreams");
      if ("refused" in gate) return gate.refused;
      let row: UpstreamRow;
      try {
        row = await upstream_of(idp.store, this.admin_console_upstream_confirm_request.upstream);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return this.view(
          "message",
          {
            ...console_values(idp, gate.admin, "upstreams", "No such sign-in provider"),
            message: "This sign-in provider does not exist (any more).",
            link: { href: console_url(idp, "/upstreams"), text: "Back to sign-in providers" },
            form: null,
          },
          404,
        );
      }
      return this.view("admin/confirm", danger_values(idp, gate.admin, upstream_danger(idp, row)));
    }
  };
