/** GET /admin/api/v1/openapi.json: the OpenAPI 3.1 document of the admin API (public: it describes, it holds no data). */
import { Fw } from "../../../fw/index.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { OPENAPI_PATH } from "../../middleware/admin_api.ts";
import type { OpenApiOperation } from "./common.ts";
import { openapi_document, type AdminEndpoint } from "./openapi_document.ts";

export const AdminOpenApi = (idp: Provider, endpoints: readonly AdminEndpoint[]) => {
  let document: Record<string, unknown> | undefined;
  return class AdminOpenApi extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${OPENAPI_PATH}`;
    static openapi: OpenApiOperation = { summary: "This document (OpenAPI 3.1)", tag: "meta", public: true };

    call() {
      document ??= openapi_document(idp, [...endpoints, AdminOpenApi]);
      return this.json(document);
    }
  };
};
