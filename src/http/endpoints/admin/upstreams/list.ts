/** GET /admin/api/v1/upstreams: the upstream identity providers in name order, a page at a time (`cursor`: the last name seen). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { decode_cursor, page_of } from "../../../../oidc/admin/cursor.ts";
import { upstream_admin_view } from "../../../../oidc/admin/upstreams.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, PAGE_QUERY, audit_target, page_schema, type OpenApiOperation } from "../common.ts";
import { UpstreamSchema } from "./schemas.ts";

const UpstreamListQuery = z.strictObject({ ...PAGE_QUERY });
export const AdminUpstreamListRequest = Fw.Request("AdminUpstreamListRequest", UpstreamListQuery, { from: ["query"] });

export const AdminUpstreamList = (idp: Provider) =>
  class AdminUpstreamList extends Fw.Endpoint(AdminUpstreamListRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/upstreams`;
    static openapi: OpenApiOperation = {
      summary: "List upstream identity providers (never their secrets)",
      tag: "upstreams",
      query: UpstreamListQuery,
      response: page_schema(UpstreamSchema),
    };

    async call() {
      const { limit, cursor } = this.admin_upstream_list_request;
      const after = cursor === undefined ? undefined : decode_cursor(cursor, (v): v is string => typeof v === "string");
      // An operator configures a handful of upstreams: the ordered list, cut after the cursor.
      const all = await idp.store.list_upstreams();
      const rows = (after === undefined ? all : all.filter((row) => row.name > after)).slice(0, limit + 1);
      const page = page_of(rows, limit, (last) => last.name);
      audit_target(this, { action: "upstreams_listed" });
      return this.json({ items: page.items.map((row) => upstream_admin_view(idp.config, row)), next_cursor: page.next_cursor });
    }
  };
