/** POST /admin/api/v1/resources: a new resource server (RFC 8707; the rules of `idp resources add`). */
import { Fw } from "../../../../fw/index.ts";
import { create_resource_server } from "../../../../oidc/admin/resources.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { ResourceServerCreateSchema, ResourceServerSchema } from "../schemas.ts";

export const AdminResourceCreateRequest = Fw.Request("AdminResourceCreateRequest", ResourceServerCreateSchema, { from: ["body"] });

export const AdminResourceCreate = (idp: Provider) =>
  class AdminResourceCreate extends Fw.Endpoint(AdminResourceCreateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/resources`;
    static openapi: OpenApiOperation = { summary: "Register a resource server", tag: "resources", body: ResourceServerCreateSchema, response: ResourceServerSchema, status: 201 };

    async call() {
      const row = await create_resource_server(idp.store, this.admin_resource_create_request, idp.now());
      audit_target(this, { action: "resource_created", details: { uri: row.uri, access_token_format: row.access_token_format } });
      this.response.headers.set("location", `${ADMIN_API}/resources/${encodeURIComponent(row.uri)}`);
      return this.json(row, 201);
    }
  };
