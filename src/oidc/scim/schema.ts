/**
 * The schema URNs (RFC 7643 §8.7), the limits this server keeps, and which attributes each
 * resource type has: what filters, PATCH paths, `attributes` and sorting may name. An attribute
 * outside these lists is refused (invalidFilter, invalidPath) rather than silently matching
 * nothing. Names compare without case (RFC 7643 §2.1).
 */
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const BULK_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";
export const BULK_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkResponse";
export const SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
export const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
export const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

/** The limits, published in /ServiceProviderConfig (RFC 7643 §5). */
export const LIMITS = {
  /** The most resources one list page holds (`count` is cut to it). */
  max_results: 200,
  /** The most users or groups a filter that no index answers is evaluated over; more is `tooMany`. */
  max_scan: 5000,
  /** A filter's length in characters, and its nesting of parentheses and brackets. */
  max_filter_length: 2048,
  max_filter_depth: 10,
  /** Comparisons in one filter. */
  max_filter_terms: 50,
  /** Bulk (RFC 7644 §3.7): operations per request and bytes per request. */
  bulk_max_operations: 100,
  bulk_max_payload: 1_048_576,
  /** Operations in one PATCH. */
  max_patch_operations: 100,
} as const;

export type ResourceKind = "User" | "Group";

/** The attributes of each kind, sub-attributes as `parent.sub`, lower-cased; the enterprise ones under their URN. */
const COMMON = ["id", "externalid", "meta", "meta.created", "meta.lastmodified", "meta.resourcetype", "meta.version", "meta.location", "schemas"];
const MULTI = (name: string) => [name, `${name}.value`, `${name}.type`, `${name}.primary`, `${name}.display`];
export const ENTERPRISE_ATTRIBUTES = ["employeenumber", "costcenter", "organization", "division", "department", "manager", "manager.value", "manager.displayname"];

export const ATTRIBUTES: Record<ResourceKind, ReadonlySet<string>> = {
  User: new Set([
    ...COMMON,
    "username",
    "name",
    "name.formatted",
    "name.givenname",
    "name.familyname",
    "displayname",
    "active",
    "password",
    ...MULTI("emails"),
    ...MULTI("phonenumbers"),
    ...MULTI("groups"),
    ...ENTERPRISE_ATTRIBUTES.map((name) => `${ENTERPRISE_SCHEMA.toLowerCase()}:${name}`),
    ENTERPRISE_SCHEMA.toLowerCase(),
  ]),
  Group: new Set([...COMMON, "displayname", "members", "members.value", "members.display", "members.type", "members.$ref"]),
};

/** Attributes compared with case (RFC 7643 §3.1, §4.1.2: `caseExact`); every other string ignores case. */
export const CASE_EXACT = new Set(["id", "externalid", "meta.version", "meta.location", "members.value", "groups.value", "password"]);

/** Attributes compared as instants (dateTime, RFC 7643 §2.3.5). */
export const DATE_TIMES = new Set(["meta.created", "meta.lastmodified"]);

export type AttributePath = {
  /** The lower-cased path as in ATTRIBUTES (`name.givenname`, `urn:…:enterprise:2.0:user:department`). */
  key: string;
  /** Where the value sits in a representation: the keys to follow, as spelled there. */
  steps: string[];
};

/**
 * Resolves an attribute path of a filter, sort or projection (RFC 7644 §3.10): optional schema
 * URN, attribute, optional sub-attribute. Null when the kind has no such attribute.
 */
export function attribute_path(kind: ResourceKind, path: string): AttributePath | null {
  let rest = path;
  let extension = false;
  const lower = path.toLowerCase();
  const core = (kind === "User" ? USER_SCHEMA : GROUP_SCHEMA).toLowerCase();
  if (lower.startsWith(`${core}:`)) rest = path.slice(core.length + 1);
  else if (kind === "User" && lower === ENTERPRISE_SCHEMA.toLowerCase()) return { key: lower, steps: [ENTERPRISE_SCHEMA] };
  else if (kind === "User" && lower.startsWith(`${ENTERPRISE_SCHEMA.toLowerCase()}:`)) {
    rest = path.slice(ENTERPRISE_SCHEMA.length + 1);
    extension = true;
  } else if (lower.startsWith("urn:")) return null;
  const parts = rest.split(".");
  if (parts.length > 2 || parts.some((part) => !/^\$?[A-Za-z][\w$-]*$/.test(part))) return null;
  const key = extension ? `${ENTERPRISE_SCHEMA.toLowerCase()}:${rest.toLowerCase()}` : rest.toLowerCase();
  if (!ATTRIBUTES[kind].has(key)) return null;
  return { key, steps: extension ? [ENTERPRISE_SCHEMA, ...parts] : parts };
}

/** The key of `object` spelled like `name` without case (RFC 7643 §2.1), or `name` when none is. */
export function key_of(object: Record<string, unknown>, name: string): string {
  if (Object.hasOwn(object, name)) return name;
  const lower = name.toLowerCase();
  return Object.keys(object).find((key) => key.toLowerCase() === lower) ?? name;
}

/** Where the SCIM endpoints are, under the issuer (`<issuer>/scim/v2`). */
export const SCIM_PATH = "/scim/v2";

/** The value of `name` in `object`, its key spelled in any case (RFC 7643 §2.1). */
export function field(object: Record<string, unknown>, name: string): unknown {
  return object[key_of(object, name)];
}
