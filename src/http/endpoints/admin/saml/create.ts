/**
 * POST /admin/api/v1/saml/service-providers: registers a service provider from its metadata, sent
 * as XML (`metadata_xml`) or fetched from `metadata_url` through the outbound fence, with the
 * options of `idp saml add` (oidc/admin/saml.ts checks them). The answer holds our metadata URL.
 */
import { Fw } from "../../../../fw/index.ts";
import { create_saml_service_provider } from "../../../../oidc/admin/saml.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { SAML_API, SamlServiceProviderCreateSchema, SamlServiceProviderSchema, metadata_of, saml_sp_view } from "./schemas.ts";

export const AdminSamlCreateRequest = Fw.Request("AdminSamlCreateRequest", SamlServiceProviderCreateSchema, { from: ["body"] });

export const AdminSamlCreate = (idp: Provider) =>
  class AdminSamlCreate extends Fw.Endpoint(AdminSamlCreateRequest, Fw.Response.Json) {
    static route = `POST ${SAML_API}`;
    static openapi: OpenApiOperation = {
      summary: "Register a SAML service provider from its metadata (XML or URL)",
      tag: "saml",
      body: SamlServiceProviderCreateSchema,
      response: SamlServiceProviderSchema,
      status: 201,
      etag: true,
    };

    async call() {
      const { metadata_xml: _xml, metadata_url: _url, ...settings } = this.admin_saml_create_request;
      audit_target(this, { action: "saml_sp_created" });
      const metadata = (await metadata_of(idp, this.admin_saml_create_request))!;
      const { row, metadata: parsed } = await create_saml_service_provider(idp.store, { ...metadata, ...settings }, idp.now());
      audit_target(this, {
        action: "saml_sp_created",
        details: { entity_id: row.entity_id, nameid_format: row.nameid_format, sign: row.sign, idp_initiated: row.idp_initiated },
      });
      this.response.headers.set("location", `${SAML_API}/${encodeURIComponent(row.entity_id)}`);
      return this.json(with_etag(this, saml_sp_view(idp, row, parsed)), 201);
    }
  };
