/**
 * The admin API says at once when a client or upstream it creates or changes has a URL the
 * outbound fence would refuse (oidc/outbound/preflight.ts): the answer carries `warnings`, naming
 * IDP_OUTBOUND_ALLOW_HTTP or IDP_OUTBOUND_ALLOW; the change is made all the same, and the ETag
 * is the representation's (a GET answers the same one, without warnings).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const API = "/admin/api/v1";
const ALLOW_HTTP = "set IDP_OUTBOUND_ALLOW_HTTP=true to let the provider call http URLs, or register an https one";

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
  op = await start_provider({ database_url: cli.env.DATABASE_URL!, config: { outbound: { allow: ["10.0.0.0/8"] } } });
  const res = await fetch(`${op.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${admin.client_id}:${admin.client_secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  token = ((await res.json()) as { access_token: string }).access_token;
});

afterAll(async () => {
  await op?.stop();
  cli?.cleanup();
});

describe("admin API: URLs the outbound fence would refuse", () => {
  test("a client with an http backchannel_logout_uri is created with `warnings` naming IDP_OUTBOUND_ALLOW_HTTP; one without gets none", async () => {
    const created = await call("POST", `${API}/clients`, {
      body: { client_name: "RP", redirect_uris: ["https://rp.example.com/cb"], backchannel_logout_uri: "http://localhost:9000/bc" },
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { client_id: string; backchannel_logout_uri: string; warnings?: string[] };
    expect(body.backchannel_logout_uri).toBe("http://localhost:9000/bc");
    expect(body.warnings).toEqual([
      `backchannel_logout_uri "http://localhost:9000/bc": the provider will not call it: scheme http: is not allowed (outbound.allow_http is off); ${ALLOW_HTTP}`,
    ]);
    expect((await op.store.get_client(body.client_id))?.metadata.backchannel_logout_uri).toBe("http://localhost:9000/bc");
    const read = (await (await call("GET", `${API}/clients/${body.client_id}`)).json()) as Record<string, unknown>;
    expect(read).not.toHaveProperty("warnings");

    const plain = (await (
      await call("POST", `${API}/clients`, { body: { client_name: "Plain", redirect_uris: ["https://rp.example.com/cb"], backchannel_logout_uri: "https://10.1.2.3/bc" } })
    ).json()) as Record<string, unknown>;
    expect(plain).not.toHaveProperty("warnings");
  });

  test("a change answers warnings for the client's URLs (a name that does not resolve could not be checked); the ETag is the client's", async () => {
    const { client_id } = (await (await call("POST", `${API}/clients`, { body: { client_name: "RP2", redirect_uris: ["https://rp.example.com/cb"] } })).json()) as {
      client_id: string;
    };
    const etag = (await call("GET", `${API}/clients/${client_id}`)).headers.get("etag")!;
    const patched = await call("PATCH", `${API}/clients/${client_id}`, { body: { request_uris: ["https://rp.invalid/request.jwt"] }, headers: { "if-match": etag } });
    expect(patched.status).toBe(200);
    const body = (await patched.json()) as { warnings?: string[] };
    expect(body.warnings).toEqual([
      expect.stringMatching(
        /^request_uris "https:\/\/rp\.invalid\/request\.jwt": could not be checked now \(.+\); the provider calls it only if it resolves to public addresses, or to ones IDP_OUTBOUND_ALLOW covers$/,
      ),
    ]);
    expect((await call("GET", `${API}/clients/${client_id}`)).headers.get("etag")).toBe(patched.headers.get("etag"));
  });

  test("an upstream whose issuer the fence would refuse is added and changed with `warnings`", async () => {
    const created = await call("POST", `${API}/upstreams`, { body: { name: "corp", issuer: "http://127.0.0.1:9100", client_id: "idp" } });
    expect(created.status).toBe(201);
    const warning = `issuer "http://127.0.0.1:9100": the provider will not call it: scheme http: is not allowed (outbound.allow_http is off); ${ALLOW_HTTP}`;
    expect(((await created.json()) as { warnings?: string[] }).warnings).toEqual([warning]);
    const etag = created.headers.get("etag")!;
    expect((await call("GET", `${API}/upstreams/corp`)).headers.get("etag")).toBe(etag);
    const changed = await call("PATCH", `${API}/upstreams/corp`, { body: { display_name: "Corp SSO" }, headers: { "if-match": etag } });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { warnings?: string[] }).warnings).toEqual([warning]);
    const fixed = await call("PATCH", `${API}/upstreams/corp`, { body: { issuer: "https://10.2.3.4" }, headers: { "if-match": changed.headers.get("etag")! } });
    expect(fixed.status).toBe(200);
    expect((await fixed.json()) as Record<string, unknown>).not.toHaveProperty("warnings");
  });
});
