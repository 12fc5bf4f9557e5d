/**
 * GET /admin: the console's dashboard: the counts (each a link to its page), the version and the
 * issuer, the health (database, mail and its outbox, signing keys), the warnings `idp config
 * check` prints, the failed sign-ins of the last 24 hours by application and by address, and the
 * week's sign-ins per day (oidc/admin/overview.ts).
 */
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { dashboard } from "../../../oidc/admin/overview.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_values, when } from "../../pages/admin_console.ts";

export const AdminConsoleDashboard = (idp: Provider) =>
  class AdminConsoleDashboard extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}`;

    async call() {
      const gate = await console_gate(idp, this, "view_dashboard");
      if ("refused" in gate) return gate.refused;
      const board = await dashboard(idp);
      // The trend's bars: each day's sign-ins against the busiest day's, in steps of 10 % (CSS classes, no inline style).
      const busiest = Math.max(1, ...(board.trend ?? []).map((day) => day.successes + day.failures));
      const trend = (board.trend ?? []).map((day) => ({ ...day, step: Math.round(((day.successes + day.failures) / busiest) * 10) * 10 }));
      const keys = board.keys.map((key) => ({ ...key, rotates: key.next_rotation === null ? null : when(key.next_rotation) }));
      return this.view("admin/dashboard", console_values(idp, gate.admin, "dashboard", "Dashboard", { board, keys, counts: board.counts, trend }));
    }
  };
