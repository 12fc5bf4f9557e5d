/**
 * What the admin API's endpoints share: the caller and audit target (set by
 * middleware/admin_api.ts), ETags and If-Match (oidc/admin/etag.ts), the page query, and the
 * OpenAPI description each endpoint carries (`static openapi`, gathered by openapi.ts).
 */
import { z } from "zod";
import type { EndpointBase } from "../../../fw/endpoint.ts";
import { DEFAULT_PAGE, MAX_PAGE } from "../../../oidc/admin/cursor.ts";
import { check_if_match, etag_of } from "../../../oidc/admin/etag.ts";
import type { AdminTarget } from "../../middleware/admin_api.ts";

export { ADMIN_API } from "../../middleware/admin_api.ts";

/** An operation of the OpenAPI document: the zod contracts it is generated from. */
export type OpenApiOperation = {
  summary: string;
  tag: string;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  /** The success status (200 unless said). */
  status?: number;
  /** The answer carries an ETag. */
  etag?: boolean;
  /** The request needs If-Match. */
  if_match?: boolean;
  /** No token needed (the OpenAPI document itself). */
  public?: boolean;
};

/** Names what the call acted on in its audit event. */
export function audit_target(endpoint: EndpointBase, target: AdminTarget): void {
  endpoint.context.state.admin_target = target;
}

/** Sets the item's ETag (RFC 9110 §8.8.3) and returns it. */
export function with_etag<T>(endpoint: EndpointBase, representation: T): T {
  endpoint.response.headers.set("etag", etag_of(representation));
  return representation;
}

/** A change of the item whose current representation is `representation` needs its ETag in If-Match. */
export function require_match(endpoint: EndpointBase, representation: unknown): void {
  check_if_match(endpoint.headers.get("if-match"), etag_of(representation));
}

/** `limit` (1–200, default 50) and the opaque `cursor` of the previous page's `next_cursor`. */
export const PAGE_QUERY = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
  cursor: z.string().min(1).max(1024).optional(),
};

export function page_schema(item: z.ZodType) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

export const Removed = z.object({});
