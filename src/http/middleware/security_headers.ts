/**
 * Security headers. Every HTML page gets a strict Content-Security-Policy (no scripts — except
 * the one script authorization_response.ts allows by its hash on its own page —, our own stylesheet, our own
 * images and data: QR codes, and on the consent pages the one origin of the client's logo), is never framed (clickjacking on the login and consent buttons),
 * leaks no referrer (interaction ids are in URLs) and is never cached. HSTS when the issuer is
 * https.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { csp_source } from "../../oidc/clients/metadata.ts";

/**
 * The page CSP. `form_targets` are the origins a form on the page may end up at: browsers apply
 * form-action to the redirects after a POST, and the login/consent forms redirect to the client.
 */
export function content_security_policy(
  form_targets: readonly string[] = [],
  script_hashes: readonly string[] = [],
  self_scripts = false,
  image_origins: readonly string[] = [],
): string {
  const form_action = ["'self'", ...new Set(form_targets)].join(" ");
  // Only a page that names its own inline script by hash may run it (authorization_response.ts); the passkey
  // pages run our own static files (static/passkeys.js, the WebAuthn helper), which fetch the
  // ceremony options from this origin.
  const sources = [...(self_scripts ? ["'self'"] : []), ...script_hashes.map((hash) => `'${hash}'`)];
  const script_src = sources.length === 0 ? "" : `script-src ${sources.join(" ")}; ${self_scripts ? "connect-src 'self'; " : ""}`;
  return `default-src 'none'; ${script_src}style-src 'self'; img-src ${["'self'", "data:", ...new Set(image_origins)].join(" ")}; form-action ${form_action}; frame-ancestors 'none'; base-uri 'none'`;
}

/**
 * Headers of an HTML page whose forms lead back to `redirect_uri` (login, consent); `self_scripts`
 * for the passkey pages; `image_url` a client's logo (https, oidc/clients/metadata.ts safe_link), whose
 * origin alone is added to img-src: the browser fetches it, never the server.
 */
export function set_page_headers(headers: Headers, redirect_uri: string | null, self_scripts = false, image_url: string | null = null): void {
  const source = redirect_uri === null ? null : csp_source(redirect_uri);
  const image_origin = image_url === null ? null : new URL(image_url).origin;
  headers.set("content-security-policy", content_security_policy(source === null ? [] : [source], [], self_scripts, image_origin === null ? [] : [image_origin]));
}

/** Adds the security headers to every response: the page set to HTML, nosniff and HSTS to all. */
export class SecurityHeadersHandler extends Fw.Handler {
  constructor(private readonly secure: boolean) {
    super();
  }

  async handle(_context: Context, next: Next): Promise<Response> {
    const response = await next();
    const headers = response.headers;
    headers.set("x-content-type-options", "nosniff");
    // RFC 6797: only meaningful (and only sent) when the issuer is https.
    if (this.secure) headers.set("strict-transport-security", "max-age=31536000; includeSubDomains");
    if (headers.get("content-type")?.startsWith("text/html")) {
      if (!headers.has("content-security-policy")) headers.set("content-security-policy", content_security_policy());
      headers.set("x-frame-options", "DENY");
      headers.set("referrer-policy", "no-referrer");
      headers.set("cache-control", "no-store");
    }
    return response;
  }
}
