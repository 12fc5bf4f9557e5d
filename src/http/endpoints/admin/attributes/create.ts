/**
 * POST /admin/api/v1/attributes: declares a custom user attribute, checked as `idp attributes
 * add` checks one (oidc/attributes/definitions.ts): 400 naming the field, 409 when the name or
 * the claim is taken.
 */
import { Fw } from "../../../../fw/index.ts";
import { add_attribute } from "../../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { AttributeCreateSchema, AttributeSchema } from "./schemas.ts";

export const AdminAttributeCreateRequest = Fw.Request("AdminAttributeCreateRequest", AttributeCreateSchema, { from: ["body"] });

export const AdminAttributeCreate = (idp: Provider) =>
  class AdminAttributeCreate extends Fw.Endpoint(AdminAttributeCreateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/attributes`;
    static openapi: OpenApiOperation = {
      summary: "Declare a custom user attribute",
      tag: "attributes",
      body: AttributeCreateSchema,
      response: AttributeSchema,
      status: 201,
      etag: true,
    };

    async call() {
      const row = await add_attribute(idp.store, this.admin_attribute_create_request, idp.now());
      audit_target(this, { action: "attribute_created", details: { name: row.name, type: row.type, scope: row.scope, claim: row.claim } });
      this.response.headers.set("location", `${ADMIN_API}/attributes/${row.name}`);
      return this.json(with_etag(this, row), 201);
    }
  };
