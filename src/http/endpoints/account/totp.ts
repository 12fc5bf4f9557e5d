/**
 * GET|POST /account/totp: two-step verification (TOTP, RFC 6238) on the user's account.
 *
 * - GET shows the set-up page: a QR code and the secret in base32 for an authenticator app. The
 *   secret is kept on the user but not in use (totp_enabled_at stays null) until...
 * - POST action=enable with one valid code proves the app has it: two-step verification is on,
 *   and ten recovery codes are shown once (stored as SHA-256).
 * - POST action=remove (current password required) turns it off and drops the recovery codes.
 * - POST action=recovery_codes (current password required) replaces the recovery codes.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_values } from "../../pages/account.ts";
import { account_page_scripts } from "../../pages/passkeys.ts";
import { ACCOUNT_PATHS, account_session, account_url, check_account_csrf, type AccountSession } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { confirm_password } from "../../../oidc/signin/password.ts";
import { invalid_form } from "../../errors.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import { layout_values } from "../../pages/layout.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { qr_data_url } from "../../pages/qr.ts";
import { grouped_secret, issue_recovery_codes, new_totp_secret, totp_key_uri, verify_totp } from "../../../oidc/signin/totp.ts";

export const AccountTotpRequest = Fw.Request(
  "AccountTotpRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(["enable", "remove", "recovery_codes"]).optional(),
    code: z.string().max(64).optional(),
    password: z.string().max(4096).optional(),
  }),
  { on_invalid: invalid_form },
);

export const AccountTotp = (idp: Provider) =>
  class AccountTotp extends Fw.Renderable(Fw.Endpoint(AccountTotpRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET|POST ${ACCOUNT_PATHS.totp}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      const status = this.request.method === "POST" ? 303 : 302;
      if (session === null) return this.redirect_to(account_url(idp, "login"), status);
      const enabled = session.user.totp_enabled_at !== null;
      if (this.request.method === "GET") return enabled ? this.redirect_to(account_url(idp)) : this.setup(session, null);

      const input = this.account_totp_request;
      check_account_csrf(session, input.csrf);
      const action = input.action ?? "enable";
      if (action === "enable") return enabled ? this.redirect_to(account_url(idp), 303) : this.enable(session, input.code ?? "");
      if (!enabled) return this.redirect_to(account_url(idp), 303);
      return this.with_password(session, action, input.password ?? "");
    }

    /** The set-up page; creates the (not yet enabled) secret on first view. */
    async setup(session: AccountSession, error: string | null) {
      let secret = session.user.totp_secret;
      if (secret === null) {
        secret = new_totp_secret();
        await idp.store.update_user(session.user.id, { totp_secret: secret });
      }
      const uri = totp_key_uri(new URL(idp.config.issuer).host, session.user.username, secret);
      return this.view(
        "account_totp",
        {
          ...layout_values(idp, "Set up two-step verification"),
          qr: qr_data_url(uri),
          uri,
          secret: grouped_secret(secret),
          csrf: session.csrf,
          action: account_url(idp, "totp"),
          back: account_url(idp),
          error,
        },
        error === null ? 200 : 400,
      );
    }

    async enable(session: AccountSession, code: string) {
      const user = session.user;
      if (user.totp_secret === null) return this.redirect_to(account_url(idp, "totp"), 303);
      const ip = client_ip(this.context, idp.config);
      // Reserve, verify, release (oidc/limits/login.ts).
      const attempt = await reserve_login_attempt(idp, ip, user.username);
      const result = await verify_totp(idp, user.id, user.totp_secret, code);
      if (result !== "ok") {
        await login_attempt_failed(idp, attempt);
        return this.setup(
          session,
          result === "reused"
            ? "That code was already used. Wait for the next code in your app."
            : "That code is not right. Scan the QR code again, or check that the time on your phone is set automatically.",
        );
      }
      await release_login_attempt(idp, attempt);
      await idp.store.update_user(user.id, { totp_enabled_at: idp.now() });
      const codes = await issue_recovery_codes(idp, user.id);
      await record_event(idp, { type: "two_factor_enrolled", outcome: "success", user_id: user.id, ip, details: { method: "totp" } });
      return this.recovery_codes(codes, "Two-step verification is on", "totp_enabled");
    }

    async with_password(session: AccountSession, action: "remove" | "recovery_codes", password: string) {
      const user = session.user;
      const ip = client_ip(this.context, idp.config);
      const attempt = await reserve_login_attempt(idp, ip, user.username);
      if (!(await confirm_password(idp, user, password, ip))) {
        await login_attempt_failed(idp, attempt);
        return this.view(
          "account",
          { ...(await account_values(idp, session, { totp_error: "Your password is not right." })), ...account_page_scripts(idp, this.response.headers) },
          400,
        );
      }
      await release_login_attempt(idp, attempt);
      const at = idp.now();
      if (action === "recovery_codes") {
        const codes = await issue_recovery_codes(idp, user.id);
        await record_event(idp, { type: "recovery_codes_replaced", outcome: "success", user_id: user.id, ip, at });
        return this.recovery_codes(codes, "New recovery codes", null);
      }
      await idp.store.update_user(user.id, { totp_secret: null, totp_enabled_at: null });
      await idp.store.set_recovery_codes(user.id, [], at);
      await record_event(idp, { type: "two_factor_removed", outcome: "success", user_id: user.id, ip, at, details: { method: "totp" } });
      return this.redirect_to(`${account_url(idp)}?done=totp_removed`, 303);
    }

    /** The codes, shown once: they are only stored hashed. */
    recovery_codes(codes: string[], title: string, done: string | null) {
      return this.view("recovery_codes", { ...layout_values(idp, title), heading: title, codes, next: `${account_url(idp)}${done === null ? "" : `?done=${done}`}` });
    }
  };
