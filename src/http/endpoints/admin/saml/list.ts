/** GET /admin/api/v1/saml/service-providers: every SAML service provider, by entityID (an operator registers a handful: one page). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, type OpenApiOperation } from "../common.ts";
import { SAML_API, SamlServiceProviderSchema, saml_sp_view } from "./schemas.ts";

export const AdminSamlList = (idp: Provider) =>
  class AdminSamlList extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${SAML_API}`;
    static openapi: OpenApiOperation = { summary: "List SAML service providers", tag: "saml", response: z.object({ items: z.array(SamlServiceProviderSchema) }) };

    async call() {
      audit_target(this, { action: "saml_sps_listed" });
      return this.json({ items: (await idp.store.list_saml_service_providers()).map((row) => saml_sp_view(idp, row)) });
    }
  };
