/**
 * POST /admin/api/v1/users/:id/reset-second-factors: removes the user's TOTP, recovery codes and
 * passkeys and ends their sessions (the rules of `idp users reset-2fa`; their clients get
 * back-channel logout, logout/bulk.ts); the answer says what was removed; 409 when there is
 * neither a TOTP nor a passkey.
 */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { reset_second_factors } from "../../../../oidc/admin/users.ts";
import { check_admin_member_recovery } from "../../../../oidc/admin/lasting_power.ts";
import { with_backchannel_logout } from "../../../../oidc/logout/bulk.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { SessionsEndedSchema } from "../schemas.ts";
import { user_of } from "./find.ts";

const SecondFactorsResetSchema = SessionsEndedSchema.extend({
  totp_removed: z.boolean().describe("the authenticator app (TOTP) and its recovery codes were removed"),
  passkeys_removed: z.number().int().describe("how many passkeys were removed"),
});

export const AdminUserResetSecondFactors = (idp: Provider) =>
  class AdminUserResetSecondFactors extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/users/:id/reset-second-factors`;
    static openapi: OpenApiOperation = {
      summary: "Remove a user's second factors (TOTP, recovery codes, passkeys) and end their sessions",
      tag: "users",
      response: SecondFactorsResetSchema,
    };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      await check_admin_member_recovery(idp, user.id, "second_factors");
      audit_target(this, { action: "two_factor_removed", user_id: user.id });
      const ended = await with_backchannel_logout(idp, user.id, () => reset_second_factors(idp.store, user, idp.now()));
      audit_target(this, { action: "two_factor_removed", user_id: user.id, details: ended });
      return this.json(ended);
    }
  };
