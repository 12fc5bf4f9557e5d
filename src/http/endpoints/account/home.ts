/**
 * GET /account: the signed-in user's own page (profile, two-step verification, password, the
 * applications they allowed). Without a session in this browser, the account's sign-in page.
 */
import { Fw } from "../../../fw/index.ts";
import { NOTICES, account_values, is_notice } from "../../pages/account.ts";
import { ACCOUNT_PATHS, account_session, account_url } from "../../../oidc/account/session.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";

export const Account = (idp: Provider) =>
  class Account extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ACCOUNT_PATHS.home}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"));
      // `done` only selects one of the fixed confirmations; nothing from the URL is shown.
      const done = this.params.done;
      // The passkey forms run static/passkeys.js.
      set_page_headers(this.response.headers, null, idp.config.passkeys);
      return this.view("account", await account_values(idp, session, { notice: is_notice(done) ? NOTICES[done] : null }));
    }
  };
