// Typed HTTP errors. Every error a client can see is one of these: a status and a
// message, rendered in one place (ErrorHandler) in one body shape:
//   { "error": "<code>", "message": "<text>", ...details }
// Anything else thrown answers 500 with a generic message; the stack goes to the log.

export type ErrorDetails = Record<string, unknown>;

export class HttpError extends Error {
  readonly status: number;
  /** Short machine-readable code, e.g. "not_found". */
  readonly code: string;
  /** Extra members of the JSON body (path, allowed, errors, ...). */
  readonly details: ErrorDetails;
  /** Extra response headers (Allow, Retry-After, WWW-Authenticate, ...). */
  readonly headers: Record<string, string>;

  constructor(message: string, options: { status?: number; code?: string; details?: ErrorDetails; headers?: Record<string, string> } = {}) {
    if (typeof message !== "string" || message.length === 0) throw new TypeError("HttpError needs a message");
    super(message);
    this.name = new.target.name;
    this.status = options.status ?? 500;
    this.code = options.code ?? code_for(this.status);
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  /** The JSON body. Subclasses with a protocol-mandated shape override this. */
  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.details };
  }
}

const CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  414: "uri_too_long",
  415: "unsupported_media_type",
  422: "unprocessable_entity",
  429: "too_many_requests",
  431: "request_header_fields_too_large",
  500: "internal_server_error",
  503: "service_unavailable",
};

function code_for(status: number): string {
  return CODES[status] ?? (status >= 500 ? "internal_server_error" : "error");
}

function fixed(status: number) {
  return class extends HttpError {
    constructor(message: string, options: { details?: ErrorDetails; headers?: Record<string, string> } = {}) {
      super(message, { ...options, status });
    }
  };
}

export class BadRequest extends fixed(400) {}
export class Unauthorized extends fixed(401) {}
export class Forbidden extends fixed(403) {}
export class Conflict extends fixed(409) {}
export class PayloadTooLarge extends fixed(413) {}
export class URITooLong extends fixed(414) {}
export class UnsupportedMediaType extends fixed(415) {}
export class RequestHeaderFieldsTooLarge extends fixed(431) {}
export class InternalServerError extends fixed(500) {}
export class ServiceUnavailable extends fixed(503) {}

/** 404, built with the path that matched nothing: body `{error, message, path}`. */
export class NotFound extends HttpError {
  constructor(path: string, message = `Nothing at ${path}`) {
    super(message, { status: 404, details: { path } });
  }
}

/** 405: body `{error, message, allowed}` and the `Allow` header. */
export class MethodNotAllowed extends HttpError {
  constructor(method: string, allowed: readonly string[]) {
    super(`Method ${method} not allowed; use ${allowed.join(", ")}`, {
      status: 405,
      details: { allowed: [...allowed] },
      headers: { Allow: allowed.join(", ") },
    });
  }
}

export type FieldIssue = { field: string; message: string };

/** 422 from validation issues: body `{error, message, errors: [{field, message}]}`. */
export class UnprocessableEntity extends HttpError {
  readonly errors: FieldIssue[];
  constructor(errors: FieldIssue[], message = "The request is not valid") {
    super(message, { status: 422, details: { errors } });
    this.errors = errors;
  }
}

/** 429, with `Retry-After` (seconds) when known. */
export class TooManyRequests extends HttpError {
  readonly retry_after: number | undefined;
  constructor(message = "Too many requests", retry_after?: number) {
    super(message, {
      status: 429,
      headers: retry_after === undefined ? {} : { "Retry-After": String(Math.max(1, Math.ceil(retry_after))) },
      details: retry_after === undefined ? {} : { retry_after: Math.max(1, Math.ceil(retry_after)) },
    });
    this.retry_after = retry_after;
  }
}
