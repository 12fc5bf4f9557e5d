/** GET /admin/api/v1/saml/service-providers/:entity_id (percent-encoded): the service provider with our metadata URL and an ETag. */
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { SAML_API, SamlServiceProviderSchema, saml_sp_of, saml_sp_view } from "./schemas.ts";

export const AdminSamlRead = (idp: Provider) =>
  class AdminSamlRead extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${SAML_API}/:entity_id`;
    static openapi: OpenApiOperation = { summary: "Read a SAML service provider", tag: "saml", response: SamlServiceProviderSchema, etag: true };

    async call() {
      const row = await saml_sp_of(idp, this.route_params.entity_id ?? "");
      audit_target(this, { action: "saml_sp_read", details: { entity_id: row.entity_id } });
      return this.json(with_etag(this, saml_sp_view(idp, row)));
    }
  };
