/**
 * GET /account: the signed-in user's own page (profile, two-step verification, password, the
 * applications they allowed). Without a session in this browser, the account's sign-in page.
 */
import { Fw } from "../../../fw/index.ts";
import { NOTICES, account_values, is_notice } from "../../pages/account.ts";
import { ACCOUNT_PATHS, account_session, account_url } from "../../../oidc/browser/account_guard.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { account_page_scripts } from "../../pages/passkeys.ts";

export const Account = (idp: Provider) =>
  class Account extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ACCOUNT_PATHS.home}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"));
      // `done` only selects one of the fixed confirmations; nothing from the URL is shown.
      const done = this.params.done;
      const values = await account_values(idp, session, { notice: is_notice(done) ? NOTICES[done] : null });
      // The passkey forms run static/passkeys.js.
      return this.view("account", { ...values, ...account_page_scripts(idp, this.response.headers) });
    }
  };
