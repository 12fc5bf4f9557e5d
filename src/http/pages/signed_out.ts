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
import { createHash } from "node:crypto";
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
  /** Front-Channel Logout §3: the iframes to load; `srcdoc` a form that posts itself (a SAML LogoutRequest over HTTP-POST). */
  frames?: { url: string; title: string; srcdoc?: string }[];
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
      frames: frame_values(frames),
      continue_url: url,
    },
  };
}

/** The script of a posting iframe (its srcdoc inherits the page's CSP, which names it by hash). */
const FRAME_SUBMIT = "document.forms[0].submit();";
const FRAME_SUBMIT_HASH = `sha256-${createHash("sha256").update(FRAME_SUBMIT, "utf8").digest("base64")}`;

/** The iframes' values for the view: a URL to load, or a form (SAML HTTP-POST binding) that posts itself inside the iframe. */
export function frame_values(frames: readonly FrontChannelFrame[]): { url: string; title: string; srcdoc?: string }[] {
  return frames.map((frame) => {
    const title = `Signing out of ${frame.client_name}`;
    if (frame.post === undefined) return { url: frame.url, title };
    const inputs = Object.entries(frame.post)
      .map(([name, value]) => `<input type="hidden" name="${escape_html(name)}" value="${escape_html(value)}">`)
      .join("");
    return { url: "about:blank", title, srcdoc: `<form method="post" action="${escape_html(frame.url)}">${inputs}</form><script>${FRAME_SUBMIT}</script>` };
  });
}

function escape_html(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The signed-out page's CSP: the usual one, plus frame-src with exactly the iframes' origins;
 * a posting iframe adds its target to form-action and its script's hash (`extra_scripts`: the
 * page's own, saml logout's continuation).
 */
export function signed_out_csp(frames: readonly FrontChannelFrame[], form_targets: readonly string[] = [], extra_scripts: readonly string[] = []): string | null {
  if (frames.length === 0) return null;
  const posting = frames.filter((frame) => frame.post !== undefined);
  const scripts = [...(posting.length > 0 ? [FRAME_SUBMIT_HASH] : []), ...extra_scripts];
  // 'self' for a SAML participant's LogoutResponse, which comes back to /saml/slo in its iframe.
  const sources = [...(frames.some((frame) => frame.saml === true) ? ["'self'"] : []), ...new Set(frames.map((frame) => frame.origin))];
  return `${content_security_policy([...posting.map((frame) => frame.origin), ...form_targets], scripts)}; frame-src ${sources.join(" ")}`;
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
