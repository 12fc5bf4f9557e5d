/**
 * POST /admin/upstreams: add a sign-in provider from a preset, enable or disable one, remove one
 * (with the identities linked through it, as `idp upstreams remove`; only from its confirmation
 * page, upstream_confirm.ts: its own form token and re-authentication). The rules are the admin API's (oidc/admin/upstreams.ts);
 * changes carry the ETag the page showed. The client secret is written, never shown.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of, lost_write } from "../../../oidc/admin/etag.ts";
import { change_upstream, create_upstream, upstream_admin_view, upstream_of } from "../../../oidc/admin/upstreams.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { upstream_danger } from "./upstream_confirm.ts";
import { upstreams_page } from "./upstreams.ts";

export const AdminConsoleUpstreamActionRequest = Fw.Request(
  "AdminConsoleUpstreamActionRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(["create", "enable", "disable", "delete"]),
    upstream: z.string().max(64).optional(),
    etag: z.string().max(64).optional(),
    preset: z.string().max(64).optional(),
    tenant: z.string().max(255).optional(),
    client_id: z.string().max(512).optional(),
    client_secret: z.string().max(4096).optional(),
    display_name: z.string().max(100).optional(),
    password: z.string().max(4096).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleUpstreamAction = (idp: Provider) =>
  class AdminConsoleUpstreamAction extends Fw.Renderable(Fw.Endpoint(AdminConsoleUpstreamActionRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/upstreams`;

    async call() {
      const gate = await console_gate(idp, this, "manage_upstreams");
      if ("refused" in gate) return gate.refused;
      const { admin } = gate;
      const input = this.admin_console_upstream_action_request;
      // A removal's token is its confirmation page's, checked below (confirmation_problem).
      if (input.action !== "delete") check_console_csrf(admin, input.csrf);
      const ip = client_ip(this.context, idp.config);
      const name = (input.upstream ?? "").trim();
      let danger: Danger | null = null;
      try {
        switch (input.action) {
          case "create": {
            const text = (value: string | undefined) => {
              const trimmed = (value ?? "").trim();
              return trimmed === "" ? undefined : trimmed;
            };
            const secret = input.client_secret ?? "";
            const row = await create_upstream(idp.store, idp.config, {
              name,
              client_id: (input.client_id ?? "").trim(),
              ...(text(input.preset) === undefined ? {} : { preset: text(input.preset)! }),
              ...(text(input.tenant) === undefined ? {} : { tenant: text(input.tenant)! }),
              ...(text(input.display_name) === undefined ? {} : { display_name: text(input.display_name)! }),
              ...(secret === "" ? {} : { client_secret: secret }),
            });
            await record_console_event(idp, admin.user, ip, { action: "upstream_created", details: { upstream: row.name, kind: row.kind } });
            return this.redirect_to(`${console_url(idp, "/upstreams")}?done=upstream_created`, 303);
          }
          case "enable":
          case "disable": {
            const row = await upstream_of(idp.store, name);
            check_if_match(input.etag ?? null, etag_of(upstream_admin_view(idp.config, row)));
            await change_upstream(idp.store, idp.config, row, { enabled: input.action === "enable" });
            await record_console_event(idp, admin.user, ip, { action: input.action === "enable" ? "upstream_enabled" : "upstream_disabled", details: { upstream: row.name } });
            return this.redirect_to(`${console_url(idp, "/upstreams")}?done=upstream_${input.action}d`, 303);
          }
          case "delete": {
            const row = await upstream_of(idp.store, name);
            danger = upstream_danger(idp, row);
            const problem = await confirmation_problem(idp, admin, danger, input, ip);
            if (problem !== null) {
              await record_console_event(idp, admin.user, ip, { action: "upstream_delete", outcome: "failure", details: { upstream: row.name, reason: "reauthentication" } });
              return this.view("admin/confirm", danger_values(idp, admin, danger, { error: problem }), 403);
            }
            check_if_match(input.etag ?? null, etag_of(upstream_admin_view(idp.config, row)));
            if (!(await idp.store.delete_upstream(row.name, { if_version: row.version }))) throw await lost_write(idp.store.get_upstream(row.name), "upstream", row.name);
            await record_console_event(idp, admin.user, ip, { action: "upstream_deleted", details: { upstream: row.name } });
            return this.redirect_to(`${console_url(idp, "/upstreams")}?done=upstream_deleted`, 303);
          }
        }
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, admin.user, ip, {
          action: `upstream_${input.action}`,
          outcome: "failure",
          details: { upstream: name, reason: error instanceof AdminError ? error.error : "error" },
        });
        if (danger !== null)
          return this.view(
            "admin/confirm",
            danger_values(idp, admin, { ...danger, refusal: words }),
            error instanceof AdminError && error.error === "precondition_failed" ? 412 : 409,
          );
        const form = { name, preset: input.preset ?? "", tenant: input.tenant ?? "", client_id: input.client_id ?? "", display_name: input.display_name ?? "" };
        const status = error instanceof AdminError && error.error === "precondition_failed" ? 412 : input.action === "create" ? 422 : 409;
        return this.view("admin/upstreams", await upstreams_page(idp, admin, { error: words, ...(input.action === "create" ? { form } : {}) }), status);
      }
    }
  };
