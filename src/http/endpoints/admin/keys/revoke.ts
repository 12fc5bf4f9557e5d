/**
 * POST /admin/api/v1/keys/:kid/revoke: a compromised signing key is revoked at once (the rules of
 * `idp keys revoke` and the console: oidc/admin/keys.ts): it leaves the JWKS, tokens it signed are
 * refused, and an active key hands signing to another key first.
 */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { revoke_signing_key } from "../../../../oidc/admin/keys.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { KeySchema } from "../schemas.ts";

export const AdminKeyRevoke = (idp: Provider) =>
  class AdminKeyRevoke extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/keys/:kid/revoke`;
    static openapi: OpenApiOperation = {
      summary: "Revoke a compromised signing key at once",
      tag: "keys",
      response: z.object({ revoked: KeySchema, active: z.record(z.string(), z.string()), keys: z.array(KeySchema) }),
    };

    async call() {
      const kid = this.route_params.kid ?? "";
      audit_target(this, { action: "key_revoked", details: { kid } });
      const { revoked, active } = await revoke_signing_key(idp.keys, kid);
      audit_target(this, { action: "key_revoked", details: { kid, alg: revoked.alg, status: revoked.status, active } });
      return this.json({ revoked, active, keys: idp.keys.list() });
    }
  };
