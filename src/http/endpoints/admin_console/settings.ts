/**
 * GET /admin/settings: the effective configuration, secrets masked as `idp config check` masks
 * them, each value's source (default, config file, environment); the mail status with the test
 * message's button (settings_test_mail.ts) and the outbox's newest messages (never a body); the
 * password, second-factor and sign-up policies (oidc/admin/overview.ts).
 */
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { settings_report } from "../../../oidc/admin/overview.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_url, console_values, when } from "../../pages/admin_console.ts";

/** A value as the page shows it: a string or number as is, a list or object as JSON; null when unset. */
function shown(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

export async function settings_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const report = await settings_report(idp);
  const value = (path: string) => shown(report.settings.find((setting) => setting.path === path)?.value);
  return console_values(idp, admin, "settings", "Settings", {
    settings: report.settings.map((setting) => ({ ...setting, shown: shown(setting.value) })),
    warnings: report.warnings,
    mail: report.mail,
    mail_from: value("mail_from"),
    outbox: report.outbox.map((message) => ({ ...message, created: when(message.created_at) })),
    policy: {
      password_min: value("passwords.min_length"),
      password_max: value("passwords.max_length"),
      require_2fa: value("require_2fa"),
      passkeys: value("passkeys"),
      signup: value("signup.mode"),
      signup_domains: value("signup.domains"),
      signup_verification: value("signup.require_verification"),
    },
    test_mail_url: console_url(idp, "/settings/test-mail"),
    my_email: admin.user.email,
    ...extra,
  });
}

export const AdminConsoleSettings = (idp: Provider) =>
  class AdminConsoleSettings extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/settings`;

    async call() {
      const gate = await console_gate(idp, this, "view_settings");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/settings", await settings_page(idp, gate.admin));
    }
  };
