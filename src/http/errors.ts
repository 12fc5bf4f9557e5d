/**
 * The one mapping from protocol errors (src/oidc/errors.ts) to HTTP: status, headers and body
 * shape. Endpoints and rules throw protocol errors; `ProviderErrorHandler` (the chain's error
 * handler) maps them here and the framework renders the result: JSON for clients, the error
 * page for browsers (`error_page`, by the Accept header). docs/ARCHITECTURE.md, "errors".
 */
import { Fw, HttpError, type Context, type FieldIssue } from "../fw/index.ts";
import { AuthorizationError, BearerError, OAuthError, PageError, ProtocolError, Throttled, type LogDetails, type OAuthErrorCode } from "../oidc/errors.ts";
import { RegistrationError } from "../oidc/registration/errors.ts";
import type { Provider } from "../oidc/provider.ts";
import { layout_values } from "./pages/layout.ts";
import { request_translator } from "./middleware/locale.ts";
import type { Translator } from "../oidc/ui/catalogs.ts";

/** RFC 6749 §5.2 (400 unless said otherwise), RFC 6750 §3.1, RFC 7591 §3.2.2. */
const OAUTH_STATUS: Partial<Record<OAuthErrorCode, number>> = {
  invalid_client: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  server_error: 500,
  temporarily_unavailable: 503,
};

/** An answer in the OAuth error shape `{error, error_description}` (RFC 6749 §5.2). */
export class OAuthHttpError extends HttpError {
  constructor(error: string, description: string, status = 400, headers: Record<string, string> = {}) {
    super(description, { status, code: error, headers });
  }

  override body(): Record<string, unknown> {
    return { error: this.code, error_description: this.message };
  }
}

/** An error for the person in the browser: the error page with `title` (JSON for anything else). */
export class PageHttpError extends HttpError {
  constructor(
    readonly title: string,
    message: string,
    status: number,
    code: string,
  ) {
    super(message, { status, code });
  }

  override body(): Record<string, unknown> {
    return { error: this.code, error_description: this.message };
  }
}

/** Quoted-string content for an auth-param (RFC 9110 §5.6.4): no quotes, backslashes or controls. */
function quote(value: string): string {
  return value.replace(/[\\"]/g, "").replace(/[\x00-\x1f\x7f]/g, " ");
}

/** RFC 6750 §3: the challenge; without a usable token it carries no error code (§3.1). */
function bearer_answer(error: BearerError): OAuthHttpError {
  const params = [`realm="${quote(error.realm)}"`];
  if (error.code !== null) params.push(`error="${error.code}"`, `error_description="${quote(error.message)}"`);
  // RFC 9449 §7.1: invalid_dpop_proof and use_dpop_nonce are 401 like invalid_token.
  const unauthorized = error.code === null || error.code === "invalid_token" || error.code === "invalid_dpop_proof" || error.code === "use_dpop_nonce";
  const status = unauthorized ? 401 : error.code === "insufficient_scope" ? 403 : 400;
  const headers: Record<string, string> = {};
  if (error.dpop === null) headers["WWW-Authenticate"] = `Bearer ${params.join(", ")}`;
  else {
    // RFC 9449 §7.1: the DPoP scheme, with the algs a proof may use.
    headers["WWW-Authenticate"] = `DPoP ${[...params, `algs="${error.dpop.algs.join(" ")}"`].join(", ")}`;
    if (error.dpop.nonce !== undefined) headers["DPoP-Nonce"] = error.dpop.nonce;
  }
  return new OAuthHttpError(error.error, error.message, status, headers);
}

function oauth_answer(error: OAuthError): OAuthHttpError {
  if (error instanceof BearerError) return bearer_answer(error);
  const { basic_realm, retry_after, dpop_nonce } = error.options;
  // RFC 9449 §8: use_dpop_nonce (and any error at /token once a nonce is due) carries the nonce.
  if (dpop_nonce !== undefined) return new OAuthHttpError(error.error, error.message, OAUTH_STATUS[error.error] ?? 400, { "DPoP-Nonce": dpop_nonce });
  // RFC 6585 §4: a rate limit is 429 with Retry-After, still in the OAuth shape.
  if (retry_after !== undefined) return new OAuthHttpError(error.error, error.message, 429, { "Retry-After": String(retry_after) });
  // RFC 6749 §5.2: 401 with a challenge for the scheme the client used.
  if (basic_realm !== undefined) return new OAuthHttpError(error.error, error.message, 401, { "WWW-Authenticate": `Basic realm="${quote(basic_realm)}", charset="UTF-8"` });
  return new OAuthHttpError(error.error, error.message, OAUTH_STATUS[error.error] ?? 400);
}

/**
 * A framework error (a malformed body, 413, 415, 405…) raised at an endpoint clients call, put in
 * the protocol's shape: invalid_request with the same status (RFC 6749 §5.2). Anything else
 * (a protocol error, a 5xx, an error already in the OAuth shape) is returned as it is.
 */
export function in_oauth_shape(error: unknown): unknown {
  if (error instanceof HttpError && !(error instanceof OAuthHttpError) && error.status < 500) {
    return new OAuthHttpError("invalid_request", error.message, error.status, error.headers);
  }
  return error;
}

/** The HTTP answer of a protocol error. */
export function to_http(error: ProtocolError): HttpError {
  if (error instanceof OAuthError) return oauth_answer(error);
  if (error instanceof PageError) return new PageHttpError(error.title, error.message, error.missing ? 404 : error.error === "access_denied" ? 403 : 400, error.error);
  if (error instanceof Throttled) return new Fw.TooManyRequests(error.message, error.retry_after);
  if (error instanceof RegistrationError) return new OAuthHttpError(error.error, error.message, 400);
  // An AuthorizationError that escaped the authorization endpoint has no trusted redirect URI.
  if (error instanceof AuthorizationError) return new PageHttpError("The request could not be completed", error.description, 400, error.error);
  return new OAuthHttpError(error.error, error.message, 400);
}

/** The framework's error handler, taught the protocol errors: everything else is as Fw renders it. */
export class ProviderErrorHandler extends Fw.ErrorHandler {
  override render(thrown: unknown, context: Context): Response {
    const error = thrown instanceof ProtocolError ? to_http(thrown) : thrown;
    const response = super.render(error, context);
    // An error page shows its request id as the reference: the log says why under it. (A bug's
    // 500 is logged with its stack by the framework.)
    if (error instanceof HttpError && response.headers.get("content-type")?.startsWith("text/html")) {
      log_error_page(context, error, thrown instanceof ProtocolError ? thrown.log_details : {});
    }
    return response;
  }
}

/** Longest value a log line of an error page carries (a redirect URI can be kilobytes). */
export const LOGGED_VALUE_MAX = 200;

function clip(text: string): string {
  return text.length <= LOGGED_VALUE_MAX ? text : `${text.slice(0, LOGGED_VALUE_MAX)}…`;
}

/**
 * The error page's log line, under the request id it shows: status, code, the words (English, as
 * the rule wrote them), and what the rule named (the client, the parameter and value refused).
 */
function log_error_page(context: Context, error: HttpError, details: LogDetails): void {
  const named = Object.fromEntries(Object.entries(details).flatMap(([key, value]) => (typeof value === "string" ? [[key, clip(value)]] : [])));
  context.app.log({
    level: error.status >= 500 ? "error" : "info",
    msg: "error page",
    request_id: context.state.request_id,
    method: context.request.method,
    path: context.request.path,
    status: error.status,
    error: error.code,
    error_description: clip(error.message),
    ...named,
  });
}

/** Words for request-contract issues; a repeated parameter arrives as an array. */
export function describe_issues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => (/received array/.test(issue.message) ? `${issue.field} was sent more than once` : `${issue.field}: ${issue.message}`)).join("; ");
}

/**
 * `on_invalid` of protocol request contracts: invalid_request in the OAuth shape, never the
 * framework's 422 (RFC 6749 §3.1: "parameters MUST NOT be included more than once").
 */
export function invalid_request(issues: readonly FieldIssue[]): HttpError {
  return to_http(new OAuthError("invalid_request", describe_issues(issues)));
}

/** `on_invalid` of the sign-in and account page forms: the error page, never the framework's 422. */
export function invalid_form(issues: readonly FieldIssue[]): HttpError {
  return to_http(new PageError("The form could not be read", `Please go back and try again (${describe_issues(issues)}).`));
}

/** `on_invalid` of a page request: the error page with this title. */
export function invalid_page_request(title: string, words: (described: string) => string): (issues: readonly FieldIssue[]) => HttpError {
  return (issues) => to_http(new PageError(title, words(describe_issues(issues))));
}

/** A wait in words, rounded up: "40 seconds", "1 minute", "4 minutes", "2 hours". */
export function wait_words(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return plural(s, "second");
  if (s < 3600) return plural(Math.ceil(s / 60), "minute");
  return plural(Math.ceil(s / 3600), "hour");
}

/** Plain words for the error page, in the page's language; never a stack. */
function error_words(error: HttpError, tr: Translator): { heading: string; message: string } {
  if (error instanceof PageHttpError) return { heading: tr.text(error.title), message: tr.text(error.message) };
  if (error instanceof OAuthHttpError) return { heading: tr.t("error.incomplete.title"), message: error.message };
  switch (error.status) {
    case 404:
      return { heading: tr.t("error.not_found.title"), message: tr.t("error.not_found.message") };
    case 405:
      return { heading: tr.t("error.method.title"), message: error.message };
    case 429: {
      const wait = error instanceof Fw.TooManyRequests ? error.retry_after : undefined;
      return { heading: tr.t("error.throttled.title"), message: wait === undefined ? tr.t("error.throttled.message") : tr.t("error.throttled.wait", wait_values(wait)) };
    }
    case 503:
      return { heading: tr.t("error.unavailable.title"), message: tr.t("error.unavailable.message") };
    default:
      return error.status >= 500
        ? { heading: tr.t("error.server.title"), message: tr.t("error.server.message") }
        : { heading: tr.t("error.incomplete.title"), message: tr.text(error.message) };
  }
}

/** A wait as the catalog's error.throttled.wait takes it: a count and its unit (second, minute, hour), rounded up. */
export function wait_values(seconds: number): { count: number; unit: string } {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return { count: s, unit: "second" };
  if (s < 3600) return { count: Math.ceil(s / 60), unit: "minute" };
  return { count: Math.ceil(s / 3600), unit: "hour" };
}

/** The error page (views/error.eta) for browsers. */
export function error_page(idp: Provider) {
  return (error: HttpError, context: Context): string => {
    const words = error_words(error, request_translator(context, idp.config.default_locale));
    const values = {
      ...layout_values(idp, words.heading),
      ...words,
      code: error.code,
      status: error.status,
      request_id: context.state.request_id ?? null,
      ...Fw.view_locals(context.state),
    };
    const views = context.app.views;
    if (views?.has("error")) return views.render("error", values);
    return `<!doctype html><title>${Fw.escape_html(words.heading)}</title><h1>${Fw.escape_html(words.heading)}</h1><p>${Fw.escape_html(words.message)}</p>`;
  };
}
