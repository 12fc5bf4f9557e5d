/**
 * The resource servers of the admin REST API (/admin/api/v1/resources) through real HTTP with a
 * real admin token: create (the rules of `idp resources add`), list, delete; bad input is a
 * problem document naming the field and stores nothing; the OpenAPI document lists them.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { basic } from "../helpers/flow.ts";

const API = "/admin/api/v1";
let t: TestProvider;
let token: string;

beforeAll(async () => {
  t = await start_provider();
  const { client, secret } = await t.add_client({ client_name: "Ops", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "admin", admin: true });
  const answer = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(client.client_id, secret!) },
    body: new URLSearchParams({ grant_type: "client_credentials", scope: "admin" }),
  });
  token = ((await answer.json()) as { access_token: string }).access_token;
});
afterAll(() => t.stop());

function call(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${t.url}${API}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

describe("admin API: resources", () => {
  test("create, list, delete; a second create of the URI is 409", async () => {
    const created = await call("POST", "/resources", { uri: "https://api.example.com/v1", scopes: ["read", "write"], access_token_format: "jwt", access_token_ttl: 600 });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${API}/resources/${encodeURIComponent("https://api.example.com/v1")}`);
    expect(await created.json()).toMatchObject({ uri: "https://api.example.com/v1", scopes: ["read", "write"], access_token_format: "jwt", access_token_ttl: 600 });
    expect((await call("POST", "/resources", { uri: "https://api.example.com/v1", scopes: ["read"] })).status).toBe(409);
    const listed = (await (await call("GET", "/resources")).json()) as { items: { uri: string }[] };
    expect(listed.items.map((r) => r.uri)).toEqual(["https://api.example.com/v1"]);
    expect((await call("DELETE", `/resources/${encodeURIComponent("https://api.example.com/v1")}`)).status).toBe(204);
    expect((await call("DELETE", `/resources/${encodeURIComponent("https://api.example.com/v1")}`)).status).toBe(404);
    expect(await t.store.get_resource_server("https://api.example.com/v1")).toBeNull();
  });

  test("bad input: 422 naming the field, nothing stored", async () => {
    const fragment = await call("POST", "/resources", { uri: "https://api.example.com/#x", scopes: ["read"] });
    expect(fragment.status).toBe(422);
    expect(((await fragment.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe("uri");
    const ttl = await call("POST", "/resources", { uri: "https://api.example.com/ttl", scopes: ["read"], access_token_ttl: 5 });
    expect(ttl.status).toBe(422);
    expect(((await ttl.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe("access_token_ttl");
    expect(await t.store.list_resource_servers()).toEqual([]);
  });

  test("the OpenAPI document lists the resource operations", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths[`${API}/resources`] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths[`${API}/resources/{uri}`] ?? {})).toEqual(["delete"]);
  });
});
