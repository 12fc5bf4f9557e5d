/**
 * Bulk (RFC 7644 §3.7): up to LIMITS.bulk_max_operations operations in one request, run in
 * order through the same operations as single requests (operations.ts), so each is checked,
 * written and audited alike. `bulkId` (§3.7.2): a POST's `bulkId` names the resource it made;
 * a later operation's data or path may refer to it as `bulkId:<id>`. A reference to a bulkId not
 * (yet) made fails that operation (409 with invalidValue, not resolved). `failOnErrors` stops
 * after that many failures. The payload limit is the request body's (the endpoint's).
 */
import type { JsonObject, JsonValue } from "../../store/types.ts";
import { invalid_syntax, ScimError, scim_error_of } from "./errors.ts";
import { create_resource, delete_resource, patch_resource, replace_resource, type Outcome } from "./operations.ts";
import type { Scim } from "./resource.ts";
import { BULK_REQUEST_SCHEMA, BULK_RESPONSE_SCHEMA, ERROR_SCHEMA, field, LIMITS, type ResourceKind } from "./schema.ts";

/** Each operation's outcome, for the audit log. */
export type BulkDone = { method: string; path: string; outcome: Outcome | null; status: number };

function resolve(value: JsonValue, made: Map<string, string>): JsonValue {
  if (typeof value === "string" && value.startsWith("bulkId:")) {
    const id = made.get(value.slice(7));
    if (id === undefined) throw new ScimError(409, "invalidValue", `${value} names no resource made before it in this request`);
    return id;
  }
  if (Array.isArray(value)) return value.map((item) => resolve(item, made));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, made)]));
  return value;
}

function target(path: string): { kind: ResourceKind; id: string | null } {
  const match = /^\/(Users|Groups)(?:\/([^/]+))?$/.exec(path);
  if (match === null) throw invalid_syntax(`bulk path "${path.slice(0, 100)}" is not /Users, /Groups or one of theirs`);
  return { kind: match[1] === "Users" ? "User" : "Group", id: match[2] ?? null };
}

export async function run_bulk(scim: Scim, body: Record<string, unknown>, done: (item: BulkDone) => Promise<void>): Promise<JsonObject> {
  const schemas = field(body, "schemas");
  if (!Array.isArray(schemas) || !schemas.includes(BULK_REQUEST_SCHEMA)) throw invalid_syntax(`a Bulk body has schemas ["${BULK_REQUEST_SCHEMA}"]`);
  const operations = field(body, "Operations");
  if (!Array.isArray(operations)) throw invalid_syntax("a Bulk body has an Operations array");
  // §3.7.4: more operations than maxOperations is 413.
  if (operations.length > LIMITS.bulk_max_operations) throw new ScimError(413, null, `a Bulk request has at most ${LIMITS.bulk_max_operations} operations`);
  const fail_on_errors = field(body, "failOnErrors");
  const limit = typeof fail_on_errors === "number" && fail_on_errors > 0 ? fail_on_errors : Number.POSITIVE_INFINITY;
  const made = new Map<string, string>();
  const results: JsonObject[] = [];
  let errors = 0;
  for (const raw of operations) {
    if (errors >= limit) break;
    const operation = (raw !== null && typeof raw === "object" && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
    const method = String(field(operation, "method") ?? "").toUpperCase();
    const bulk_id = field(operation, "bulkId");
    const path = String(field(operation, "path") ?? "");
    const result: JsonObject = { method, ...(typeof bulk_id === "string" && { bulkId: bulk_id }) };
    let outcome: Outcome | null = null;
    try {
      const resolved_path = String(resolve(path, made));
      const { kind, id } = target(resolved_path);
      const data = resolve((field(operation, "data") ?? {}) as JsonValue, made) as Record<string, unknown>;
      const version = field(operation, "version");
      const if_match = typeof version === "string" ? version : null;
      if (method === "POST" && id === null) {
        if (typeof bulk_id !== "string" || bulk_id === "") throw invalid_syntax("a POST in a Bulk request needs a bulkId");
        outcome = await create_resource(scim, kind, data);
        made.set(bulk_id, String(outcome.resource!.id));
      } else if (id === null) throw invalid_syntax(`${method} needs the path of one resource`);
      else if (method === "PUT") outcome = await replace_resource(scim, kind, id, data, if_match);
      else if (method === "PATCH") outcome = await patch_resource(scim, kind, id, data, if_match);
      else if (method === "DELETE") outcome = await delete_resource(scim, kind, id, if_match);
      else throw invalid_syntax(`unknown Bulk method "${method.slice(0, 10)}"`);
      const meta = outcome.resource?.meta as JsonObject | undefined;
      if (meta !== undefined) {
        result.location = meta.location!;
        result.version = meta.version!;
      } else result.location = `${resolved_path}`;
      result.status = String(outcome.status);
      await done({ method, path: resolved_path, outcome, status: outcome.status });
    } catch (error) {
      const scim_error = scim_error_of(error);
      if (scim_error === null) throw error;
      errors++;
      result.status = String(scim_error.status);
      result.response = {
        schemas: [ERROR_SCHEMA],
        status: String(scim_error.status),
        ...(scim_error.scim_type !== null && { scimType: scim_error.scim_type }),
        detail: scim_error.message,
      };
      await done({ method, path, outcome: null, status: scim_error.status });
    }
    results.push(result);
  }
  return { schemas: [BULK_RESPONSE_SCHEMA], Operations: results };
}
