/**
 * GET /admin/audit.json: the events the audit page's filters match (the same query, the period
 * too), newest first, at most AUDIT_EXPORT_LIMIT, as a JSON download: `{ events: [...], truncated }`,
 * the fields of the CSV with `details` as an object. The export is itself an audit event (`audit_exported`).
 */
import { Fw } from "../../../fw/index.ts";
import { audit_export } from "../../../oidc/admin/audit.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_page_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { audit_filters, export_record, audit_query, export_filename } from "../../pages/admin_audit.ts";
import { console_gate } from "../../pages/admin_console.ts";
import { content_disposition } from "../../../fw/response.ts";

export const AdminConsoleAuditJsonRequest = Fw.Request("AdminConsoleAuditJsonRequest", audit_query, {
  from: ["query"],
  on_invalid: invalid_page_request("The filter could not be read", (issues) => `Go back and change it (${issues}).`),
});

export const AdminConsoleAuditJson = (idp: Provider) =>
  class AdminConsoleAuditJson extends Fw.Renderable(Fw.Endpoint(AdminConsoleAuditJsonRequest, [Fw.Response.Bytes, Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/audit.json`;

    async call() {
      const gate = await console_gate(idp, this, "view_audit");
      if ("refused" in gate) return gate.refused;
      const { events, truncated } = await audit_export(idp.store, audit_filters(this.admin_console_audit_json_request, idp.now()));
      await record_console_event(idp, gate.admin.user, client_ip(this.context, idp.config), {
        action: "audit_exported",
        details: { format: "json", events: events.length, truncated },
      });
      this.response.headers.set("content-disposition", content_disposition(export_filename(idp.now(), "json")));
      return new Fw.Response.Bytes(`${JSON.stringify({ events: events.map(export_record), truncated }, null, 1)}\n`, "application/json");
    }
  };
