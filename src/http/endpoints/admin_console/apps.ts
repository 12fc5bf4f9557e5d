/**
 * GET /admin/apps: the applications behind the reverse proxy (forward authentication: the proxy
 * asks /forward-auth before each request), each with its URL, who may open it and its rules per
 * path, a link to its page (app.ts); and the form to add one (app_create.ts), by the rules of
 * `idp apps add` (oidc/admin/apps.ts). The form's text fields as the command's options: groups
 * separated by spaces or commas, one rule a line as `--rule` writes it.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { in_cookie_domain } from "../../../config/schema.ts";
import type { AppInput } from "../../../oidc/admin/apps.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { format_rule, host_name } from "../../../oidc/forward_auth/apps.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ProtectedAppRow } from "../../../store/types.ts";
import { console_gate, console_notice, console_url, console_values, type ConsoleEndpoint } from "../../pages/admin_console.ts";

export const AdminConsoleAppsRequest = Fw.Request("AdminConsoleAppsRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The add and edit forms as typed: kept when the rules refuse them. */
export type AppForm = { name: string; url: string; groups: string; require_2fa: boolean; rules: string };

export const APP_FORM_FIELDS = {
  csrf: z.string().max(256).optional(),
  url: z.string().max(2048).optional(),
  groups: z.string().max(8192).optional(),
  require_2fa: z.string().max(8).optional(),
  rules: z.string().max(65536).optional(),
};

export function app_form_of(input: { url?: string | undefined; groups?: string | undefined; require_2fa?: string | undefined; rules?: string | undefined }, name = ""): AppForm {
  return { name: name.trim(), url: (input.url ?? "").trim(), groups: input.groups ?? "", require_2fa: input.require_2fa !== undefined, rules: input.rules ?? "" };
}

/** What the form gives the rules: the groups listed, the rules one a line (blank lines skipped). */
export function app_input_of(form: AppForm): Required<AppInput> {
  const groups = form.groups.split(/[\s,]+/).filter((name) => name !== "" && name !== "*");
  const rules = form.rules
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return { url: form.url, allowed_groups: groups, require_2fa: form.require_2fa, rules };
}

export function app_form_from(app: ProtectedAppRow): AppForm {
  return { name: app.name, url: app.url, groups: app.allowed_groups.join(" "), require_2fa: app.require_2fa, rules: app.rules.map(format_rule).join("\n") };
}

/** Why browsers will not bring the forward-auth cookie to the application, as a catalog message; null when they will. */
export function cookie_warning(idp: Provider, app: Pick<ProtectedAppRow, "host">): { key: string; values?: Record<string, string> } | null {
  const domain = idp.config.forward_auth.cookie_domain;
  if (domain === undefined) return { key: "admin.app_no_cookie_domain" };
  if (!in_cookie_domain(host_name(app.host), domain)) return { key: "admin.app_outside_cookie_domain", values: { host: host_name(app.host), domain } };
  return null;
}

export async function apps_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const apps = (await idp.store.list_protected_apps()).map((app) => ({
    name: app.name,
    url: app.url,
    groups: app.allowed_groups,
    require_2fa: app.require_2fa,
    rules: app.rules.length,
    href: console_url(idp, `/apps/${encodeURIComponent(app.name)}`),
  }));
  return console_values(idp, admin, "apps", "Protected applications", {
    apps,
    forward_auth_on: idp.config.forward_auth.cookie_domain !== undefined,
    form: { name: "", url: "", groups: "", require_2fa: false, rules: "" } satisfies AppForm,
    ...extra,
  });
}

/** The 404 page of an application that is not (or no longer) registered. */
export function no_such_app(idp: Provider, endpoint: Pick<ConsoleEndpoint, "view">, admin: ConsoleSession) {
  return endpoint.view(
    "message",
    {
      ...console_values(idp, admin, "apps", "No such protected application"),
      message: "This protected application is not registered (any more).",
      link: { href: console_url(idp, "/apps"), text: "Back to the protected applications" },
      form: null,
    },
    404,
  );
}

export const AdminConsoleApps = (idp: Provider) =>
  class AdminConsoleApps extends Fw.Renderable(Fw.Endpoint(AdminConsoleAppsRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/apps`;

    async call() {
      const gate = await console_gate(idp, this, "view_apps");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/apps", await apps_page(idp, gate.admin, { notice: console_notice(this.admin_console_apps_request.done) }));
    }
  };
