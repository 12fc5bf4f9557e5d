/**
 * What every HTML page of the provider shares: the values the layout needs and the URLs of the
 * interaction pages (all derived from the issuer).
 */
import { brand_url } from "../../oidc/ui/brand.ts";
import { translator, type Translator } from "../../oidc/ui/catalogs.ts";
import type { Provider } from "../../oidc/provider.ts";

export type LayoutValues = {
  /** The brand's name (IDP_BRAND_NAME, else the issuer's host). */
  site: string;
  css: string;
  /** The brand's stylesheets (colours, the operator's CSS), linked after ours. */
  styles: string[];
  icon: string;
  icon_type: string;
  /** The brand's logo (IDP_BRAND_LOGO), shown in the header as an `<img>`; null shows our mark. */
  brand_logo: string | null;
  /** Where the theme's static/ folder is served (app/theme.ts), for templates of a theme. */
  theme_static: string;
  title: string;
  /**
   * The page's language (oidc/ui/catalogs.ts): the operator's default here; the request's choice
   * (middleware/locale.ts) replaces these when the page is answered.
   */
  tr: Translator;
  t: Translator["t"];
  lang: string;
  dir: "ltr" | "rtl";
};

export function layout_values(idp: Provider, title: string): LayoutValues {
  const issuer = idp.config.issuer;
  const brand = idp.brand;
  return {
    site: brand.name,
    css: `${issuer}/static/style.css`,
    styles: brand.stylesheets.map((file) => brand_url(issuer, file)),
    icon: brand.favicon === null ? `${issuer}/static/favicon.svg` : brand_url(issuer, brand.favicon),
    icon_type: brand.favicon?.type ?? "image/svg+xml",
    brand_logo: brand.logo === null ? null : brand_url(issuer, brand.logo),
    theme_static: `${issuer}/static/theme`,
    title,
    ...default_language(idp),
  };
}

/** The operator's default language as the layout's values (a page rendered outside a request). */
function default_language(idp: Provider): Pick<LayoutValues, "tr" | "t" | "lang" | "dir"> {
  const tr = translator(idp.config.default_locale);
  return { tr, t: tr.t, lang: tr.locale, dir: tr.dir };
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
