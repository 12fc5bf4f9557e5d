/**
 * Custom attributes in the admin API's user resource (http/endpoints/admin/users): read with the
 * user (and in its ETag), set and cleared by PATCH with If-Match, a value of the wrong type or an
 * undeclared name refused (422 naming it) with nothing written.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { add_attribute } from "../../src/oidc/attributes/definitions.ts";
import { read_user_attributes } from "../../src/oidc/attributes/values.ts";

const API = "/admin/api/v1";
let cli: Sandbox;
let op: TestProvider;
let token: string;

const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) => {
  const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${token}`, ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${op.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
};

beforeAll(async () => {
  cli = sandbox();
  const admin = (await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"])).json<{
    client_id: string;
    client_secret: string;
  }>();
  op = await start_provider({ database_url: cli.env.DATABASE_URL! });
  const answer = await fetch(`${op.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${admin.client_id}:${admin.client_secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  token = ((await answer.json()) as { access_token: string }).access_token;
  await add_attribute(op.store, { name: "teams", type: "string[]", scope: "org" }, op.clock.now());
  await add_attribute(op.store, { name: "age", type: "number", scope: "org" }, op.clock.now());
});
afterAll(async () => {
  await op?.stop();
  cli?.cleanup();
});

describe("admin API: custom attributes of a user", () => {
  test("PATCH sets and clears them; GET shows them; the ETag follows them", async () => {
    const user = await op.add_user({ username: "attr1" });
    const first = await call("GET", `${API}/users/${user.id}`);
    expect(((await first.json()) as { attributes: unknown }).attributes).toEqual({});
    const etag = first.headers.get("etag")!;
    const set = await call("PATCH", `${API}/users/${user.id}`, { body: { given_name: "Ann", attributes: { teams: ["red"], AGE: 40 } }, headers: { "if-match": etag } });
    expect(set.status).toBe(200);
    expect((await set.json()) as object).toMatchObject({ given_name: "Ann", attributes: { teams: ["red"], age: 40 } });
    const after = await call("GET", `${API}/users/attr1`);
    expect(after.headers.get("etag")).not.toBe(etag);
    const cleared = await call("PATCH", `${API}/users/${user.id}`, { body: { attributes: { age: null } }, headers: { "if-match": after.headers.get("etag")! } });
    expect(cleared.status).toBe(200);
    expect(await read_user_attributes(op.store, user.id)).toEqual({ teams: ["red"] });
  });

  test("a wrong type or an undeclared name is a 422 naming it; nothing is written", async () => {
    const user = await op.add_user({ username: "attr2" });
    for (const attributes of [{ age: "forty" }, { teams: "red" }, { nope: 1 }]) {
      const etag = (await call("GET", `${API}/users/${user.id}`)).headers.get("etag")!;
      const refused = await call("PATCH", `${API}/users/${user.id}`, { body: { name: "Changed", attributes }, headers: { "if-match": etag } });
      expect(refused.status).toBe(422);
      const problem = (await refused.json()) as { detail: string };
      expect(problem.detail).toContain(Object.keys(attributes)[0]!);
    }
    expect((await op.store.get_user_by_id(user.id))?.name).toBeNull();
    expect(await read_user_attributes(op.store, user.id)).toEqual({});
  });
});
