/**
 * GET /admin/audit: the audit log, newest first, filtered like the API's list (type, user by id
 * or username, client, since/until as a date or unix seconds; the API's parser), 50 a page.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { audit_page } from "../../../oidc/admin/audit.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { DEFAULT_PAGE } from "../../../oidc/admin/cursor.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { AUDIT_EVENT_TYPES } from "../../../store/types.ts";
import { invalid_page_request } from "../../errors.ts";
import { console_gate, console_values, when } from "../../pages/admin_console.ts";
import { instant } from "../admin/audit/list.ts";

const blank_to_undefined = (value: unknown) => (value === "" ? undefined : value);

export const AdminConsoleAuditRequest = Fw.Request(
  "AdminConsoleAuditRequest",
  z.object({
    type: z.preprocess(blank_to_undefined, z.enum(AUDIT_EVENT_TYPES).optional()),
    user: z.preprocess(blank_to_undefined, z.string().trim().max(256).optional()),
    client: z.preprocess(blank_to_undefined, z.string().trim().max(256).optional()),
    since: z.preprocess(blank_to_undefined, instant.optional()),
    until: z.preprocess(blank_to_undefined, instant.optional()),
    cursor: z.preprocess(blank_to_undefined, z.string().max(1024).optional()),
  }),
  { from: ["query"], on_invalid: invalid_page_request("The filter could not be read", (issues) => `Go back and change it (${issues}).`) },
);

export const AdminConsoleAudit = (idp: Provider) =>
  class AdminConsoleAudit extends Fw.Renderable(Fw.Endpoint(AdminConsoleAuditRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/audit`;

    async call() {
      const gate = await console_gate(idp, this, "view_audit");
      if ("refused" in gate) return gate.refused;
      const { type, user, client, since, until, cursor } = this.admin_console_audit_request;
      const page = await audit_page(idp.store, { type, user, client, since, until }, DEFAULT_PAGE, cursor);
      const raw = this.params;
      const filters = {
        type: type ?? "",
        user: user ?? "",
        client: client ?? "",
        since: typeof raw.since === "string" ? raw.since : "",
        until: typeof raw.until === "string" ? raw.until : "",
      };
      const next =
        page.next_cursor === null
          ? null
          : `?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== "")), cursor: page.next_cursor })}`;
      const rows = page.items.map((event) => ({
        ...event,
        when: when(event.at),
        details_text: event.details === null ? "" : JSON.stringify(event.details),
      }));
      return this.view("admin/audit", console_values(idp, gate.admin, "audit", "Audit log", { events: rows, filters, types: AUDIT_EVENT_TYPES, next }));
    }
  };
