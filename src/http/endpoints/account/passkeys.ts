/**
 * POST /account/passkeys: the passkeys of the signed-in user.
 * - action=register: stores the passkey of a registration ceremony (its options came from
 *   passkey_options.ts after re-authentication; the challenge is bound to this session);
 * - action=rename: gives one a new name;
 * - action=remove: deletes one, after re-authentication as for adding one (passkey_options.ts:
 *   the password, throttled like a sign-in; without a password, a sign-in less than
 *   REAUTH_SECONDS ago), as removing the authenticator app asks for the password. The last way to
 *   sign in is never removed: a user without a password keeps their last passkey (decided
 *   atomically by the store).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_session, account_url, check_account_csrf, type AccountSession } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { default_passkey_name, parse_response, passkey_name_problem, register_passkey } from "../../../oidc/signin/passkeys/ceremony.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { account_values } from "../../pages/account.ts";
import { PASSKEY_PATHS, account_page_scripts } from "../../pages/passkeys.ts";
import { REAUTH_SECONDS, registration_binding } from "./passkey_options.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import { confirm_password } from "../../../oidc/signin/password.ts";

export const AccountPasskeysRequest = Fw.Request(
  "AccountPasskeysRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    action: z.enum(["register", "rename", "remove"]),
    passkey_id: z.string().max(64).optional(),
    name: z.string().max(256).optional(),
    password: z.string().max(4096).optional(),
    response: z
      .string()
      .max(64 * 1024)
      .optional(),
  }),
  { on_invalid: invalid_form },
);

export const AccountPasskeys = (idp: Provider) =>
  class AccountPasskeys extends Fw.Renderable(Fw.Endpoint(AccountPasskeysRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${PASSKEY_PATHS.manage}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_passkeys_request;
      check_account_csrf(session, input.csrf);
      const user = session.user;
      const ip = client_ip(this.context, idp.config);
      const at = idp.now();

      if (input.action === "register") {
        const count = await idp.store.count_passkeys_for_user(user.id);
        const name = (input.name ?? "").trim() === "" ? default_passkey_name(count) : input.name!;
        const problem = passkey_name_problem(name);
        if (problem !== null) return this.error(session, problem);
        const added = await register_passkey(idp, user, registration_binding(session.session.id_hash), parse_response(input.response), name);
        if (!added.ok) {
          await record_event(idp, { type: "passkey_added", outcome: "failure", user_id: user.id, ip, at, details: { reason: added.reason } });
          return this.error(session, added.message);
        }
        await record_event(idp, {
          type: "passkey_added",
          outcome: "success",
          user_id: user.id,
          ip,
          at,
          details: { passkey_id: added.passkey.id, synced: added.passkey.backup_eligible },
        });
        return this.redirect_to(`${account_url(idp)}?done=passkey_added`, 303);
      }

      const id = input.passkey_id ?? "";
      if (input.action === "rename") {
        const name = input.name ?? "";
        const problem = passkey_name_problem(name);
        if (problem !== null) return this.error(session, problem);
        if (!(await idp.store.rename_passkey(user.id, id, name.trim()))) return this.error(session, "That passkey is not on your account.");
        await record_event(idp, { type: "passkey_renamed", outcome: "success", user_id: user.id, ip, at, details: { passkey_id: id } });
        return this.redirect_to(`${account_url(idp)}?done=passkey_renamed`, 303);
      }

      // OWASP ASVS V3.7.1: re-authenticate before removing a way to sign in (a session left open
      // must not let someone else strip the owner's passkeys).
      if (user.password_hash !== "") {
        const attempt = await reserve_login_attempt(idp, ip, user.username);
        if (!(await confirm_password(idp, user, input.password ?? "", ip))) {
          await login_attempt_failed(idp, attempt);
          await record_event(idp, { type: "passkey_removed", outcome: "failure", user_id: user.id, ip, at, details: { passkey_id: id, reason: "wrong password" } });
          return this.error(session, "Your password is not right: the passkey was not removed.");
        }
        await release_login_attempt(idp, attempt);
      } else if (at - session.session.auth_time > REAUTH_SECONDS) {
        return this.error(session, `For your security, sign out and sign in again (within ${REAUTH_SECONDS / 60} minutes) before removing a passkey.`);
      }
      // Without a password the passkeys are the only way in: the last one stays.
      const keep_last = user.password_hash === "";
      if (!(await idp.store.delete_passkey(user.id, id, { keep_last }))) {
        const owned = (await idp.store.list_passkeys_for_user(user.id)).some((p) => p.id === id);
        return this.error(
          session,
          owned ? "This is the last way to sign in to your account: add another passkey before you remove this one." : "That passkey is not on your account.",
        );
      }
      await record_event(idp, { type: "passkey_removed", outcome: "success", user_id: user.id, ip, at, details: { passkey_id: id } });
      return this.redirect_to(`${account_url(idp)}?done=passkey_removed`, 303);
    }

    async error(session: AccountSession, message: string) {
      return this.view("account", { ...(await account_values(idp, session, { passkey_error: message })), ...account_page_scripts(idp, this.response.headers) }, 400);
    }
  };
