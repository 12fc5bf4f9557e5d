/**
 * Errors of the admin API as problem documents (RFC 9457): `{type, title, status, detail,
 * instance}`, plus `code` (the machine-readable reason) and, for invalid input, `errors:
 * [{field, message}]` naming each field. The one mapping for everything under /admin/api:
 * admin rule errors (oidc/admin/errors.ts), Bearer errors (RFC 6750 §3, their challenge kept in
 * WWW-Authenticate), other protocol errors through http/errors.ts, and framework errors (a
 * malformed body, 404, 405, 413, 415, 422).
 */
import { HttpError, type Context, type FieldIssue } from "../fw/index.ts";
import { AdminError, type AdminErrorCode } from "../oidc/admin/errors.ts";
import { BearerError, ProtocolError } from "../oidc/errors.ts";
import { describe_issues, to_http } from "./errors.ts";

export const PROBLEM_JSON = "application/problem+json";

/** RFC 9110 §15 reason phrases: the title of an `about:blank` problem (RFC 9457 §4.2.1). */
const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  412: "Precondition Failed",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  428: "Precondition Required",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

const ADMIN_STATUS: Record<AdminErrorCode, number> = {
  invalid_request: 422,
  not_found: 404,
  conflict: 409,
  forbidden: 403,
  // RFC 6585 §3; RFC 9110 §15.5.13.
  precondition_required: 428,
  precondition_failed: 412,
};

export type Problem = {
  status: number;
  code: string;
  detail: string;
  errors?: readonly FieldIssue[];
  headers: Record<string, string>;
};

/** The problem of a thrown value; null when it is none of ours (a bug: 500, logged by the caller). */
export function problem_of(thrown: unknown): Problem | null {
  if (thrown instanceof AdminError) {
    return { status: ADMIN_STATUS[thrown.error], code: thrown.error, detail: thrown.message, ...(thrown.errors.length > 0 && { errors: thrown.errors }), headers: {} };
  }
  const error = thrown instanceof ProtocolError ? to_http(thrown) : thrown;
  if (!(error instanceof HttpError)) return null;
  // RFC 6750 §3.1: no token sent, no error code in the challenge; the problem says so in its own words.
  if (thrown instanceof BearerError && thrown.code === null) return { status: error.status, code: "unauthorized", detail: error.message, headers: error.headers };
  const errors = Array.isArray(error.details.errors) ? (error.details.errors as FieldIssue[]) : undefined;
  return {
    status: error.status,
    code: error.code,
    detail: errors === undefined ? error.message : describe_issues(errors),
    ...(errors !== undefined && { errors }),
    headers: error.headers,
  };
}

/** The answer of a problem: application/problem+json with the response headers set so far (no-store, request id). */
export function problem_response(problem: Problem, context: Context): Response {
  const headers = new Headers(context.response.headers);
  headers.delete("etag");
  for (const [name, value] of Object.entries(problem.headers)) headers.set(name, value);
  headers.set("content-type", PROBLEM_JSON);
  const body = {
    type: "about:blank",
    title: TITLES[problem.status] ?? (problem.status >= 500 ? "Server Error" : "Error"),
    status: problem.status,
    detail: problem.detail,
    instance: context.request.path,
    code: problem.code,
    ...(problem.errors !== undefined && { errors: problem.errors }),
  };
  return new Response(context.request.method === "HEAD" ? null : JSON.stringify(body), { status: problem.status, headers });
}
