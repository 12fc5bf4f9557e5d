/**
 * POST /admin/clients/:client_id: change an application (name, redirect URIs, grant types; with
 * the ETag of what the form showed, the API's If-Match rule), rotate its secret (the new one
 * shown once; the old one may keep working an hour or a day), end that grace period early, or
 * delete it (its users' tokens all end). All but the change come only from their confirmation
 * page (client_confirm.ts: its own form token and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { end_secret_grace, GRACE_SECONDS, public_client, rotate_client_secret, with_group_settings, type GraceSeconds } from "../../../oidc/admin/clients.ts";
import type { GroupSettings } from "../../../oidc/claims/groups.ts";
import { AdminError, not_found } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of, lost_write } from "../../../oidc/admin/etag.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, console_values, refusal_words, when } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { client_of } from "../admin/clients/find.ts";
import { changed_metadata, checked_subject_type } from "../admin/clients/metadata.ts";
import { clients_page, FORM_GRANT_TYPES } from "./clients.ts";
import { CLIENT_DANGERS, client_danger } from "./client_confirm.ts";
import { form_metadata, typed_form } from "./client_create.ts";

const grant = z.enum(FORM_GRANT_TYPES);

export const AdminConsoleClientActionRequest = Fw.Request(
  "AdminConsoleClientActionRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(["update", ...CLIENT_DANGERS]),
    // A rotation's grace period (oidc/admin/clients.ts GRACE_SECONDS), from the confirmation page.
    grace_seconds: z.enum(GRACE_SECONDS.map(String) as [string, ...string[]]).optional(),
    etag: z.string().max(64).optional(),
    client_name: z.string().max(256).optional(),
    redirect_uris: z.string().max(20000).optional(),
    grant_types: z.union([grant, z.array(grant)]).optional(),
    // The group settings (oidc/claims/groups.ts): empty fields remove them.
    allowed_groups: z.string().max(6500).optional(),
    groups_claim: z.string().max(256).optional(),
    groups_prefix: z.string().max(256).optional(),
    groups_prefix_strip: z.literal("on").optional(),
    roles: z.string().max(20000).optional(),
    password: z.string().max(4096).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

/** The group settings of the edit form: lists split on commas and white space, roles one `group=role` a line. */
function typed_group_settings(input: {
  allowed_groups?: string | undefined;
  groups_claim?: string | undefined;
  groups_prefix?: string | undefined;
  groups_prefix_strip?: "on" | undefined;
  roles?: string | undefined;
}): GroupSettings {
  const settings: GroupSettings = {};
  const allowed = (input.allowed_groups ?? "").split(/[\s,]+/).filter((name) => name !== "");
  if (allowed.length > 0) settings.allowed_groups = allowed;
  if ((input.groups_claim ?? "").trim() !== "") settings.groups_claim = input.groups_claim!.trim();
  if ((input.groups_prefix ?? "").trim() !== "") settings.groups_prefix = input.groups_prefix!.trim();
  if (input.groups_prefix_strip === "on") settings.groups_prefix_strip = true;
  const lines = (input.roles ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (lines.length > 0) {
    settings.roles = {};
    for (const line of lines) {
      const eq = line.indexOf("=");
      if (eq <= 0) throw new AdminError("invalid_request", `roles: "${line}" is not group=role`, [{ field: "roles", message: "write one group=role a line" }]);
      settings.roles[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
    }
  }
  return settings;
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
      let danger: Danger | null = null;
      try {
        const client = await client_of(idp, client_id);
        if (input.action !== "update") {
          danger = client_danger(idp, client, input.action);
          const problem = await confirmation_problem(idp, admin, danger, input, ip);
          if (problem !== null) {
            await record_console_event(idp, admin.user, ip, { action: `client_${input.action}`, outcome: "failure", client_id, details: { reason: "reauthentication" } });
            return this.view("admin/confirm", danger_values(idp, admin, danger, { error: problem }), 403);
          }
        }
        switch (input.action) {
          case "update": {
            check_if_match(input.etag ?? null, etag_of(public_client(client)));
            const typed = typed_form({ ...input, kind: client.metadata.token_endpoint_auth_method === "none" ? "public" : "confidential" });
            const { token_endpoint_auth_method: _kept, ...sent } = form_metadata(typed);
            if (typed.client_name === "") sent.client_name = null;
            const metadata = await with_group_settings(idp.store, changed_metadata(idp, client.metadata, sent), typed_group_settings(input));
            await checked_subject_type(idp, metadata, client.client_id);
            // Compare-and-set on the version whose ETag the form carried (store/types/common.ts IfVersion).
            if ((await idp.store.update_client(client.client_id, { metadata, updated_at: idp.now() }, { if_version: client.version })) === null)
              throw await lost_write(idp.store.get_client(client.client_id), "client", client.client_id);
            await record_console_event(idp, admin.user, ip, { action: "client_updated", client_id: client.client_id, details: { changed: Object.keys(sent) } });
            return this.redirect_to(`${console_url(idp, "/clients")}?done=client_updated`, 303);
          }
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
              back: console_url(idp, "/clients"),
            });
          }
          case "end_grace": {
            await end_secret_grace(idp.store, client, idp.now());
            await record_console_event(idp, admin.user, ip, { action: "client_secret_grace_ended", client_id: client.client_id });
            return this.redirect_to(`${console_url(idp, "/clients")}?done=secret_grace_ended`, 303);
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
        if (danger !== null) return this.view("admin/confirm", danger_values(idp, admin, { ...danger, refusal: words }), 409);
        return this.view("admin/clients", await clients_page(idp, admin, { error: words }), error instanceof AdminError && error.error === "precondition_failed" ? 412 : 409);
      }
    }
  };
