/**
 * GET /admin/audit.csv: the events the audit page's filters match (the same query, the period
 * too), newest first, at most AUDIT_EXPORT_LIMIT, as a CSV download (pages/admin_audit.ts: a
 * header row, RFC 4180 quoting). The export is itself an audit event (`audit_exported`).
 */
import { Fw } from "../../../fw/index.ts";
import { audit_export } from "../../../oidc/admin/audit.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_page_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { audit_csv, audit_filters, audit_query, export_filename } from "../../pages/admin_audit.ts";
import { console_gate } from "../../pages/admin_console.ts";
import { content_disposition } from "../../../fw/response.ts";

export const AdminConsoleAuditCsvRequest = Fw.Request("AdminConsoleAuditCsvRequest", audit_query, {
  from: ["query"],
  on_invalid: invalid_page_request("The filter could not be read", (issues) => `Go back and change it (${issues}).`),
});

export const AdminConsoleAuditCsv = (idp: Provider) =>
  class AdminConsoleAuditCsv extends Fw.Renderable(Fw.Endpoint(AdminConsoleAuditCsvRequest, [Fw.Response.Bytes, Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/audit.csv`;

    async call() {
      const gate = await console_gate(idp, this, "view_audit");
      if ("refused" in gate) return gate.refused;
      const { events, truncated } = await audit_export(idp.store, audit_filters(this.admin_console_audit_csv_request, idp.now()));
      await record_console_event(idp, gate.admin.user, client_ip(this.context, idp.config), {
        action: "audit_exported",
        details: { format: "csv", events: events.length, truncated },
      });
      this.response.headers.set("content-disposition", content_disposition(export_filename(idp.now(), "csv")));
      return new Fw.Response.Bytes(audit_csv(events), "text/csv; charset=utf-8; header=present");
    }
  };
