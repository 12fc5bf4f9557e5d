/**
 * GET /admin/api/v1/audit-events: the audit log, newest first, filtered by `type`, `user` (an id
 * or a username), `client` (a client_id), and time (`since`, `until`: unix seconds or ISO 8601,
 * both inclusive); a page at a time (`cursor`: the last event's time and id).
 */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { audit_page } from "../../../../oidc/admin/audit.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { AUDIT_EVENT_TYPES } from "../../../../store/types.ts";
import { ADMIN_API, PAGE_QUERY, audit_target, page_schema, type OpenApiOperation } from "../common.ts";
import { AuditEventSchema } from "../schemas.ts";

/** Unix seconds, or an ISO 8601 date or date-time (a date alone is midnight UTC). */
export const instant = z
  .string()
  .trim()
  .transform((value, ctx) => {
    if (/^\d{1,12}$/.test(value)) return Number(value);
    const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: "custom", message: "is neither unix seconds nor an ISO 8601 date (2025-01-31 or 2025-01-31T12:00:00Z)" });
      return z.NEVER;
    }
    return Math.floor(ms / 1000);
  })
  .meta({ description: "unix seconds or ISO 8601" });

const AuditListQuery = z.strictObject({
  ...PAGE_QUERY,
  type: z.enum(AUDIT_EVENT_TYPES).optional(),
  user: z.string().min(1).max(256).optional(),
  client: z.string().min(1).max(256).optional(),
  since: instant.optional(),
  until: instant.optional(),
});
export const AdminAuditListRequest = Fw.Request("AdminAuditListRequest", AuditListQuery, { from: ["query"] });

export const AdminAuditList = (idp: Provider) =>
  class AdminAuditList extends Fw.Endpoint(AdminAuditListRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/audit-events`;
    static openapi: OpenApiOperation = { summary: "List audit events", tag: "audit", query: AuditListQuery, response: page_schema(AuditEventSchema) };

    async call() {
      const { limit, cursor, ...filters } = this.admin_audit_list_request;
      const page = await audit_page(idp.store, filters, limit, cursor);
      audit_target(this, { action: "audit_listed" });
      return this.json(page);
    }
  };
