/** DELETE /admin/api/v1/saml/service-providers/:entity_id, with If-Match: as `idp saml remove`, its users can no longer sign in to it. */
import { Fw } from "../../../../fw/index.ts";
import { not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, require_match, type OpenApiOperation } from "../common.ts";
import { SAML_API, saml_sp_of, saml_sp_view } from "./schemas.ts";

export const AdminSamlDelete = (idp: Provider) =>
  class AdminSamlDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${SAML_API}/:entity_id`;
    static openapi: OpenApiOperation = { summary: "Remove a SAML service provider", tag: "saml", status: 204, if_match: true };

    async call() {
      const row = await saml_sp_of(idp, this.route_params.entity_id ?? "");
      audit_target(this, { action: "saml_sp_deleted", details: { entity_id: row.entity_id } });
      require_match(this, saml_sp_view(idp, row));
      if (!(await idp.store.delete_saml_service_provider(row.entity_id))) throw not_found("service provider", row.entity_id);
      return new Fw.Response.Empty();
    }
  };
