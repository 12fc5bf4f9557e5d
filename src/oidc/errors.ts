/**
 * Protocol errors of the provider, raised as values and rendered in one place (the error handler
 * in server.ts):
 * - OAuthError: `{error, error_description}` JSON at /token (RFC 6749 §5.2) and friends.
 * - BearerError: /userinfo errors with `WWW-Authenticate: Bearer ...` (RFC 6750 §3).
 * - PageError: an error a browser sees as a page, because there is no trusted redirect URI to
 *   send it to (OIDC Core §3.1.2.6, RFC 6749 §4.1.2.1: never redirect to an unverified URI).
 * - AuthorizationError: an error sent back to the client's (verified) redirect URI; the
 *   authorize endpoint catches it and turns it into a redirect.
 */
import { HttpError, type FieldIssue } from "../fw/index.ts";

/** Error codes of RFC 6749 §4.1.2.1 / §5.2, RFC 6750 §3.1 and OIDC Core §3.1.2.6. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_token"
  | "insufficient_scope"
  | "login_required"
  | "consent_required"
  | "interaction_required"
  | "account_selection_required"
  | "request_not_supported"
  | "request_uri_not_supported"
  | "invalid_request_object";

const DEFAULT_STATUS: Partial<Record<OAuthErrorCode, number>> = {
  invalid_client: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  server_error: 500,
  temporarily_unavailable: 503,
};

/** `{error, error_description}` with the status RFC 6749 §5.2 gives the code (400 by default). */
export class OAuthError extends HttpError {
  readonly error: OAuthErrorCode;
  constructor(error: OAuthErrorCode, description: string, options: { status?: number; headers?: Record<string, string> } = {}) {
    super(description, { status: options.status ?? DEFAULT_STATUS[error] ?? 400, code: error, headers: options.headers ?? {} });
    this.error = error;
  }

  override body(): Record<string, unknown> {
    return { error: this.error, error_description: this.message };
  }
}

/**
 * RFC 6749 §5.2: a client that tried to authenticate with the Authorization header gets 401 and a
 * WWW-Authenticate challenge for the scheme it used.
 */
export function invalid_client(description: string, used_basic: boolean, realm: string): OAuthError {
  const headers: Record<string, string> = used_basic ? { "WWW-Authenticate": `Basic realm="${quote(realm)}", charset="UTF-8"` } : {};
  return new OAuthError("invalid_client", description, { status: 401, headers });
}

/** Quoted-string content for an auth-param (RFC 9110 §5.6.4): no quotes, backslashes or controls. */
function quote(value: string): string {
  return value.replace(/[\\"]/g, "").replace(/[\x00-\x1f\x7f]/g, " ");
}

/**
 * RFC 6750 §3: errors of a protected resource. Without a token the challenge carries no error
 * code (§3.1: "the resource server SHOULD NOT include an error code").
 */
export class BearerError extends OAuthError {
  constructor(error: "invalid_request" | "invalid_token" | "insufficient_scope" | null, description: string, realm: string) {
    const params = [`realm="${quote(realm)}"`];
    if (error !== null) params.push(`error="${error}"`, `error_description="${quote(description)}"`);
    const status = error === null || error === "invalid_token" ? 401 : error === "insufficient_scope" ? 403 : 400;
    super(error ?? "invalid_token", description, { status, headers: { "WWW-Authenticate": `Bearer ${params.join(", ")}` } });
  }
}

/** An error shown to the person in the browser as the error page (always HTML). */
export class PageError extends HttpError {
  constructor(
    readonly title: string,
    message: string,
    status = 400,
    /** A protocol code for logs and for non-browser clients. */
    code = "invalid_request",
  ) {
    super(message, { status, code });
  }

  override body(): Record<string, unknown> {
    return { error: this.code, error_description: this.message };
  }
}

/** An authorization error for a verified redirect URI (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6). */
export class AuthorizationError extends Error {
  constructor(readonly error: OAuthErrorCode, readonly description: string) {
    super(description);
    this.name = "AuthorizationError";
  }
}

/** Words for request-contract issues; a repeated parameter arrives as an array. */
export function describe_issues(issues: readonly FieldIssue[]): string {
  return issues
    .map((issue) => (/received array/.test(issue.message) ? `${issue.field} was sent more than once` : `${issue.field}: ${issue.message}`))
    .join("; ");
}

/**
 * `on_invalid` of protocol request contracts: invalid_request in the OAuth shape, never the
 * framework's 422 (RFC 6749 §3.1: "parameters MUST NOT be included more than once").
 */
export function invalid_request(issues: readonly FieldIssue[]): OAuthError {
  return new OAuthError("invalid_request", describe_issues(issues));
}

/** `on_invalid` of the sign-in and account page forms: the error page, never the framework's 422. */
export function invalid_form(issues: readonly FieldIssue[]): PageError {
  return new PageError("The form could not be read", `Please go back and try again (${describe_issues(issues)}).`);
}
