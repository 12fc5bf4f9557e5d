/**
 * The discovery documents (RFC 7644 §4, RFC 7643 §5–§7): what this server supports and its
 * limits (/ServiceProviderConfig), its resource types, and the schemas of the attributes it
 * keeps (a subset of RFC 7643 §4.1, §4.2, §4.3: what is mapped onto our users and groups).
 */
import type { JsonObject } from "../../store/types.ts";
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, LIMITS, RESOURCE_TYPE_SCHEMA, SCHEMA_SCHEMA, SPC_SCHEMA, USER_SCHEMA } from "./schema.ts";

/** `body_limit`: the request body limit (IDP_BODY_LIMIT); a Bulk request is held to the smaller of it and LIMITS.bulk_max_payload. */
export function service_provider_config(base: string, body_limit: number): JsonObject {
  return {
    schemas: [SPC_SCHEMA],
    patch: { supported: true },
    bulk: { supported: true, maxOperations: LIMITS.bulk_max_operations, maxPayloadSize: Math.min(LIMITS.bulk_max_payload, body_limit) },
    filter: { supported: true, maxResults: LIMITS.max_results },
    changePassword: { supported: true },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "An access token with the scope scim, from the client_credentials grant of an admin client (RFC 6750).",
        specUri: "https://www.rfc-editor.org/rfc/rfc6750",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
  };
}

export function resource_types(base: string): JsonObject[] {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "User",
      name: "User",
      endpoint: "/Users",
      description: "User Account",
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      description: "Group",
      schema: GROUP_SCHEMA,
      meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/Group` },
    },
  ];
}

type Options = { type?: string; multi?: boolean; required?: boolean; mutability?: string; returned?: string; uniqueness?: string; exact?: boolean; subs?: JsonObject[] };

function attribute(name: string, options: Options = {}): JsonObject {
  return {
    name,
    type: options.type ?? "string",
    multiValued: options.multi ?? false,
    description: name,
    required: options.required ?? false,
    caseExact: options.exact ?? false,
    mutability: options.mutability ?? "readWrite",
    returned: options.returned ?? "default",
    uniqueness: options.uniqueness ?? "none",
    ...(options.subs !== undefined && { subAttributes: options.subs }),
  };
}

const multi_subs = [attribute("value"), attribute("type"), attribute("primary", { type: "boolean" })];

export function schemas(base: string): JsonObject[] {
  const schema = (id: string, name: string, attributes: JsonObject[]): JsonObject => ({
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    description: name,
    attributes,
    meta: { resourceType: "Schema", location: `${base}/Schemas/${id}` },
  });
  return [
    schema(USER_SCHEMA, "User", [
      attribute("userName", { required: true, uniqueness: "server" }),
      attribute("name", { type: "complex", subs: [attribute("formatted"), attribute("familyName"), attribute("givenName")] }),
      attribute("displayName"),
      attribute("active", { type: "boolean" }),
      attribute("password", { mutability: "writeOnly", returned: "never", exact: true }),
      attribute("emails", { type: "complex", multi: true, subs: multi_subs }),
      attribute("phoneNumbers", { type: "complex", multi: true, subs: multi_subs }),
      attribute("groups", {
        type: "complex",
        multi: true,
        mutability: "readOnly",
        subs: [attribute("value", { mutability: "readOnly" }), attribute("$ref", { type: "reference", mutability: "readOnly" }), attribute("display", { mutability: "readOnly" })],
      }),
    ]),
    schema(GROUP_SCHEMA, "Group", [
      attribute("displayName", { required: true }),
      attribute("members", {
        type: "complex",
        multi: true,
        subs: [
          attribute("value", { mutability: "immutable", exact: true }),
          attribute("$ref", { type: "reference", mutability: "immutable" }),
          attribute("display", { mutability: "readOnly" }),
        ],
      }),
    ]),
    schema(ENTERPRISE_SCHEMA, "EnterpriseUser", [
      attribute("employeeNumber"),
      attribute("costCenter"),
      attribute("organization"),
      attribute("division"),
      attribute("department"),
      attribute("manager", { type: "complex", subs: [attribute("value"), attribute("displayName", { mutability: "readOnly" })] }),
    ]),
  ];
}
