/** GET /admin/api/v1/attributes/:name: a custom attribute definition (the name ignoring case) with an ETag. */
import { Fw } from "../../../../fw/index.ts";
import { show_attribute } from "../../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { AttributeSchema } from "./schemas.ts";

export const AdminAttributeRead = (idp: Provider) =>
  class AdminAttributeRead extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/attributes/:name`;
    static openapi: OpenApiOperation = { summary: "Read a custom attribute definition", tag: "attributes", response: AttributeSchema, etag: true };

    async call() {
      const row = await show_attribute(idp.store, this.route_params.name ?? "");
      audit_target(this, { action: "attribute_read", details: { name: row.name } });
      return this.json(with_etag(this, row));
    }
  };
