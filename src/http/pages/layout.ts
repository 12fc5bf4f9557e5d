/**
 * What every HTML page of the provider shares: the values the layout needs and the URLs of the
 * interaction pages (all derived from the issuer).
 */
import type { Provider } from "../../oidc/provider.ts";

export type LayoutValues = { site: string; css: string; icon: string; title: string };

export function layout_values(idp: Provider, title: string): LayoutValues {
  return { site: new URL(idp.config.issuer).host, css: `${idp.config.issuer}/static/style.css`, icon: `${idp.config.issuer}/static/favicon.svg`, title };
}


/** The host the user will be sent back to, shown on pages so they know where they are going. */
export function redirect_host(redirect_uri: string): string {
  try {
    const url = new URL(redirect_uri);
    return url.host === "" ? url.protocol.replace(/:$/, "") : url.host;
  } catch {
    return redirect_uri;
  }
}

/** The scripts of a page with passkeys (layout `scripts`): the WebAuthn helper, then ours. The page's CSP must allow them (set_page_headers `self_scripts`). */
export function passkey_scripts(idp: Provider): string[] {
  return [`${idp.config.issuer}/static/vendor/simplewebauthn-browser.js`, `${idp.config.issuer}/static/passkeys.js`];
}
