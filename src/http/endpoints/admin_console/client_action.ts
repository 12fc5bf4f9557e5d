/**
 * POST /admin/clients/:client_id: save the application page's settings (client_settings.ts: the
 * API's PATCH rules, with the ETag of what the form showed), rotate its secret (the new one shown
 * once; the old one may keep working an hour or a day), end that grace period early, or delete it
 * (its users' tokens all end). All but the save come only from their confirmation page
 * (client_confirm.ts: its own form token and re-authentication). A refused save shows the page
 * again with what was typed, the refusal's words at the top and next to each field it names.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { end_secret_grace, GRACE_SECONDS, rotate_client_secret, type GraceSeconds } from "../../../oidc/admin/clients.ts";
import { AdminError, not_found } from "../../../oidc/admin/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ClientRow } from "../../../store/types.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_notice, console_url, console_values, refusal_words, when } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { client_of } from "../admin/clients/find.ts";
import { client_page } from "./client.ts";
import { CLIENT_DANGERS, client_danger, client_url, missing_client } from "./client_confirm.ts";
import { CLIENT_SETTINGS_FIELDS, form_of_request } from "./client_form.ts";
import { save_client_settings } from "./client_settings.ts";

export const AdminConsoleClientActionRequest = Fw.Request(
  "AdminConsoleClientActionRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(["update", ...CLIENT_DANGERS]),
    // A rotation's grace period (oidc/admin/clients.ts GRACE_SECONDS), from the confirmation page.
    grace_seconds: z.enum(GRACE_SECONDS.map(String) as [string, ...string[]]).optional(),
    password: z.string().max(4096).optional(),
    ...CLIENT_SETTINGS_FIELDS,
  }),
  { from: ["body"], on_invalid: invalid_form },
);

/** The status of a refused save: a stale form 412, one without its ETag 428, a missing password 403, else 422. */
function refusal_status(error: unknown): number {
  if (!(error instanceof AdminError)) return 422;
  return { precondition_failed: 412, precondition_required: 428, forbidden: 403 }[error.error as string] ?? 422;
}

export const AdminConsoleClientAction = (idp: Provider) =>
  class AdminConsoleClientAction extends Fw.Renderable(Fw.Endpoint(AdminConsoleClientActionRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/clients/:client_id`;

    async call() {
      const gate = await console_gate(idp, this, "manage_clients");
      if ("refused" in gate) return gate.refused;
      const { admin } = gate;
      const input = this.admin_console_client_action_request;
      // A rotation's, a grace period's end or a deletion's token is its confirmation page's, checked below (confirmation_problem).
      if (input.action === "update") check_console_csrf(admin, input.csrf);
      const ip = client_ip(this.context, idp.config);
      const client_id = this.route_params.client_id ?? "";
      let client: ClientRow;
      try {
        client = await client_of(idp, client_id);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return missing_client(idp, admin, this);
      }
      if (input.action === "update") {
        const form = form_of_request(input);
        try {
          const saved = await save_client_settings(idp, admin, client, form, input.password, ip);
          await record_console_event(idp, admin.user, ip, {
            action: "client_updated",
            client_id: client.client_id,
            details: { changed: saved.changed, ...(saved.secret !== null && { secret_issued: true }) },
          });
          // A move to a secret-based method made a secret: shown now, once (oidc/clients/method_secret.ts).
          if (saved.secret !== null)
            return this.view("admin/client_secret", {
              ...console_values(idp, admin, "clients", "New secret"),
              client_id: client.client_id,
              client_name: saved.client.metadata.client_name ?? client.client_id,
              secret: saved.secret,
              previous_until: null,
              warnings: saved.warnings,
              back: client_url(idp, client.client_id),
              back_text: "admin.client.to_settings",
            });
          // The outbound fence's warnings (oidc/outbound/preflight.ts) are shown now, with the saved page.
          if (saved.warnings.length > 0)
            return this.view("admin/client", client_page(idp, admin, saved.client, null, { notice: console_notice("client_updated"), warnings: saved.warnings }));
          return this.redirect_to(`${client_url(idp, client.client_id)}?done=client_updated`, 303);
        } catch (error) {
          const words = refusal_words(error);
          await record_console_event(idp, admin.user, ip, { action: "client_update", outcome: "failure", client_id, details: { reason: (error as AdminError).error } });
          // What was typed stays (never the password), with the words at the top and next to each field they name.
          const refused = { form: { ...form }, problems: (error as AdminError).errors };
          return this.view("admin/client", client_page(idp, admin, client, refused, { error: words }), refusal_status(error));
        }
      }
      const danger: Danger = client_danger(idp, client, input.action);
      const problem = await confirmation_problem(idp, admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, admin.user, ip, { action: `client_${input.action}`, outcome: "failure", client_id, details: { reason: "reauthentication" } });
        return this.view("admin/confirm", danger_values(idp, admin, danger, { error: problem }), 403);
      }
      try {
        switch (input.action) {
          case "rotate_secret": {
            if (client.client_secret_hash === null) throw new AdminError("conflict", "a public client has no secret to rotate");
            const grace_seconds = Number(input.grace_seconds ?? "0") as GraceSeconds;
            const { client: updated, secret } = await rotate_client_secret(idp.store, client, idp.now(), grace_seconds);
            await record_console_event(idp, admin.user, ip, { action: "client_secret_rotated", client_id: client.client_id, details: { grace_seconds } });
            const previous_until = updated.previous_secret_expires_at === null ? null : when(updated.previous_secret_expires_at);
            return this.view("admin/client_secret", {
              ...console_values(idp, admin, "clients", "New secret"),
              client_id: client.client_id,
              client_name: client.metadata.client_name ?? client.client_id,
              secret,
              previous_until,
              back: client_url(idp, client.client_id),
              back_text: "admin.client.back",
            });
          }
          case "end_grace": {
            await end_secret_grace(idp.store, client, idp.now());
            await record_console_event(idp, admin.user, ip, { action: "client_secret_grace_ended", client_id: client.client_id });
            return this.redirect_to(`${client_url(idp, client.client_id)}?done=secret_grace_ended`, 303);
          }
          case "delete": {
            if (!(await idp.store.delete_client(client.client_id))) throw not_found("client", client.client_id);
            await record_console_event(idp, admin.user, ip, {
              action: "client_deleted",
              client_id: client.client_id,
              details: { client_name: client.metadata.client_name ?? null },
            });
            return this.redirect_to(`${console_url(idp, "/clients")}?done=client_deleted`, 303);
          }
        }
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, admin.user, ip, {
          action: `client_${input.action}`,
          outcome: "failure",
          client_id,
          details: { reason: error instanceof AdminError ? error.error : "error" },
        });
        return this.view("admin/confirm", danger_values(idp, admin, { ...danger, refusal: words }), 409);
      }
    }
  };
