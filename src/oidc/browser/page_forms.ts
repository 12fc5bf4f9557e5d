/**
 * CSRF tokens of the pages a person reaches without being signed in and outside an
 * authorization request: forgot password, the links mailed to them (reset, verification,
 * invitation, e-mail change). Like the account page's own sign-in (endpoints/account/login.ts),
 * each form carries HMAC-SHA256(the browser's `idp_interaction` binding value, purpose)
 * (form_tokens.ts): a page of another site cannot compute it. A browser that has no binding value yet
 * gets one when the page is shown.
 */
import { cookie_options, interaction_cookie_name, read_cookie, type CookieReader, type CookieToSet } from "./cookies.ts";
import { random_token } from "../crypto/secrets.ts";
import { check_form_token, form_token, type PagePurpose } from "./form_tokens.ts";
import type { Provider } from "../provider.ts";

/** The form token of `purpose` for this browser, with the binding cookie to (re)set. */
export function page_form_token(idp: Provider, cookies: CookieReader, purpose: PagePurpose): { csrf: string; cookie: CookieToSet } {
  const binding = read_cookie(cookies, interaction_cookie_name(idp)) ?? random_token(32);
  return {
    csrf: form_token(binding, purpose),
    cookie: { name: interaction_cookie_name(idp), value: binding, options: cookie_options(idp, idp.config.tokens.interaction_ttl) },
  };
}

/** Rejects (403 page) a form of `purpose` whose token is missing or not this browser's. */
export function check_page_form(idp: Provider, cookies: CookieReader, given: string | undefined, purpose: PagePurpose, advice: string): void {
  const binding = read_cookie(cookies, interaction_cookie_name(idp));
  check_form_token(given, binding === null ? null : form_token(binding, purpose), advice);
}
