/**
 * Delivering an authorization response to the client (OAuth 2.0 Multiple Response Type Encoding
 * Practices §2.1, OAuth 2.0 Form Post Response Mode):
 * - query: a redirect to the redirect URI with the parameters in its query.
 * - form_post: an HTML page whose form POSTs the parameters to the redirect URI. A visible
 *   "Continue" button works without JavaScript; the one inline script that submits it at once is
 *   allowed by its SHA-256 in this page's CSP only (every other page runs no script at all).
 */
import { createHash } from "node:crypto";
import type { Fw } from "../fw/index.ts";
import { query_url, type ClientResponse } from "../oidc/authorize/decision.ts";
import { csp_source } from "../oidc/clients/metadata.ts";
import { layout_values, redirect_host } from "./pages/layout.ts";
import { after_account_sign_in } from "../oidc/browser/return_path.ts";
import { with_first_step, type Pending } from "../oidc/signin/second_factor.ts";
import { after_sign_in, sign_in } from "../oidc/signin/complete.ts";
import type { CookieReader, CookieToSet } from "../oidc/browser/cookies.ts";
import { expired_interaction, type Interaction } from "../oidc/authorize/interactions.ts";
import { jarm_encoded } from "../oidc/tokens/jwt_responses.ts";
import type { Provider } from "../oidc/provider.ts";
import type { ClientRow, SessionRow, UserRow } from "../store/types.ts";
import { content_security_policy } from "./middleware/security_headers.ts";

/** The auto-submit script, exactly as the page embeds it (its hash must match byte for byte). */
export const AUTO_SUBMIT_SCRIPT = `document.getElementById("form-post").submit();`;

/** CSP source expression of AUTO_SUBMIT_SCRIPT (CSP Level 2 §4.2.5 hash-source). */
export const AUTO_SUBMIT_HASH = `sha256-${createHash("sha256").update(AUTO_SUBMIT_SCRIPT, "utf8").digest("base64")}`;

type Html = InstanceType<typeof Fw.Response.Html>;
type Redirect = InstanceType<typeof Fw.Response.Redirect>;

/** What `respond` needs of an endpoint: a Renderable endpoint has all of it. */
export type ResponderPage = {
  view(template: string, values?: Record<string, unknown>, status?: number): Html;
  redirect_to(url: string, status?: number): Redirect;
  readonly response: { readonly headers: Headers };
};

/**
 * After a sign-in at an application's interaction: the response to the client, or the next page
 * (oidc/signin/second_factor.ts `after_sign_in` decides).
 */
export async function continue_after_sign_in(page: ResponderPage, idp: Provider, client: ClientRow, interaction: Interaction, session: SessionRow): Promise<Html | Redirect> {
  const next = await after_sign_in(idp, client, interaction, session);
  return next.kind === "respond" ? respond(page, idp, next.response, 303) : page.redirect_to(next.url, 303);
}

/** What `finish_second_factor` needs of an endpoint besides a ResponderPage: the request's cookies and headers. */
export type SignInPage = ResponderPage & {
  readonly cookies: CookieReader;
  readonly headers: Headers;
  set_cookie(name: string, value: string, options: CookieToSet["options"]): void;
};

/**
 * Both sign-in steps done (a code on the two-factor page, or a passkey as the second factor):
 * start the session with the first step's methods and `amr`, then go back to the application's
 * interaction, or where the account's own sign-in returns to.
 */
export async function finish_second_factor(page: SignInPage, idp: Provider, pending: Pending, user: UserRow, amr: string[], ip: string): Promise<Html | Redirect> {
  const interaction = pending.interaction;
  const { session, cookie } = await sign_in(idp, page.cookies, user, with_first_step(pending, amr), ip, interaction?.request.client_id ?? null, page.headers.get("user-agent"));
  page.set_cookie(cookie.name, cookie.value, cookie.options);
  if (interaction === null) {
    await idp.store.delete_interaction(pending.id);
    const next = after_account_sign_in(idp, page.cookies);
    if (next.clear !== null) page.set_cookie(next.clear.name, next.clear.value, next.clear.options);
    return page.redirect_to(next.url, 303);
  }
  const client = await idp.store.get_client(interaction.request.client_id);
  if (client === null) throw expired_interaction();
  return continue_after_sign_in(page, idp, client, interaction, session);
}

/** The response as a redirect (`status`: 302, or 303 after a POST) or as the form_post page. */
export async function respond(page: ResponderPage, idp: Provider, sent: ClientResponse, status: number): Promise<Html | Redirect> {
  // JARM: a jwt response mode becomes one signed `response` parameter, then goes by its base mode.
  const response = await jarm_encoded(idp, sent);
  if (response.response_mode === "query" || response.response_mode === "fragment") return page.redirect_to(query_url(response), status);
  return form_post_page(page, idp, response.redirect_uri, response.params);
}

/**
 * The page whose form POSTs `fields` to `action` at once (Form Post Response Mode, and SAML's
 * HTTP-POST binding, SAML Bindings §3.5.4): its CSP allows that one script by hash and a form
 * action to that origin only, and it is never cached.
 */
export function form_post_page(page: ResponderPage, idp: Provider, action: string, fields: Record<string, string>): Html {
  const headers = page.response.headers;
  const source = csp_source(action);
  // form-action must allow the client's origin, or the browser refuses to post there.
  headers.set("content-security-policy", content_security_policy(source === null ? [] : [source], [AUTO_SUBMIT_HASH]));
  // Form Post Response Mode §2: the page must not be cached.
  headers.set("cache-control", "no-store");
  headers.set("pragma", "no-cache");
  return page.view("form_post", {
    ...layout_values(idp, "Returning to the application"),
    action,
    fields: Object.entries(fields).map(([name, value]) => ({ name, value })),
    redirect_host: redirect_host(action),
    script: AUTO_SUBMIT_SCRIPT,
    // The page posts itself to the client at once: a switcher there would lose the response.
    no_locale_switcher: true,
  });
}
