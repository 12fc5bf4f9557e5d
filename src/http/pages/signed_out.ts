/**
 * How a logout ends for the browser (OIDC RP-Initiated Logout §3): a redirect to the client's
 * registered post_logout_redirect_uri with `state`, or, with none, the "signed out" page.
 * Also the "still signed in" page after "Stay signed in".
 */
import { display_name } from "../../oidc/clients.ts";
import { expired_cookie_options, session_cookie_name, type CookieReader, type CookieToSet } from "../../oidc/cookies.ts";
import { layout_values, type LayoutValues } from "./layout.ts";
import type { Provider } from "../../oidc/provider.ts";
import { post_logout_redirect, type ValidLogout } from "../../oidc/logout/request.ts";

export type LogoutAnswer = { kind: "redirect"; url: string } | { kind: "page"; values: SignedOutValues };

/** Values of views/logged_out.eta. */
export type SignedOutValues = LayoutValues & { heading: string; message: string; client_name: string | null; signed_out: boolean };

export function signed_out_answer(idp: Provider, request: ValidLogout): LogoutAnswer {
  const url = post_logout_redirect(request);
  if (url !== null) return { kind: "redirect", url };
  return {
    kind: "page",
    values: {
      ...layout_values(idp, "Signed out"),
      heading: "You are signed out",
      message: `You have been signed out of ${layout_values(idp, "").site}. You can close this window.`,
      client_name: request.client === null ? null : display_name(request.client),
      signed_out: true,
    },
  };
}

export function stayed_values(idp: Provider, request: ValidLogout): SignedOutValues {
  return {
    ...layout_values(idp, "Still signed in"),
    heading: "You are still signed in",
    message: `You chose to stay signed in to ${layout_values(idp, "").site}. You can close this window.`,
    client_name: request.client === null ? null : display_name(request.client),
    signed_out: false,
  };
}

/** The Set-Cookie that removes the browser's session cookie, or null when it sent none. */
export function clear_session_cookie(idp: Provider, cookies: CookieReader): CookieToSet | null {
  const name = session_cookie_name(idp);
  if (cookies.get(name) === null) return null;
  return { name, value: "", options: expired_cookie_options(idp) };
}
