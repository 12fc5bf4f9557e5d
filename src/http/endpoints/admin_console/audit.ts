/**
 * GET /admin/audit: the audit log, newest first, filtered like the API's list (type, user by id
 * or username, client, since/until as a date or unix seconds; the API's parser) or by a period
 * (the last hour, 24 h, 7 days), 50 a page; who did it, readable type names grouped by area, and
 * links to the same events as CSV and JSON (audit_csv.ts, audit_json.ts). The view model: pages/admin_audit.ts.
 */
import { Fw } from "../../../fw/index.ts";
import { audit_actor, audit_page } from "../../../oidc/admin/audit.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { DEFAULT_PAGE } from "../../../oidc/admin/cursor.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_page_request } from "../../errors.ts";
import { actor_message, AUDIT_PERIODS, audit_filters, audit_form, audit_query, audit_search, audit_type_groups, details_pairs, type_message } from "../../pages/admin_audit.ts";
import { console_gate, console_values, when } from "../../pages/admin_console.ts";
import { z } from "zod";

export const AdminConsoleAuditRequest = Fw.Request(
  "AdminConsoleAuditRequest",
  audit_query.extend({ cursor: z.preprocess((v) => (v === "" ? undefined : v), z.string().max(1024).optional()) }),
  {
    from: ["query"],
    on_invalid: invalid_page_request("The filter could not be read", (issues) => `Go back and change it (${issues}).`),
  },
);

export const AdminConsoleAudit = (idp: Provider) =>
  class AdminConsoleAudit extends Fw.Renderable(Fw.Endpoint(AdminConsoleAuditRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/audit`;

    async call() {
      const gate = await console_gate(idp, this, "view_audit");
      if ("refused" in gate) return gate.refused;
      const { cursor, ...query } = this.admin_console_audit_request;
      const page = await audit_page(idp.store, audit_filters(query, idp.now()), DEFAULT_PAGE, cursor);
      const form = audit_form(query, this.params);
      const base = `${idp.config.issuer}${ADMIN_CONSOLE}/audit`;
      const next = page.next_cursor === null ? null : audit_search(form, { cursor: page.next_cursor });
      // A period link keeps the other filters and replaces the dates.
      const kept = { type: form.type, user: form.user, client: form.client };
      const periods = [
        { label: "admin.audit.period.any", href: `${base}${audit_search(kept)}`, current: form.period === "" && form.since === "" && form.until === "" },
        ...Object.keys(AUDIT_PERIODS).map((period) => ({
          label: `admin.audit.period.${period}`,
          href: `${base}${audit_search({ ...kept, period })}`,
          current: form.period === period,
        })),
      ];
      const rows = page.items.map((event) => ({
        ...event,
        when: when(event.at),
        type_message: type_message(event.type),
        actor_message: actor_message(audit_actor(event)),
        details_pairs: details_pairs(event.details),
      }));
      return this.view(
        "admin/audit",
        console_values(idp, gate.admin, "audit", "Audit log", {
          events: rows,
          filters: form,
          type_groups: audit_type_groups(),
          periods,
          next,
          export_csv: `${base}.csv${audit_search(form)}`,
          export_json: `${base}.json${audit_search(form)}`,
        }),
      );
    }
  };
