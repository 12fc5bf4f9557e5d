/** GET /admin/api/v1/keys: the signing keys (ids, algs, states, dates; never key material). */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { KeySchema } from "../schemas.ts";

export const AdminKeyList = (idp: Provider) =>
  class AdminKeyList extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/keys`;
    static openapi: OpenApiOperation = { summary: "List signing keys", tag: "keys", response: z.object({ items: z.array(KeySchema) }) };

    async call() {
      audit_target(this, { action: "keys_listed" });
      return this.json({ items: idp.keys.list() });
    }
  };
