/**
 * What the SCIM endpoints share (RFC 7644): the request contracts (a JSON body, the list query),
 * answers as `application/scim+json` with the resource's version as ETag, and the audit target
 * read by middleware/scim.ts.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import type { EndpointBase } from "../../../fw/endpoint.ts";
import type { Json } from "../../../fw/response.ts";
import type { Outcome } from "../../../oidc/scim/operations.ts";
import { version_of } from "../../../oidc/scim/resource.ts";
import { SCIM_PATH } from "../../../oidc/scim/schema.ts";
import type { JsonObject } from "../../../store/types.ts";
import { SCIM_CONTENT_TYPE, type ScimTarget } from "../../middleware/scim.ts";

export const SCIM = SCIM_PATH;

/** A SCIM message: any JSON object; its members are checked by the rules (oidc/scim/). */
export const ScimBody = Fw.Request("ScimBody", z.record(z.string(), z.unknown()), { from: ["body"], on_invalid: () => new Fw.BadRequest("the body must be a JSON object") });

const text = z.string().max(4096).optional();

/** RFC 7644 §3.4.2: filter, sorting, paging and the attributes to return. */
export const ScimQuery = Fw.Request(
  "ScimQuery",
  z.object({
    filter: text,
    sortBy: z.string().max(200).optional(),
    sortOrder: z.enum(["ascending", "descending"]).optional(),
    startIndex: z.coerce.number().int().optional(),
    count: z.coerce.number().int().optional(),
    attributes: text,
    excludedAttributes: text,
  }),
  { from: ["query"], on_invalid: (issues) => new Fw.BadRequest(issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")) },
);

export function scim_target(endpoint: EndpointBase, target: ScimTarget): void {
  endpoint.context.state.scim_target = target;
}

/** An answer in application/scim+json (RFC 7644 §3.1); a resource's meta.version is its ETag (§3.14). */
export function scim_json(endpoint: EndpointBase & { json<T>(value: T, status?: number): Json<T> }, value: JsonObject, status = 200) {
  endpoint.response.headers.set("content-type", SCIM_CONTENT_TYPE);
  if (value.meta !== undefined && (value.meta as JsonObject).version !== undefined) endpoint.response.headers.set("etag", version_of(value));
  return endpoint.json(value, status);
}

/** Audits an operation's outcome and sets its Location (a creation, §3.3). */
export function outcome_target(endpoint: EndpointBase, outcome: Outcome): void {
  scim_target(endpoint, { action: outcome.action, user_id: outcome.user_id, details: outcome.details });
  if (outcome.status === 201 && outcome.resource !== null) endpoint.response.headers.set("location", String((outcome.resource.meta as JsonObject).location));
}
