/**
 * The SCIM enterprise extension over custom attributes (oidc/scim/enterprise.ts): a field with a
 * declared attribute of the same name is that attribute (set by SCIM, shown by `idp users show`
 * and released as a claim in the ID Token; set by the CLI, shown in the SCIM User); a field
 * without one is kept as sent; a value the attribute's type refuses is invalidValue.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { full_flow, relying_party } from "./authorize_helpers.ts";
import * as F from "./scim_fixtures.ts";

// biome-ignore lint/suspicious/noExplicitAny: the assertions read nested SCIM JSON
type Json = Record<string, any>;

let cli: Sandbox;
let op: TestProvider;
let token: string;

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${op.url}/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/scim+json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Json };
};

beforeAll(async () => {
  cli = sandbox();
  const admin = (await cli.run(["clients", "add", "--name", "entra", "--grant-type", "client_credentials", "--admin", "--scope", "scim", "--json"])).json<{
    client_id: string;
    client_secret: string;
  }>();
  expect((await cli.run(["attributes", "add", "department", "--type", "string"])).code).toBe(0);
  expect((await cli.run(["attributes", "add", "employeeNumber", "--type", "number", "--scope", "hr"])).code).toBe(0);
  op = await start_provider({ database_url: cli.env.DATABASE_URL! });
  const answer = await fetch(`${op.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${admin.client_id}:${admin.client_secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&scope=scim",
  });
  token = ((await answer.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await op?.stop();
  cli?.cleanup();
});

describe("SCIM enterprise extension over custom attributes", () => {
  test("PUT and PATCH set a declared attribute: idp users show and the ID Token's claim have it; undeclared fields are kept", async () => {
    const id = op.user.id;
    const current = (await call("GET", `/Users/${id}`)).json;
    const put = await call("PUT", `/Users/${id}`, {
      schemas: [F.USER, F.ENTERPRISE],
      userName: current.userName,
      [F.ENTERPRISE]: { department: "Sales", costCenter: "4711", manager: { value: "m-1", displayName: "Boss" } },
    });
    expect(put.status).toBe(200);
    expect(put.json[F.ENTERPRISE]).toEqual({ department: "Sales", costCenter: "4711", manager: { value: "m-1", displayName: "Boss" } });
    const shown = await cli.run(["users", "show", current.userName, "--json"]);
    expect(JSON.stringify(shown.json())).toContain('"department":"Sales"');
    // costCenter has no declared attribute: kept beside the user, not an attribute.
    expect(JSON.stringify(shown.json())).not.toContain("4711");

    const patched = await call("PATCH", `/Users/${id}`, { schemas: [F.PATCH_OP], Operations: [{ op: "Replace", path: `${F.ENTERPRISE}:department`, value: "Ops" }] });
    expect(patched.status).toBe(200);
    expect(patched.json[F.ENTERPRISE]).toMatchObject({ department: "Ops", costCenter: "4711" });
    const { client, secret } = await op.add_client({ client_name: "Enterprise App" });
    const flow = await full_flow(await relying_party(op, client.client_id, secret!), new Browser(), { scope: "openid profile" });
    expect(flow.claims.department).toBe("Ops");
  });

  test("a value set by the CLI shows in the SCIM User; clearing it removes it; a value the type refuses is invalidValue", async () => {
    const user = await op.add_user({ username: "ent-cli" });
    expect((await cli.run(["users", "update", "ent-cli", "--attribute", "department=Finance", "--attribute", "employeeNumber=42"])).code).toBe(0);
    const read = await call("GET", `/Users/${user.id}`);
    expect(read.json.schemas).toContain(F.ENTERPRISE);
    // employeeNumber is declared as a number: the attribute's value as it is typed.
    expect(read.json[F.ENTERPRISE]).toEqual({ department: "Finance", employeeNumber: 42 });
    expect((await cli.run(["users", "update", "ent-cli", "--attribute", "department="])).code).toBe(0);
    expect((await call("GET", `/Users/${user.id}`)).json[F.ENTERPRISE]).toEqual({ employeeNumber: 42 });

    const refused = await call("PATCH", `/Users/${user.id}`, { schemas: [F.PATCH_OP], Operations: [{ op: "Replace", path: `${F.ENTERPRISE}:employeeNumber`, value: "E-7" }] });
    expect(refused.status).toBe(400);
    expect(refused.json.scimType).toBe("invalidValue");
    expect(refused.json.detail).toContain("employeeNumber");
    expect((await call("GET", `/Users/${user.id}`)).json[F.ENTERPRISE]).toEqual({ employeeNumber: 42 });
  });
});
