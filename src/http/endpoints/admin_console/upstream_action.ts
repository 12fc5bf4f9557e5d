/**
 * POST /admin/upstreams: add a sign-in provider from a preset, enable or disable one, remove one
 * (with the identities linked through it, as `idp upstreams remove`; re-authentication first, as
 * for every destructive console action). The rules are the admin API's (oidc/admin/upstreams.ts);
 * changes carry the ETag the page showed. The client secret is written, never shown.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, reauthentication_problem, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of, lost_write } from "../../../oidc/admin/etag.ts";
import { change_upstream, create_upstream, upstream_admin_view, upstream_of } from "../../../oidc/admin/upstreams.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
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
      const gate = await console_gate(idp, this);
      if ("refused" in gate) return gate.refused;
      const { admin } = gate;
      const input = this.admin_console_upstream_action_request;
      check_console_csrf(admin, input.csrf);
      const ip = client_ip(this.context, idp.config);
      const name = (input.upstream ?? "").trim();
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
            check_if_match(input.etag ?? null, etag_of(upstream_admin_view(idp.config, row)));
            const problem = await reauthentication_problem(idp, admin.user, admin.session.auth_time, input.password, ip);
            if (problem !== null) throw new AdminError("conflict", problem);
            if (!(await idp.store.delete_upstream(row.name, { if_version: row.version }))) throw await lost_write(idp.store.get_upstream(row.name), "upstream", row.name);
            await record_console_event(idp, admin.user, ip, { action: "upstream_deleted", details: { upstream: row.name } });
            return this.redirect_to(`${console_url(idp, "/upstreams")}?done=upstream_deleted`, 303);
          }
        }
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, admin.user, ip, { action: `upstream_${input.action}`, outcome: "failure", details: { upstream: name, reason: error instanceof AdminError ? error.error : "error" } });
        const form = { name, preset: input.preset ?? "", tenant: input.tenant ?? "", client_id: input.client_id ?? "", display_name: input.display_name ?? "" };
        const status = error instanceof AdminError && error.error === "precondition_failed" ? 412 : input.action === "create" ? 422 : 409;
        return this.view("admin/upstreams", await upstreams_page(idp, admin, { error: words, ...(input.action === "create" ? { form } : {}) }), status);
      }
    }
  };
