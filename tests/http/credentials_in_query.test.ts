/**
 * RFC 6749 §2.3.1: client credentials "MUST NOT be included in the request URI". /token, /revoke
 * and /introspect refuse a client_secret or a client assertion sent in the query string, and the
 * registration endpoints (RFC 7591, RFC 7592) a Bearer token sent there (RFC 6750 §2.3), with
 * invalid_request — even when the same request also carries valid credentials where they belong.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { manage, registered, WEB_CLIENT } from "./register_helpers.ts";
import { main_client, post_form } from "./token_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
});
afterAll(() => t.stop());

async function expect_invalid_request(response: Response, name: string): Promise<void> {
  const body = (await response.json()) as { error: string; error_description: string };
  expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: "invalid_request" });
  expect(body.error_description).toContain(`${name} must not be sent in the URL`);
  expect(response.headers.get("cache-control")).toBe("no-store");
}

describe("client credentials in the query string", () => {
  for (const path of ["/token", "/revoke", "/introspect"]) {
    test(`${path}: client_secret in the URL is invalid_request, though the body carries it too`, async () => {
      const form: Record<string, string> = path === "/token" ? { grant_type: "client_credentials" } : { token: "A".repeat(43) };
      const url = `${path}?client_secret=${encodeURIComponent(t.secret)}`;
      await expect_invalid_request(await post_form(t, url, { ...form, client_id: t.client.client_id, client_secret: t.secret }, null), "client_secret");
    });
  }

  test("/token: client_assertion and client_assertion_type in the URL are invalid_request", async () => {
    const form = { grant_type: "client_credentials" };
    await expect_invalid_request(await post_form(t, "/token?client_assertion=eyJ.x.y", form, main_client(t)), "client_assertion");
    await expect_invalid_request(
      await post_form(t, `/token?client_assertion_type=${encodeURIComponent("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")}`, form, main_client(t)),
      "client_assertion_type",
    );
  });

  test("the same credentials in the body (or Basic) are accepted; other query parameters are not refused", async () => {
    const { client, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_post", grant_types: ["client_credentials"] });
    const in_body = await post_form(t, "/token?unrelated=1", { grant_type: "client_credentials", client_id: client.client_id, client_secret: secret! }, null);
    expect(in_body.status).toBe(200);
    const revoke = await post_form(t, "/revoke?unrelated=1", { token: "A".repeat(43) }, main_client(t));
    expect(revoke.status).toBe(200);
  });
});

describe("registration tokens in the query string", () => {
  test("POST /register?access_token=… is invalid_request", async () => {
    const response = await fetch(`${t.url}/register?access_token=abc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(WEB_CLIENT) });
    await expect_invalid_request(response, "access_token");
  });

  test("RFC 7592 read, update and delete with the registration access token in the URL are invalid_request; the client is untouched", async () => {
    const info = await registered(t);
    const token = info.registration_access_token;
    for (const name of ["access_token", "registration_access_token"]) {
      const uri = `${info.registration_client_uri}?${name}=${encodeURIComponent(token)}`;
      await expect_invalid_request(await manage("GET", uri, token), name);
      await expect_invalid_request(await manage("PUT", uri, token, { client_id: info.client_id, ...WEB_CLIENT }), name);
      await expect_invalid_request(await manage("DELETE", uri, token), name);
    }
    // Nothing was changed or deleted by the refused requests.
    const read = await manage("GET", info.registration_client_uri, token);
    expect(read.status).toBe(200);
  });
});
