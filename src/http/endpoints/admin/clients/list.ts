/** GET /admin/api/v1/clients: clients in client_id order, a page at a time (`cursor`: the last client_id seen). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { public_client } from "../../../../oidc/admin/clients.ts";
import { decode_cursor, page_of } from "../../../../oidc/admin/cursor.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, PAGE_QUERY, audit_target, page_schema, type OpenApiOperation } from "../common.ts";
import { ClientSchema } from "../schemas.ts";

const ClientListQuery = z.strictObject({ ...PAGE_QUERY });
export const AdminClientListRequest = Fw.Request("AdminClientListRequest", ClientListQuery, { from: ["query"] });

export const AdminClientList = (idp: Provider) =>
  class AdminClientList extends Fw.Endpoint(AdminClientListRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/clients`;
    static openapi: OpenApiOperation = { summary: "List clients", tag: "clients", query: ClientListQuery, response: page_schema(ClientSchema) };

    async call() {
      const { limit, cursor } = this.admin_client_list_request;
      const after = cursor === undefined ? undefined : decode_cursor(cursor, (v): v is string => typeof v === "string");
      // Operators register tens of clients, not millions: the ordered list, cut after the cursor.
      const all = await idp.store.list_clients();
      const rows = (after === undefined ? all : all.filter((c) => c.client_id > after)).slice(0, limit + 1);
      const page = page_of(rows, limit, (last) => last.client_id);
      audit_target(this, { action: "clients_listed" });
      return this.json({ items: page.items.map(public_client), next_cursor: page.next_cursor });
    }
  };
