/**
 * PATCH /admin/api/v1/saml/service-providers/:entity_id, with If-Match: new metadata (XML or URL,
 * of the same entityID) and the settings sent, as `idp saml update` changes them: `attributes`
 * and `allowed_groups` replace the stored ones (`{}` / `[]` clear them).
 */
import { Fw } from "../../../../fw/index.ts";
import { update_saml_service_provider } from "../../../../oidc/admin/saml.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { SAML_API, SamlServiceProviderPatchSchema, SamlServiceProviderSchema, metadata_of, saml_sp_of, saml_sp_view } from "./schemas.ts";

export const AdminSamlUpdateRequest = Fw.Request("AdminSamlUpdateRequest", SamlServiceProviderPatchSchema, { from: ["body"] });

export const AdminSamlUpdate = (idp: Provider) =>
  class AdminSamlUpdate extends Fw.Endpoint(AdminSamlUpdateRequest, Fw.Response.Json) {
    static route = `PATCH ${SAML_API}/:entity_id`;
    static openapi: OpenApiOperation = {
      summary: "Change a SAML service provider: new metadata, or the settings sent",
      tag: "saml",
      body: SamlServiceProviderPatchSchema,
      response: SamlServiceProviderSchema,
      etag: true,
      if_match: true,
    };

    async call() {
      const row = await saml_sp_of(idp, this.route_params.entity_id ?? "");
      audit_target(this, { action: "saml_sp_updated", details: { entity_id: row.entity_id } });
      require_match(this, saml_sp_view(idp, row));
      const { metadata_xml: _xml, metadata_url: _url, ...settings } = this.admin_saml_update_request;
      const metadata = await metadata_of(idp, this.admin_saml_update_request);
      const updated = await update_saml_service_provider(idp.store, row.entity_id, { ...(metadata ?? {}), ...settings }, idp.now());
      const changed = [...(metadata === null ? [] : ["metadata"]), ...Object.keys(settings)];
      audit_target(this, { action: "saml_sp_updated", details: { entity_id: row.entity_id, changed } });
      return this.json(with_etag(this, saml_sp_view(idp, updated.row, updated.metadata)));
    }
  };
