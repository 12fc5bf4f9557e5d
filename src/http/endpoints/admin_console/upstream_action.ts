/**
 * POST /admin/upstreams: add a sign-in provider from a preset, or a generic OpenID Connect one
 * (its issuer URL and client: `check_oidc` shows the redirect URI of the typed definition before
 * `create_oidc` adds it, and the outbound fence's warnings are shown after), enable or disable one, remove one
 * (with the identities linked through it, as `idp upstreams remove`; only from its confirmation
 * page, upstream_confirm.ts: its own form token and re-authentication). The rules are the admin API's (oidc/admin/upstreams.ts);
 * changes carry the ETag the page showed. The client secret is written, never shown.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of, lost_write } from "../../../oidc/admin/etag.ts";
import { change_upstream, check_upstream, create_upstream, upstream_admin_view, upstream_of, upstream_taken, type UpstreamCreateInput } from "../../../oidc/admin/upstreams.ts";
import { redirect_uri } from "../../../oidc/federation/upstreams.ts";
import { outbound_warnings, upstream_called_urls } from "../../../oidc/outbound/preflight.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_notice, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { upstream_danger } from "./upstream_confirm.ts";
import { upstreams_page, type GenericForm } from "./upstreams.ts";

export const AdminConsoleUpstreamActionRequest = Fw.Request(
  "AdminConsoleUpstreamActionRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(["create", "check_oidc", "create_oidc", "enable", "disable", "delete"]),
    upstream: z.string().max(64).optional(),
    etag: z.string().max(64).optional(),
    preset: z.string().max(64).optional(),
    tenant: z.string().max(255).optional(),
    client_id: z.string().max(512).optional(),
    client_secret: z.string().max(4096).optional(),
    display_name: z.string().max(100).optional(),
    issuer: z.string().max(2048).optional(),
    scopes: z.string().max(1024).optional(),
    policy: z.string().max(16).optional(),
    auto_link: z.string().max(8).optional(),
    auth_method: z.string().max(32).optional(),
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
      const text = (value: string | undefined) => {
        const trimmed = (value ?? "").trim();
        return trimmed === "" ? undefined : trimmed;
      };
      // The generic form as typed, kept on a refusal or a check (never its secret).
      const generic: GenericForm = {
        name,
        display_name: input.display_name ?? "",
        issuer: input.issuer ?? "",
        client_id: input.client_id ?? "",
        scopes: input.scopes ?? "",
        policy: input.policy === "link" ? "link" : "jit",
        auto_link: input.auto_link !== undefined && input.auto_link !== "",
        // Without IDP_SECRET_KEY the form offers no secret: a signed assertion only.
        auth_method: input.auth_method === "private_key_jwt" || idp.config.federation.secret_key === undefined ? "private_key_jwt" : "client_secret_post",
      };
      const generic_input = (): UpstreamCreateInput => {
        const scopes = generic.scopes.split(/[\s,]+/).filter((scope) => scope !== "");
        return {
          name,
          kind: "oidc",
          client_id: generic.client_id.trim(),
          issuer: generic.issuer.trim(),
          ...(text(input.display_name) === undefined ? {} : { display_name: text(input.display_name)! }),
          ...(scopes.length === 0 ? {} : { scopes }),
          ...(input.policy === undefined ? {} : { policy: input.policy as UpstreamCreateInput["policy"] & string }),
          auto_link: generic.auto_link,
          ...(generic.auth_method === "private_key_jwt" ? { token_endpoint_auth_method: "private_key_jwt" } : {}),
        };
      };
      try {
        switch (input.action) {
          case "check_oidc": {
            // The rules without the secret (not sealed, not kept): the redirect URI of the typed name.
            const row = check_upstream(idp.config, generic_input());
            if ((await idp.store.get_upstream(row.name)) !== null) throw upstream_taken(row.name);
            return this.view("admin/upstreams", await upstreams_page(idp, admin, { generic, checked_redirect_uri: redirect_uri(idp.config, row.name) }));
          }
          case "create_oidc": {
            const secret = input.client_secret ?? "";
            const row = await create_upstream(idp.store, idp.config, { ...generic_input(), ...(secret === "" ? {} : { client_secret: secret }) });
            await record_console_event(idp, admin.user, ip, { action: "upstream_created", details: { upstream: row.name, kind: row.kind } });
            // Warnings, not refusals (oidc/outbound/preflight.ts): URLs the outbound fence would not call.
            const warnings = await outbound_warnings(upstream_called_urls(row), idp.config.outbound);
            if (warnings.length === 0) return this.redirect_to(`${console_url(idp, "/upstreams")}?done=upstream_created`, 303);
            return this.view("admin/upstreams", await upstreams_page(idp, admin, { notice: console_notice("upstream_created"), warnings }));
          }
          case "create": {
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
          action: input.action === "check_oidc" || input.action === "create_oidc" ? "upstream_create" : `upstream_${input.action}`,
          outcome: "failure",
          details: { upstream: name, reason: error instanceof AdminError ? error.error : "error" },
        });
        if (danger !== null)
          return this.view(
            "admin/confirm",
            danger_values(idp, admin, { ...danger, refusal: words }),
            error instanceof AdminError && error.error === "precondition_failed" ? 412 : 409,
          );
        if (input.action === "check_oidc" || input.action === "create_oidc")
          return this.view(
            "admin/upstreams",
            await upstreams_page(idp, admin, { generic_error: words, generic }),
            error instanceof AdminError && error.error === "conflict" ? 409 : 422,
          );
        const form = { name, preset: input.preset ?? "", tenant: input.tenant ?? "", client_id: input.client_id ?? "", display_name: input.display_name ?? "" };
        const status = error instanceof AdminError && error.error === "precondition_failed" ? 412 : input.action === "create" ? 422 : 409;
        return this.view("admin/upstreams", await upstreams_page(idp, admin, { error: words, ...(input.action === "create" ? { form } : {}) }), status);
      }
    }
  };
