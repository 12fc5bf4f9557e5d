/**
 * POST /locale: the language switcher at the foot of every page (README, "Languages"). It sets
 * the switcher's cookie and, for a signed-in user whose form carries their account form token,
 * saves the choice (users.locale: their pages everywhere and their mail). Then back to the page
 * it was sent from: a same-origin path only (no open redirect). Works without JavaScript.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_session, account_url, check_account_csrf } from "../../../oidc/browser/account_guard.ts";
import { cookie_name, cookie_options } from "../../../oidc/browser/cookies.ts";
import { PageError } from "../../../oidc/errors.ts";
import { LOCALES, supported_locale } from "../../../oidc/ui/catalogs.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE, LOCALE_PATH } from "../../middleware/locale.ts";

export const LocaleRequest = Fw.Request(
  "LocaleRequest",
  z.object({
    locale: z.string().max(35),
    return_to: z.string().max(2048).optional(),
    csrf: z.string().max(256).optional(),
  }),
  { on_invalid: invalid_form },
);

/** A path on this origin (`/…`, never `//host` or `/\host`, no control characters); else null. */
export function same_origin_path(value: string | undefined): string | null {
  if (value === undefined || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return null;
  return /[\u0000-\u001f\u007f]/.test(value) ? null : value;
}

export const Locale = (idp: Provider) =>
  class Locale extends Fw.Endpoint(LocaleRequest, Fw.Response.Redirect) {
    static route = `POST ${LOCALE_PATH}`;

    async call() {
      const input = this.locale_request;
      const locale = LOCALES.includes(input.locale) ? input.locale : null;
      if (locale === null || supported_locale(locale) !== locale) {
        throw new PageError("The form could not be read", `locale: must be one of ${LOCALES.join(", ")}.`);
      }
      this.set_cookie(cookie_name(idp, LOCALE_COOKIE), locale, cookie_options(idp, LOCALE_COOKIE_MAX_AGE));
      // Saving the preference changes the account: only with the account form token (CSRF).
      if (input.csrf !== undefined) {
        const session = await account_session(idp, this.cookies);
        if (session !== null) {
          check_account_csrf(session, input.csrf);
          if (session.user.locale !== locale) await idp.store.update_user(session.user.id, { locale });
        }
      }
      const back = same_origin_path(input.return_to);
      return this.redirect_to(back === null ? account_url(idp) : new URL(back, idp.config.issuer).href, 303);
    }
  };
