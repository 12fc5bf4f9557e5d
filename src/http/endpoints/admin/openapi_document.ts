/**
 * The OpenAPI 3.1 document of the admin API, generated from the endpoints' zod contracts
 * (`static openapi`, common.ts) and routes, so it cannot drift from what the API accepts: JSON
 * Schema 2020-12 (OpenAPI 3.1's dialect) from z.toJSONSchema, named schemas (`.meta({id})`)
 * hoisted to components.schemas. Errors are RFC 9457 problem documents.
 */
import { z } from "zod";
import { ADMIN_SCOPE } from "../../../oidc/admin/scope.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { PROBLEM_JSON } from "../../problems.ts";
import type { OpenApiOperation } from "./common.ts";

export type AdminEndpoint = { readonly route?: string; readonly openapi?: OpenApiOperation; readonly name: string };

type Json = Record<string, unknown>;

const PROBLEM: Json = {
  type: "object",
  description: "RFC 9457 problem details",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    instance: { type: "string" },
    code: { type: "string", description: "the reason, machine-readable (precondition_failed, insufficient_scope, not_found…)" },
    errors: { type: "array", items: { type: "object", properties: { field: { type: "string" }, message: { type: "string" } }, required: ["field", "message"] } },
  },
  required: ["type", "title", "status", "detail"],
};

/** `:id` segments as OpenAPI's `{id}`, and the names of the path parameters. */
function path_of(pattern: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

/** JSON Schema of a zod schema, its named parts moved to `components` and referenced there. */
function schema_of(schema: z.ZodType, io: "input" | "output", components: Json): Json {
  const generated = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as Json;
  const defs = (generated.$defs ?? {}) as Record<string, Json>;
  delete generated.$defs;
  delete generated.$schema;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    const out: Json = {};
    for (const [key, member] of Object.entries(value)) {
      out[key] = key === "$ref" && typeof member === "string" ? member.replace("#/$defs/", "#/components/schemas/") : rewrite(member);
    }
    return out;
  };
  for (const [name, def] of Object.entries(defs)) components[name] = rewrite(def);
  return rewrite(generated) as Json;
}

const problem_response = (description: string) => ({ description, content: { [PROBLEM_JSON]: { schema: { $ref: "#/components/schemas/Problem" } } } });

export function openapi_document(idp: Provider, endpoints: readonly AdminEndpoint[]): Json {
  const schemas: Json = { Problem: PROBLEM };
  const paths: Record<string, Json> = {};
  for (const endpoint of endpoints) {
    const op = endpoint.openapi;
    if (op === undefined || endpoint.route === undefined) throw new Error(`${endpoint.name} has no route or OpenAPI description`);
    const [methods, pattern] = endpoint.route.split(" ") as [string, string];
    const { path, params } = path_of(pattern);
    const parameters: Json[] = params.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
    if (op.query !== undefined) {
      const query = schema_of(op.query, "input", schemas);
      const required = new Set((query.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((query.properties ?? {}) as Json)) parameters.push({ name, in: "query", required: required.has(name), schema });
    }
    if (op.if_match)
      parameters.push({ name: "If-Match", in: "header", required: true, description: "the ETag of the item as last read (RFC 9110 §13.1.1)", schema: { type: "string" } });
    const status = String(op.status ?? 200);
    const success: Json = { description: op.summary };
    if (op.response !== undefined) success.content = { "application/json": { schema: schema_of(op.response, "output", schemas) } };
    if (op.etag) success.headers = { ETag: { description: "strong entity tag of the item", schema: { type: "string" } } };
    const responses: Json = op.public
      ? { [status]: success }
      : {
          [status]: success,
          "401": problem_response("no valid access token, or a DPoP-bound one without a valid proof of its key (WWW-Authenticate: Bearer or DPoP)"),
          "403": problem_response("the access token lacks the admin scope"),
          "404": problem_response("no such item"),
          "422": problem_response("invalid input; errors names each field"),
        };
    if (op.if_match) {
      responses["412"] = problem_response("the item changed since it was read");
      responses["428"] = problem_response("If-Match is required");
    }
    const operation: Json = {
      operationId: endpoint.name.replace(/^Admin/, "").replace(/^./, (c) => c.toLowerCase()),
      summary: op.summary,
      tags: [op.tag],
      ...(parameters.length > 0 && { parameters }),
      ...(op.public && { security: [] }),
      responses,
    };
    if (op.body !== undefined) operation.requestBody = { required: true, content: { "application/json": { schema: schema_of(op.body, "input", schemas) } } };
    for (const method of methods.split("|")) (paths[path] ??= {})[method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Identity provider admin API",
      version: "1",
      description:
        "Authorized by an access token with the admin scope, from the client_credentials grant of a client created with `idp clients add --admin`: `Authorization: Bearer <token>`, or for a DPoP-bound token (RFC 9449: a DPoP proof sent to the token endpoint) `Authorization: DPoP <token>` with a `DPoP` proof of each request (htm, htu, ath); a DPoP-bound token sent as Bearer is refused.",
    },
    servers: [{ url: idp.config.issuer }],
    security: [{ admin_token: [ADMIN_SCOPE] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        admin_token: {
          type: "oauth2",
          description: "RFC 6749 §4.4 client credentials; RFC 6750 Bearer tokens, or RFC 9449 DPoP-bound tokens sent with the DPoP scheme and a proof (§7.1)",
          flows: { clientCredentials: { tokenUrl: `${idp.config.issuer}${PATHS.token}`, scopes: { [ADMIN_SCOPE]: "administer the provider" } } },
        },
      },
    },
  };
}
