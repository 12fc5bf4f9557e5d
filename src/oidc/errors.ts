/**
 * Protocol errors of the provider: values the rules raise, with the protocol's code and words
 * and nothing of HTTP. src/http/errors.ts is the one place that turns each into an answer
 * (status, headers, JSON, redirect or page); docs/ARCHITECTURE.md describes the boundary.
 *
 * - OAuthError: `{error, error_description}` at /token and the other endpoints clients call
 *   (RFC 6749 §5.2, RFC 7009, RFC 7662, RFC 7591).
 * - BearerError: errors of a protected resource (/userinfo, registration management), answered
 *   with a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3).
 * - PageError: an error the person in the browser sees as a page, because there is no trusted
 *   redirect URI to send it to (OIDC Core §3.1.2.6, RFC 6749 §4.1.2.1: never redirect to an
 *   unverified URI).
 * - AuthorizationError: an error for the client's (verified) redirect URI; the authorization
 *   endpoint turns it into an authorization response.
 * - Throttled: too many attempts (sign-in, second factor); comes back after `retry_after` seconds.
 */

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
  | "invalid_request_object"
  // RFC 9101 §7: a request_uri that is unknown, expired, used or not this client's (RFC 9126 §4).
  | "invalid_request_uri"
  // RFC 9449 §5, §7.1, §8: DPoP proofs and server nonces.
  | "invalid_dpop_proof"
  | "use_dpop_nonce"
  // RFC 8628 §3.5: the answers to a device's poll of the token endpoint.
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  // RFC 8707 §2: a resource indicator that is invalid, unknown or not allowed (also RFC 8693 §2.2.2).
  | "invalid_target";

/**
 * What the log line of a refusal names besides its code and words (src/http/errors.ts, under the
 * request id an error page shows): the client that asked, and the parameter refused with its
 * value (clipped there). Never a secret, a password, a code or a token.
 */
export type LogDetails = { client_id?: string; parameter?: string; value?: string };

/** Every error a rule raises on purpose; anything else thrown is a bug (a 500 that logs its stack). */
export abstract class ProtocolError extends Error {
  /** The protocol's error code (`error`), also written to logs. */
  abstract readonly error: string;
  /** For the log only; never in the answer. */
  log_details: LogDetails = {};

  /** Adds to what the log line names: `throw new PageError(…).for_log({ client_id })`. */
  for_log(details: LogDetails): this {
    this.log_details = { ...this.log_details, ...details };
    return this;
  }
}

export type OAuthErrorOptions = {
  /**
   * RFC 6749 §5.2: a client that authenticated with the Authorization header (HTTP Basic) and
   * failed gets 401 with a `WWW-Authenticate: Basic` challenge for this realm.
   */
  basic_realm?: string;
  /** The request is refused for now (a rate limit): it may come back after this many seconds. */
  retry_after?: number;
  /** RFC 9449 §8: a fresh server nonce, sent in the `DPoP-Nonce` header of the answer. */
  dpop_nonce?: string;
};

/** `{error, error_description}` (RFC 6749 §5.2); `message` is the error_description. */
export class OAuthError extends ProtocolError {
  constructor(
    readonly error: OAuthErrorCode,
    description: string,
    readonly options: OAuthErrorOptions = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

/** RFC 6749 §5.2 invalid_client; `basic_realm` when the client used the Authorization header. */
export function invalid_client(description: string, used_basic: boolean, realm: string): OAuthError {
  return new OAuthError("invalid_client", description, used_basic ? { basic_realm: realm } : {});
}

/**
 * RFC 6750 §3: an error of a protected resource. `code` null: no usable token was sent, and the
 * challenge then carries no error code (§3.1: "the resource server SHOULD NOT include an error
 * code").
 */
export class BearerError extends OAuthError {
  constructor(
    readonly code: "invalid_request" | "invalid_token" | "insufficient_scope" | "invalid_dpop_proof" | "use_dpop_nonce" | null,
    description: string,
    readonly realm: string,
    /**
     * RFC 9449 §7.1: a DPoP-bound token (or a DPoP proof) gets a `DPoP` challenge naming the
     * accepted `algs`, with `dpop_nonce` in the DPoP-Nonce header when one is due (§9).
     */
    readonly dpop: { algs: readonly string[]; nonce?: string } | null = null,
  ) {
    super(code ?? "invalid_token", description, dpop?.nonce === undefined ? {} : { dpop_nonce: dpop.nonce });
    this.name = "BearerError";
  }
}

/** Protocol codes a page error carries, for logs and non-browser clients. */
export type PageErrorCode = OAuthErrorCode;

/** An error shown to the person in the browser as the error page. */
export class PageError extends ProtocolError {
  constructor(
    readonly title: string,
    message: string,
    /** access_denied: the person may not do this (a foreign browser, a form that is not theirs). */
    readonly error: PageErrorCode = "invalid_request",
    /** The thing asked for does not exist here (a 404 rather than a refusal). */
    readonly missing = false,
  ) {
    super(message);
    this.name = "PageError";
  }
}

/** An authorization error for a verified redirect URI (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6). */
export class AuthorizationError extends ProtocolError {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = "AuthorizationError";
  }
}

/** Too many attempts of something a person does (a password, a code); try again after `retry_after` seconds. */
export class Throttled extends ProtocolError {
  readonly error = "too_many_requests";
  constructor(
    message: string,
    readonly retry_after: number,
  ) {
    super(message);
    this.name = "Throttled";
  }
}
