/** GET /admin/api/v1/attributes: the declared custom attributes in the order of their names ignoring case, a page at a time (`cursor`: the last name seen). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { decode_cursor, page_of } from "../../../../oidc/admin/cursor.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, PAGE_QUERY, audit_target, page_schema, type OpenApiOperation } from "../common.ts";
import { AttributeSchema } from "./schemas.ts";

const AttributeListQuery = z.strictObject({ ...PAGE_QUERY });
export const AdminAttributeListRequest = Fw.Request("AdminAttributeListRequest", AttributeListQuery, { from: ["query"] });

export const AdminAttributeList = (idp: Provider) =>
  class AdminAttributeList extends Fw.Endpoint(AdminAttributeListRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/attributes`;
    static openapi: OpenApiOperation = { summary: "List the custom attribute definitions", tag: "attributes", query: AttributeListQuery, response: page_schema(AttributeSchema) };

    async call() {
      const { limit, cursor } = this.admin_attribute_list_request;
      const after = cursor === undefined ? undefined : decode_cursor(cursor, (v): v is string => typeof v === "string");
      // At most MAX_ATTRIBUTES (oidc/attributes/definitions.ts): the list in the order of the names
      // ignoring case (as the store keys them), cut after the cursor.
      const key = (name: string) => name.toLowerCase();
      const all = (await idp.store.list_attribute_definitions()).sort((a, b) => (key(a.name) < key(b.name) ? -1 : key(a.name) > key(b.name) ? 1 : 0));
      const rows = (after === undefined ? all : all.filter((row) => key(row.name) > after)).slice(0, limit + 1);
      const page = page_of(rows, limit, (last) => key(last.name));
      audit_target(this, { action: "attributes_listed" });
      return this.json({ items: page.items, next_cursor: page.next_cursor });
    }
  };
