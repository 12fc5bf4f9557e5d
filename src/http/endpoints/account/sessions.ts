/**
 * POST /account/sessions: a signed-in user ends one of their other browser sessions
 * (`session` = its sid, as listed on the account page) or all of them (`others=1`). Each ends
 * as a sign-out would (logout/end_session.ts): the tokens issued in it are revoked (refresh
 * tokens granted offline_access aside, OIDC Core §11), the clients it signed in to get a
 * back-channel logout token, and its cookie no longer signs anyone in. This browser's own
 * session is ended with "Sign out" instead, so it is never a target here. The sessions end at
 * once, so the page waits for their deliveries at most once (backchannel.ts RESPONSE_WAIT_MS);
 * no front-channel page is shown, as the ended sessions' cookies are in other browsers
 * (logout/bulk.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ACCOUNT_PATHS, account_session, account_url, check_account_csrf } from "../../../oidc/browser/account_guard.ts";
import { end_session } from "../../../oidc/logout/end_session.ts";
import { session_sid } from "../../../oidc/logout/sid.ts";
import { invalid_form } from "../../errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const AccountSessionsRequest = Fw.Request(
  "AccountSessionsRequest",
  z
    .object({
      csrf: z.string().max(256).optional(),
      // A sid: SHA-256 in base64url (logout/sid.ts).
      session: z
        .string()
        .regex(/^[A-Za-z0-9_-]{43}$/, "must be a session id from the account page")
        .optional(),
      others: z.literal("1").optional(),
    })
    .refine((form) => (form.session === undefined) !== (form.others === undefined), { message: "give either session or others", path: ["session"] }),
  { on_invalid: invalid_form },
);

export const AccountSessions = (idp: Provider) =>
  class AccountSessions extends Fw.Endpoint(AccountSessionsRequest, Fw.Response.Redirect) {
    static route = `POST ${ACCOUNT_PATHS.sessions}`;

    async call() {
      const current = await account_session(idp, this.cookies);
      if (current === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_sessions_request;
      check_account_csrf(current, input.csrf);
      const others = (await idp.store.list_sessions_for_user(current.user.id)).filter((row) => row.id_hash !== current.session.id_hash);
      const targets = input.others === "1" ? others : others.filter((row) => session_sid(row.id_hash) === input.session);
      const ip = client_ip(this.context, idp.config) || null;
      await Promise.all(targets.map((session) => end_session(idp, { session, user: current.user }, { client_id: null, ip, initiator: "account" })));
      // A session already gone (ended elsewhere, expired) is not an error: the outcome is the same.
      return this.redirect_to(`${account_url(idp)}?done=${input.others === "1" ? "sessions_ended" : "session_ended"}`, 303);
    }
  };
