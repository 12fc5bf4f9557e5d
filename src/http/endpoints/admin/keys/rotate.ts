/**
 * POST /admin/api/v1/keys/rotate: the next key of `alg` (every configured alg when absent)
 * starts signing; retired keys stay in the JWKS until their tokens expire (the rules of `idp keys rotate`).
 */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { rotate_signing_keys } from "../../../../oidc/admin/keys.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { KeySchema } from "../schemas.ts";

const KeyRotateBody = z.strictObject({ alg: z.string().min(1).max(16).optional() }).meta({ id: "KeyRotate" });
export const AdminKeyRotateRequest = Fw.Request("AdminKeyRotateRequest", KeyRotateBody, { from: ["body"] });

export const AdminKeyRotate = (idp: Provider) =>
  class AdminKeyRotate extends Fw.Endpoint(AdminKeyRotateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/keys/rotate`;
    static openapi: OpenApiOperation = {
      summary: "Rotate signing keys",
      tag: "keys",
      body: KeyRotateBody,
      response: z.object({ rotated: z.record(z.string(), z.string()), keys: z.array(KeySchema) }),
    };

    async call() {
      const { alg } = this.admin_key_rotate_request;
      audit_target(this, { action: "keys_rotated" });
      const rotated = await rotate_signing_keys(idp.keys, idp.config.signing_algs, alg);
      audit_target(this, { action: "keys_rotated", details: { active: rotated } });
      return this.json({ rotated, keys: idp.keys.list() });
    }
  };
