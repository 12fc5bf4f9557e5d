/**
 * The admin API's custom attribute definitions (http/endpoints/admin/attributes/) through real
 * HTTP with a real admin token: create (the same rules as `idp attributes add`), list, read
 * (the name ignoring case) with an ETag, PATCH and DELETE with If-Match (428 without, 412 when
 * stale), removal taking every user's value with it; a token without the admin scope refused;
 * every call audited with its action; the operations in the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { read_user_attributes } from "../../src/oidc/attributes/values.ts";

const API = "/admin/api/v1";
type Problem = { status: number; code: string; detail: string; errors?: { field: string; message: string }[] };
type Attribute = { name: string; type: string; scope: string; claim: string; user_editable: boolean; required: boolean };

let cli: Sandbox;
let op: TestProvider;
let token: string;

const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; token?: string } = {}) => {
  const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${options.token ?? token}`, ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${op.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
};
const problem = async (res: Response, status: number): Promise<Problem> => {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toStartWith("application/problem+json");
  return (await res.json()) as Problem;
};
const client_token = async (client_id: string, secret: string): Promise<string> => {
  const res = await fetch(`${op.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  return ((await res.json()) as { access_token: string }).access_token;
};

beforeAll(async () => {
  cli = sandbox();
  const admin = (await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"])).json<{
    client_id: string;
    client_secret: string;
  }>();
  expect((await cli.run(["users", "add", "amy", "--password-stdin"], { stdin: "correct horse battery\n" })).code).toBe(0);
  op = await start_provider({ database_url: cli.env.DATABASE_URL! });
  token = await client_token(admin.client_id, admin.client_secret);
});
afterAll(async () => {
  await op?.stop();
  cli?.cleanup();
});

describe("admin API: attribute definitions", () => {
  test("POST declares one (201, Location, ETag); a taken name (any case), a bad type or a registered claim is refused naming the field", async () => {
    const res = await call("POST", `${API}/attributes`, { body: { name: "Department", type: "string", claim: "dept", user_editable: true } });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`${API}/attributes/Department`);
    expect(res.headers.get("etag")).toMatch(/^".+"$/);
    expect((await res.json()) as Attribute).toMatchObject({ name: "Department", type: "string", scope: "profile", claim: "dept", user_editable: true, required: false });

    expect((await problem(await call("POST", `${API}/attributes`, { body: { name: "department", type: "number" } }), 409)).errors).toEqual([
      { field: "name", message: "is taken" },
    ]);
    expect((await problem(await call("POST", `${API}/attributes`, { body: { name: "age", type: "integer" } }), 422)).errors?.[0]).toMatchObject({ field: "type" });
    const reserved = await problem(await call("POST", `${API}/attributes`, { body: { name: "badge", type: "number", claim: "email" } }), 422);
    expect(reserved.errors?.[0]).toMatchObject({ field: "claim" });
    expect((await problem(await call("POST", `${API}/attributes`, { body: { name: "x y", type: "string" } }), 422)).errors?.[0]).toMatchObject({ field: "name" });
    expect((await problem(await call("POST", `${API}/attributes`, { body: { name: "extra", type: "string", password: "x" } }), 422)).status).toBe(422);
  });

  test("GET lists them in the order of their names ignoring case, a page at a time; reads one by its name in any case", async () => {
    expect((await call("POST", `${API}/attributes`, { body: { name: "badge", type: "number", scope: "org" } })).status).toBe(201);
    const first = (await (await call("GET", `${API}/attributes?limit=1`)).json()) as { items: Attribute[]; next_cursor: string | null };
    expect(first.items.map((a) => a.name)).toEqual(["badge"]);
    const second = (await (await call("GET", `${API}/attributes?limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`)).json()) as { items: Attribute[] };
    expect(second.items.map((a) => a.name)).toEqual(["Department"]);
    const read = await call("GET", `${API}/attributes/DEPARTMENT`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as Attribute).claim).toBe("dept");
    expect((await problem(await call("GET", `${API}/attributes/nothing`), 404)).code).toBe("not_found");
  });

  test("PATCH needs the current ETag (428 without, 412 stale); changes scope, claim and flags; name and type are not members; another's claim is refused", async () => {
    const etag = (await call("GET", `${API}/attributes/badge`)).headers.get("etag")!;
    expect((await problem(await call("PATCH", `${API}/attributes/badge`, { body: { required: true } }), 428)).code).toBe("precondition_required");
    expect((await problem(await call("PATCH", `${API}/attributes/badge`, { body: { required: true }, headers: { "if-match": '"stale"' } }), 412)).code).toBe("precondition_failed");
    expect((await call("PATCH", `${API}/attributes/badge`, { body: { type: "string" }, headers: { "if-match": etag } })).status).toBe(422);
    const changed = await call("PATCH", `${API}/attributes/badge`, { body: { scope: "profile", claim: "badge_no", required: true }, headers: { "if-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect((await changed.json()) as Attribute).toMatchObject({ name: "badge", type: "number", scope: "profile", claim: "badge_no", required: true });
    // The old ETag no longer matches.
    expect((await call("PATCH", `${API}/attributes/badge`, { body: { required: false }, headers: { "if-match": etag } })).status).toBe(412);
    const taken = await call("PATCH", `${API}/attributes/badge`, { body: { claim: "DEPT" }, headers: { "if-match": changed.headers.get("etag")! } });
    expect((await problem(taken, 422)).errors).toEqual([{ field: "claim", message: expect.stringContaining("already the claim of attribute Department") }]);
  });

  test("DELETE with If-Match removes the definition and every user's value of it", async () => {
    expect((await cli.run(["users", "update", "amy", "--attribute", "Department=Ops"])).code).toBe(0);
    const amy = (await op.store.get_user_by_username("amy"))!;
    expect(await read_user_attributes(op.store, amy.id)).toEqual({ Department: "Ops" });
    expect((await problem(await call("DELETE", `${API}/attributes/department`), 428)).code).toBe("precondition_required");
    const etag = (await call("GET", `${API}/attributes/department`)).headers.get("etag")!;
    expect((await call("DELETE", `${API}/attributes/department`, { headers: { "if-match": etag } })).status).toBe(204);
    expect((await call("GET", `${API}/attributes/Department`)).status).toBe(404);
    expect(await read_user_attributes(op.store, amy.id)).toEqual({});
  });

  test("a token without the admin scope is refused (403); calls are audited with their action; the OpenAPI document has the operations", async () => {
    const { client, secret } = await op.add_client({ client_name: "reports", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "reports" });
    const plain = await client_token(client.client_id, secret!);
    expect((await problem(await call("GET", `${API}/attributes`, { token: plain }), 403)).code).toBe("insufficient_scope");
    expect((await problem(await call("POST", `${API}/attributes`, { token: plain, body: { name: "sneaky", type: "string" } }), 403)).code).toBe("insufficient_scope");
    expect(await op.store.get_attribute_definition("sneaky")).toBeNull();

    const actions = (await op.store.list_audit_events({ type: "admin_api" })).map((e) => e.details?.action).filter((a) => typeof a === "string");
    for (const action of ["attribute_created", "attributes_listed", "attribute_read", "attribute_updated", "attribute_removed"]) expect(actions).toContain(action);

    const doc = (await (await fetch(`${op.url}${API}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths[`${API}/attributes`]!).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths[`${API}/attributes/{name}`]!).sort()).toEqual(["delete", "get", "patch"]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["Attribute", "AttributeCreate", "AttributePatch"]));
  });
});
