/**
 * GET /admin/upstreams: the sign-in providers (upstream identity providers: oidc/federation),
 * each with its redirect URI to register there, its form (enable or disable) and the link to
 * remove it (upstream_confirm.ts), and
 * the forms to add one: from a preset, or a generic OpenID Connect provider (issuer URL, client,
 * scopes, policy; the redirect URI's pattern beside its name, the exact one on the check step).
 * Never a client secret: only whether one is stored, and no secret field without IDP_SECRET_KEY.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import { upstream_admin_view } from "../../../oidc/admin/upstreams.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { PRESETS } from "../../../oidc/federation/presets.ts";
import { redirect_uri } from "../../../oidc/federation/upstreams.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_notice, console_values, when } from "../../pages/admin_console.ts";
import { upstream_confirm_url } from "./upstream_confirm.ts";

export const AdminConsoleUpstreamsRequest = Fw.Request("AdminConsoleUpstreamsRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

export type UpstreamForm = { name: string; preset: string; tenant: string; client_id: string; display_name: string };

const EMPTY_FORM: UpstreamForm = { name: "", preset: "google", tenant: "", client_id: "", display_name: "" };

/** The generic OpenID Connect form (its secret never echoed). */
export type GenericForm = {
  name: string;
  display_name: string;
  issuer: string;
  client_id: string;
  scopes: string;
  policy: "jit" | "link";
  auto_link: boolean;
  auth_method: "client_secret_post" | "private_key_jwt";
};

export async function upstreams_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const upstreams = (await idp.store.list_upstreams()).map((row) => {
    const view = upstream_admin_view(idp.config, row);
    // The removal is confirmed on its own page (upstream_confirm.ts).
    return { ...view, etag: etag_of(view), created: when(row.created_at), delete_url: upstream_confirm_url(idp, row.name) };
  });
  const presets = Object.entries(PRESETS).map(([name, preset]) => ({ name, label: preset.display_name ?? name }));
  return console_values(idp, admin, "upstreams", "Sign-in providers", {
    upstreams,
    presets,
    // Without IDP_SECRET_KEY no client secret can be stored (federation/secret_box.ts): the form says so.
    secret_key: idp.config.federation.secret_key !== undefined,
    form: EMPTY_FORM,
    generic: {
      name: "",
      display_name: "",
      issuer: "",
      client_id: "",
      scopes: "openid email profile",
      policy: "jit",
      auto_link: false,
      auth_method: idp.config.federation.secret_key === undefined ? "private_key_jwt" : "client_secret_post",
    } satisfies GenericForm,
    // The redirect URI of a name to be typed (federation/upstreams.ts redirect_uri).
    redirect_pattern: redirect_uri(idp.config, "<name>"),
    warnings: [],
    ...extra,
  });
}

export const AdminConsoleUpstreams = (idp: Provider) =>
  class AdminConsoleUpstreams extends Fw.Renderable(Fw.Endpoint(AdminConsoleUpstreamsRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/upstreams`;

    async call() {
      const gate = await console_gate(idp, this, "view_upstreams");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/upstreams", await upstreams_page(idp, gate.admin, { notice: console_notice(this.admin_console_upstreams_request.done) }));
    }
  };
