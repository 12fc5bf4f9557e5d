/**
 * POST /account/identities/link: a signed-in user links an upstream account (`upstream`, one of
 * the account page's buttons) as another way to sign in. A linked identity is a lasting way in
 * that outlives a password reset and "sign out everywhere", so a session alone (a stolen cookie)
 * is not enough: re-authentication first, as for adding a passkey (passkey_options.ts): the
 * user's password when they have one (throttled like a sign-in), else a sign-in less than
 * REAUTH_SECONDS ago. Then the browser goes to the upstream; the link is made at the callback
 * (oidc/federation/flow.ts), which mails the account's owner a notice.
 *
 * A POST form (the session's CSRF token in the body, never in a URL that history keeps), answered
 * with a page that navigates on (meta refresh, with a link), not a redirect: browsers check every
 * redirect after a form POST against the page's CSP form-action (CSP Level 3 §6.4.2), which names
 * us but not the upstream.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_session, account_url, check_account_csrf, type AccountSession } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { cookie_options, interaction_cookie_name, read_cookie } from "../../../oidc/browser/cookies.ts";
import { random_token } from "../../../oidc/crypto/secrets.ts";
import { begin_upstream, count_upstream_start, enabled_upstream } from "../../../oidc/federation/flow.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { confirm_password } from "../../../oidc/signin/password.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { account_values } from "../../pages/account.ts";
import { layout_values } from "../../pages/layout.ts";
import { REAUTH_SECONDS } from "./passkey_options.ts";

export const ACCOUNT_IDENTITY_LINK_PATH = "/account/identities/link";

export const AccountIdentityLinkRequest = Fw.Request(
  "AccountIdentityLinkRequest",
  z.object({ csrf: z.string().max(256).optional(), upstream: z.string().max(64), current_password: z.string().max(4096).optional() }),
  { on_invalid: invalid_form },
);

export const AccountIdentityLink = (idp: Provider) =>
  class AccountIdentityLink extends Fw.Renderable(Fw.Endpoint(AccountIdentityLinkRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ACCOUNT_IDENTITY_LINK_PATH}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_identity_link_request;
      check_account_csrf(session, input.csrf);
      const upstream = await enabled_upstream(idp, input.upstream);
      const user = session.user;
      const ip = client_ip(this.context, idp.config);
      if (user.password_hash !== "") {
        // Reserve, verify, release (oidc/limits/login.ts), as for a password or e-mail change.
        const attempt = await reserve_login_attempt(idp, ip, user.username);
        if (!(await confirm_password(idp, user, input.current_password ?? "", ip))) {
          await login_attempt_failed(idp, attempt);
          await record_event(idp, {
            type: "federation_link",
            outcome: "failure",
            user_id: user.id,
            ip,
            details: { upstream: upstream.name, how: "manual", reason: "re-authentication failed" },
          });
          return this.failed(session, `Password: that is not your password, so ${upstream.display_name} was not linked.`);
        }
        await release_login_attempt(idp, attempt);
      } else if (idp.now() - session.session.auth_time > REAUTH_SECONDS) {
        // No password to ask for (passkey or upstream sign-in only): a recent sign-in is the proof (OWASP ASVS V3.7.1).
        await record_event(idp, {
          type: "federation_link",
          outcome: "failure",
          user_id: user.id,
          ip,
          details: { upstream: upstream.name, how: "manual", reason: "sign-in not recent" },
        });
        return this.failed(session, `For your security, sign out and sign in again, then link ${upstream.display_name} within ${REAUTH_SECONDS / 60} minutes.`);
      }
      await count_upstream_start(idp, ip);
      // The state is bound to this browser by its interaction cookie (as /federation/NAME/start does).
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp)) ?? random_token(32);
      this.set_cookie(interaction_cookie_name(idp), binding, cookie_options(idp, Math.max(idp.config.tokens.interaction_ttl, idp.config.federation.state_ttl_seconds)));
      const next = await begin_upstream(idp, upstream, { interaction_id: null, binding, link_user_id: user.id, ip });
      this.response.headers.set("cache-control", "no-store");
      this.response.headers.set("referrer-policy", "no-referrer");
      return this.view("federation_link_continue", { ...layout_values(idp, `Link ${upstream.display_name}`), next, upstream: upstream.display_name });
    }

    async failed(session: AccountSession, message: string) {
      return this.view("account", await account_values(idp, session, { identity_error: message }), 400);
    }
  };
