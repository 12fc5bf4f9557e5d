/** GET /admin/api/v1/resources: every resource server, by URI (they are few: one page). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { ResourceServerSchema } from "../schemas.ts";

export const AdminResourceList = (idp: Provider) =>
  class AdminResourceList extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/resources`;
    static openapi: OpenApiOperation = { summary: "List resource servers", tag: "resources", response: z.object({ items: z.array(ResourceServerSchema) }) };

    async call() {
      audit_target(this, { action: "resources_listed" });
      return this.json({ items: await idp.store.list_resource_servers() });
    }
  };
