/**
 * POST /admin/api/v1/users/:id/send-reset: mails the user a password reset link (the rules of
 * `idp users send-reset` and "Forgot password?"); 409 when mail is off or the user cannot have one.
 * The link is never in the answer: only the user's mailbox gets it.
 */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import { mail_reset_link, reset_refusal } from "../../../../oidc/accounts/password_reset.ts";
import { AdminError } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { user_of } from "./find.ts";

const ResetSent = z.object({ id: z.string(), email: z.string(), expires_at: z.number().int() });

export const AdminUserSendReset = (idp: Provider) =>
  class AdminUserSendReset extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/users/:id/send-reset`;
    static openapi: OpenApiOperation = { summary: "Mail the user a password reset link", tag: "users", response: ResetSent, status: 202 };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      audit_target(this, { action: "password_reset_requested", user_id: user.id });
      if (!idp.mail.enabled) throw new AdminError("conflict", "mail is off: set IDP_SMTP_URL and IDP_MAIL_FROM, or set a password for the user");
      const refused = reset_refusal(user);
      if (refused !== null) throw new AdminError("conflict", refused);
      const { expires_at } = await mail_reset_link(idp, user);
      return this.json({ id: user.id, email: user.email ?? "", expires_at }, 202);
    }
  };
