/** GET /admin: the console's dashboard: users, live sessions, sign-ins and failed sign-ins over the last 24 hours. */
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_values } from "../../pages/admin_console.ts";

const DAY = 24 * 60 * 60;

export const AdminConsoleDashboard = (idp: Provider) =>
  class AdminConsoleDashboard extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}`;

    async call() {
      const gate = await console_gate(idp, this, "view_dashboard");
      if ("refused" in gate) return gate.refused;
      const now = idp.now();
      const counts = await idp.store.count_overview(now, now - DAY);
      return this.view("admin/dashboard", console_values(idp, gate.admin, "dashboard", "Dashboard", { counts }));
    }
  };
