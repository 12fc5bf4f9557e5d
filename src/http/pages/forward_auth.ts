/**
 * The pages of forward authentication: the refusal of a signed-in user outside an application's
 * groups, and the refusal of an address that is no registered application. The check
 * (endpoints/forward_auth/check.ts) answers them through the proxy, so the browser shows them at
 * the application's own address: their CSP names the issuer's origin for the stylesheet and
 * images (`'self'` there is the application), and the links are absolute. The start step
 * (endpoints/forward_auth/start.ts) shows the same at the provider.
 */
import { account_url } from "../../oidc/browser/account_guard.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { ProtectedAppRow, UserRow } from "../../store/types.ts";
import { layout_values } from "./layout.ts";

export const DENIED_TITLE = "No access to this application";
export const UNKNOWN_TITLE = "Not a registered application";
export const LINK_TITLE = "This sign-in link cannot be used";

/** The values of views/message.eta for a user outside the application's groups. */
export function denied_values(idp: Provider, app: ProtectedAppRow, user: UserRow): Record<string, unknown> {
  return {
    ...layout_values(idp, DENIED_TITLE),
    heading: DENIED_TITLE,
    notice: null,
    message: `You are signed in as ${user.username}, but your account is not in a group allowed to open ${app.name}. Ask an administrator for access, or sign out on your account page and sign in with another account.`,
    form: null,
    link: { href: account_url(idp), text: "Go to your account" },
    // Its form posts to the provider, which the application's address cannot allow (foreign_page_csp).
    no_locale_switcher: true,
  };
}

/** The values of views/message.eta for an address that is no registered application. */
export function unknown_values(idp: Provider, message: string): Record<string, unknown> {
  return { ...layout_values(idp, UNKNOWN_TITLE), heading: UNKNOWN_TITLE, notice: null, message, form: null, link: null, no_locale_switcher: true };
}

/** The values of views/message.eta for an application callback whose code cannot be used (oidc/forward_auth/callback.ts). */
export function unusable_link_values(idp: Provider, message: string): Record<string, unknown> {
  return { ...layout_values(idp, LINK_TITLE), heading: LINK_TITLE, notice: null, message, form: null, link: null, no_locale_switcher: true };
}

/** The CSP of a page shown at an application's address: our stylesheet and images by the issuer's origin, no script, never framed. */
export function foreign_page_csp(idp: Provider): string {
  const origin = new URL(idp.config.issuer).origin;
  return `default-src 'none'; style-src ${origin}; img-src ${origin} data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`;
}
