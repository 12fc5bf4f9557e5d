/**
 * How a logout ends for the browser (OIDC RP-Initiated Logout §3): a redirect to the client's
 * registered post_logout_redirect_uri with `state`, or, with none, the "signed out" page.
 * Also the "still signed in" page after "Stay signed in".
 *
 * OIDC Front-Channel Logout §3: when clients of the ended session registered a
 * frontchannel_logout_uri, the page is shown even with a post_logout_redirect_uri: it loads their
 * iframes and offers the way back to the client as a link (the page runs no script to redirect
 * once they have loaded). Its CSP frame-src names exactly those origins.
 */
import { display_name } from "../../oidc/clients/metadata.ts";
import { expired_cookie_options, session_cookie_name, type CookieReader, type CookieToSet } from "../../oidc/browser/cookies.ts";
import { layout_values, type LayoutValues } from "./layout.ts";
import type { Provider } from "../../oidc/provider.ts";
import { post_logout_redirect, type ValidLogout } from "../../oidc/logout/request.ts";
import type { FrontChannelFrame } from "../../oidc/logout/frontchannel.ts";
import { content_security_policy } from "../middleware/security_headers.ts";

export type LogoutAnswer = { kind: "redirect"; url: string } | { kind: "page"; values: SignedOutValues };

/** Values of views/logged_out.eta. */
export type SignedOutValues = LayoutValues & {
  heading: string;
  message: string;
  client_name: string | null;
  signed_out: boolean;
  /** Front-Channel Logout §3: the iframes to load. */
  frames?: { url: string; title: string }[];
  /** The post_logout_redirect_uri (with state) offered as a link when frames are shown. */
  continue_url?: string | null;
};

export function signed_out_answer(idp: Provider, request: ValidLogout, frames: readonly FrontChannelFrame[] = []): LogoutAnswer {
  const url = post_logout_redirect(request);
  if (url !== null && frames.length === 0) return { kind: "redirect", url };
  return {
    kind: "page",
    values: {
      ...layout_values(idp, "Signed out"),
      heading: "You are signed out",
      message: `You have been signed out of ${layout_values(idp, "").site}${frames.length > 0 ? " and of the applications you used with it" : ""}.${url === null ? " You can close this window." : ""}`,
      client_name: request.client === null ? null : display_name(request.client),
      signed_out: true,
      frames: frames.map((frame) => ({ url: frame.url, title: `Signing out of ${frame.client_name}` })),
      continue_url: url,
    },
  };
}

/** The signed-out page's CSP: the usual one, plus frame-src with exactly the iframes' origins. */
export function signed_out_csp(frames: readonly FrontChannelFrame[]): string | null {
  if (frames.length === 0) return null;
  return `${content_security_policy()}; frame-src ${[...new Set(frames.map((frame) => frame.origin))].join(" ")}`;
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
