/**
 * The page language of each request (README, "Languages"), chosen in this order:
 * 1. `ui_locales` of the authorization request the page belongs to (OIDC Core §3.1.2.1): from the
 *    query at /authorize (and /logout, RP-Initiated Logout §2), else from the interaction of
 *    /interaction/:id/… or `?interaction=`;
 * 2. the signed-in user's saved preference (users.locale, set by the switcher);
 * 3. the switcher's cookie (a visitor who is not signed in);
 * 4. Accept-Language (RFC 9110 §12.5.4, q-values);
 * 5. the operator's default (IDP_DEFAULT_LOCALE).
 * It puts the translator and the switcher's values in `view_locals` (fw/views.ts), so every page
 * template and the error page get `t`, `lang` and `dir` without each endpoint passing them.
 * Protocol endpoints, discovery and static files render no page: they are skipped (no read).
 */
import type { Context, CookieReader, Next } from "../../fw/index.ts";
import { Fw } from "../../fw/index.ts";
import { account_csrf } from "../../oidc/browser/account_guard.ts";
import { cookie_name, read_cookie, session_cookie_name } from "../../oidc/browser/cookies.ts";
import { sha256 } from "../../oidc/crypto/secrets.ts";
import { LOCALES, REQUEST_LOCALE, choose_locale, parse_accept_language, parse_locales, supported_locale, translator, type Translator } from "../../oidc/ui/catalogs.ts";
import { PATHS } from "../../oidc/discovery/paths.ts";
import type { Provider } from "../../oidc/provider.ts";

/** The switcher's cookie: a language tag, readable by nobody but us (HttpOnly), a year. */
export const LOCALE_COOKIE = "idp_locale";
export const LOCALE_COOKIE_MAX_AGE = 365 * 24 * 3600;
export const LOCALE_PATH = "/locale";

const NO_PAGE = new Set<string>([
  PATHS.token,
  PATHS.userinfo,
  PATHS.revoke,
  PATHS.introspect,
  PATHS.par,
  PATHS.device_authorization,
  PATHS.jwks,
  PATHS.discovery,
  "/healthz",
  "/readyz",
  "/metrics",
]);
const NO_PAGE_PREFIXES = ["/static/", "/admin/api", "/.well-known/", `${PATHS.register}`];
const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]{1,128})\//;

/** The translator a request's handlers chose (the error page reads it); English when none ran. */
export function request_translator(context: Context, fallback = "en"): Translator {
  const locals = context.state.view_locals as { tr?: Translator } | undefined;
  return locals?.tr ?? translator(fallback);
}

/** The language names as each is written in itself: the switcher lists them so (fixed at start). */
const LANGUAGE_OPTIONS: readonly { value: string; label: string }[] = LOCALES.map((value) => ({ value, label: translator(value).t("language.name") }));

export class LocaleHandler extends Fw.Handler {
  constructor(private readonly idp: Provider) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    const path = context.request.path;
    if (NO_PAGE.has(path) || NO_PAGE_PREFIXES.some((prefix) => path.startsWith(prefix))) return next();
    // /authorize answers with a redirect almost always, and its language needs no read (ui_locales
    // is in its query, a session's saved preference is not consulted): chosen only if a page or
    // an error page asks for it. No mail is sent from it, so REQUEST_LOCALE is not set.
    if (path === PATHS.authorize) {
      let locals: Record<string, unknown> | undefined;
      Object.defineProperty(context.state, "view_locals", {
        get: () => (locals ??= this.locals(context, path, this.requested_now(context), null, null)),
        configurable: true,
        enumerable: true,
      });
      return next();
    }
    let ui_locales: string[] = [];
    let saved: string | null = null;
    let csrf: string | null = null;
    try {
      ui_locales = await this.requested(context, path);
      const session_value = read_cookie(this.cookies(context), session_cookie_name(this.idp));
      if (session_value !== null) {
        const session = await this.idp.store.get_session(sha256(session_value));
        if (session !== null && session.expires_at > this.idp.now()) {
          const user = await this.idp.store.get_user_by_id(session.user_id);
          if (user !== null) {
            saved = user.locale;
            csrf = account_csrf(session_value);
          }
        }
      }
    } catch {
      // A database outage: the page still renders, in the browser's language (UnavailableHandler answers it).
    }
    const locals = this.locals(context, path, ui_locales, saved, csrf);
    context.state.view_locals = locals;
    // A mail this request causes is written in the same language, unless its recipient chose one.
    return REQUEST_LOCALE.run(locals.lang as string, next);
  }

  private cookies(context: Context): CookieReader {
    return (context.state.locale_cookies ??= Fw.read_cookies(context.headers.get("cookie"))) as CookieReader;
  }

  /** The page's language and the values every template gets (`view_locals`, fw/views.ts). */
  private locals(context: Context, path: string, ui_locales: string[], saved: string | null, csrf: string | null): Record<string, unknown> {
    const locale = choose_locale(
      [
        ui_locales,
        saved === null ? [] : [saved],
        [this.cookies(context).get(cookie_name(this.idp, LOCALE_COOKIE)) ?? ""],
        parse_accept_language(context.headers.get("accept-language")),
      ],
      this.idp.config.default_locale,
    );
    const tr = translator(locale);
    const query = new URL(context.request.url).search;
    context.state.locale = locale;
    return {
      tr,
      t: tr.t,
      lang: tr.locale,
      dir: tr.dir,
      locale_switcher: {
        action: `${this.idp.config.issuer}${LOCALE_PATH}`,
        // Back to this page (the switcher's endpoint checks it is ours). A form's answer is re-opened
        // with GET: the account's forms only take POST, so their page is the account page.
        return_to: context.request.method === "GET" ? `${path}${query}` : path.startsWith("/account/") ? "/account" : path,
        csrf,
        current: locale,
        options: LANGUAGE_OPTIONS,
      },
    };
  }

  /** OIDC Core §3.1.2.1 and RP-Initiated Logout §2: ui_locales in the query. */
  private requested_now(context: Context): string[] {
    const value = context.query.ui_locales;
    return parse_locales(typeof value === "string" ? value : undefined);
  }

  /** ui_locales of the authorization request this page serves, if any (OIDC Core §3.1.2.1). */
  private async requested(context: Context, path: string): Promise<string[]> {
    // OIDC Core §3.1.2.1 and RP-Initiated Logout §2: both take ui_locales in the query.
    if (path === PATHS.authorize || path === PATHS.logout) return this.requested_now(context);
    const interaction_query = context.query.interaction;
    const id = INTERACTION_PATH.exec(path)?.[1] ?? (typeof interaction_query === "string" && /^[A-Za-z0-9_-]{43}$/.test(interaction_query) ? interaction_query : null);
    if (id === null) return [];
    const interaction = await this.idp.store.get_interaction(id);
    // interactions.ts stores { request: AuthorizationRequest, binding_hash }.
    const request = interaction?.params.request;
    const tags = typeof request === "object" && request !== null && !Array.isArray(request) ? request.ui_locales : undefined;
    return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === "string" && supported_locale(tag) !== null) : [];
  }
}
