/**
 * RFC 7592: reading, updating and deleting a registration with its registration access token,
 * and what the rest of the provider sees afterwards (the /authorize error page for a removed
 * redirect URI, invalid_client at /token for a deleted client, the consent page's links).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { ClientInformation } from "../../src/http/endpoints/registration/response.ts";
import { authorization_url, get_code, redeem, userinfo } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, consent_page, expect_error, manage, metadata_of, registered } from "./register_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
});
afterAll(() => t.stop());

async function expect_invalid_token(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get("www-authenticate")).toStartWith("Bearer ");
  expect(await response.json()).toEqual({ error: "invalid_token", error_description: "the registration access token is invalid for this client" });
}

describe("GET /register/:client_id (RFC 7592 §2.1)", () => {
  test("returns the registration without the secret, not cached", async () => {
    const info = await registered(t);
    const response = await manage("GET", info.registration_client_uri, info.registration_access_token);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const { client_secret: _, ...expected } = info;
    expect(await response.json()).toEqual(expected);
  });

  test("without a token: 401 with a Bearer challenge and no error code", async () => {
    const info = await registered(t);
    const response = await manage("GET", info.registration_client_uri, null);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).not.toContain("error=");
  });

  test("a wrong token: 401 invalid_token", async () => {
    const info = await registered(t);
    await expect_invalid_token(await manage("GET", info.registration_client_uri, "wrong-token"));
  });

  test("another client's token: 401 invalid_token", async () => {
    const [mine, theirs] = await Promise.all([registered(t), registered(t)]);
    await expect_invalid_token(await manage("GET", mine.registration_client_uri, theirs.registration_access_token));
  });

  test("an unknown client_id answers exactly like a wrong token (existence is not revealed)", async () => {
    const info = await registered(t);
    await expect_invalid_token(await manage("GET", `${t.issuer}/register/no-such-client`, info.registration_access_token));
    await expect_invalid_token(await manage("GET", `${t.issuer}/register/no-such-client`, "wrong-token"));
  });

  test("the client secret is not a registration access token", async () => {
    const info = await registered(t);
    await expect_invalid_token(await manage("GET", info.registration_client_uri, info.client_secret!));
  });

  test("clients added by the operator have no registration access token to manage them with", async () => {
    await expect_invalid_token(await manage("GET", `${t.issuer}/register/${t.client.client_id}`, "anything"));
  });
});

describe("PUT /register/:client_id (RFC 7592 §2.2)", () => {
  const put = (info: ClientInformation, body: Record<string, unknown>, token = info.registration_access_token) => manage("PUT", info.registration_client_uri, token, body);

  test("replaces the metadata: 200 with the new registration; omitted members are removed", async () => {
    const info = await registered(t, { ...WEB_CLIENT, logo_uri: "https://rp.example.com/logo.png" });
    const response = await put(info, { client_id: info.client_id, redirect_uris: ["https://rp.example.com/new"], client_name: "Renamed" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as ClientInformation;
    expect(body).toMatchObject({
      client_id: info.client_id,
      client_name: "Renamed",
      redirect_uris: ["https://rp.example.com/new"],
      registration_access_token: info.registration_access_token,
    });
    expect(body.logo_uri).toBeUndefined();
    expect(body.client_secret).toBeUndefined();
    expect((await t.store.get_client(info.client_id))!.metadata.client_name).toBe("Renamed");
    const [event] = await t.store.list_audit_events({ client_id: info.client_id, type: "client_updated" });
    expect(event).toMatchObject({ outcome: "success", details: { client_name: "Renamed" } });
  });

  test("a removed redirect URI then gets the error page at /authorize; the new one works", async () => {
    const info = await registered(t);
    const updated = await put(info, { ...metadata_of(info), client_id: info.client_id, redirect_uris: ["https://rp.example.com/other"] });
    expect(updated.status).toBe(200);
    const page = await fetch(authorization_url(t, {}, info.client_id), { headers: { accept: "text/html" }, redirect: "manual" });
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    expect(await page.text()).toContain("This return address is not registered");
    const good = await fetch(authorization_url(t, { redirect_uri: "https://rp.example.com/other" }, info.client_id), { redirect: "manual" });
    expect(good.status).toBe(302);
    expect(good.headers.get("location")).toContain("/interaction/");
  });

  test("round-tripping the read response (minus server members) keeps the registration and the secret", async () => {
    const info = await registered(t);
    const response = await put(info, { ...metadata_of(info), client_id: info.client_id, client_secret: info.client_secret });
    expect(response.status).toBe(200);
    const { code, pkce } = await get_code(t, {}, { client_id: info.client_id });
    expect((await redeem(t, code, pkce!.verifier, { method: "basic", client_id: info.client_id, secret: info.client_secret! })).status).toBe(200);
  });

  test("a client_id in the body that differs from the client's is invalid_client_metadata", async () => {
    const info = await registered(t);
    expect(await expect_error(await put(info, { ...metadata_of(info), client_id: "someone-else" }), "invalid_client_metadata")).toContain("client_id");
  });

  test("a body without client_id is invalid_client_metadata", async () => {
    const info = await registered(t);
    await expect_error(await put(info, metadata_of(info)), "invalid_client_metadata");
  });

  test("a client_secret that is not the current one is invalid_client_metadata (no self-chosen secrets)", async () => {
    const info = await registered(t);
    expect(await expect_error(await put(info, { ...metadata_of(info), client_id: info.client_id, client_secret: "my-own-secret" }), "invalid_client_metadata")).toContain(
      "client_secret",
    );
  });

  test("server members in the body are refused", async () => {
    const info = await registered(t);
    await expect_error(await put(info, { ...metadata_of(info), client_id: info.client_id, registration_access_token: info.registration_access_token }), "invalid_client_metadata");
  });

  test("invalid metadata in an update is refused like at registration, and nothing changes", async () => {
    const info = await registered(t);
    await expect_error(await put(info, { client_id: info.client_id, redirect_uris: ["http://rp.example.com/cb"] }), "invalid_redirect_uri");
    expect((await t.store.get_client(info.client_id))!.metadata.redirect_uris).toEqual([REDIRECT_URI]);
  });

  test("a wrong token: 401 invalid_token and nothing changes", async () => {
    const info = await registered(t);
    await expect_invalid_token(await put(info, { client_id: info.client_id, redirect_uris: ["https://evil.example.com/cb"] }, "wrong-token"));
    expect((await t.store.get_client(info.client_id))!.metadata.redirect_uris).toEqual([REDIRECT_URI]);
  });

  test("moving to none drops the secret; moving back issues a new one, once", async () => {
    const info = await registered(t);
    const to_public = (await (await put(info, { client_id: info.client_id, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" })).json()) as ClientInformation;
    expect(to_public.client_secret).toBeUndefined();
    expect((await t.store.get_client(info.client_id))!.client_secret_hash).toBeNull();
    const back = (await (await put(info, { client_id: info.client_id, redirect_uris: [REDIRECT_URI] })).json()) as ClientInformation;
    expect(back.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(back.client_secret).not.toBe(info.client_secret);
    const { code, pkce } = await get_code(t, {}, { client_id: info.client_id });
    expect((await redeem(t, code, pkce!.verifier, { method: "basic", client_id: info.client_id, secret: back.client_secret! })).status).toBe(200);
  });
});

describe("DELETE /register/:client_id (RFC 7592 §2.3)", () => {
  test("204; the client, its tokens and its grants are gone; the old credentials are invalid_client", async () => {
    const info = await registered(t);
    const { code, pkce } = await get_code(t, {}, { client_id: info.client_id });
    const tokens = (await (await redeem(t, code, pkce!.verifier, { method: "basic", client_id: info.client_id, secret: info.client_secret! })).json()) as { access_token: string };
    expect(await t.store.get_grant(t.user.id, info.client_id)).not.toBeNull();

    const response = await manage("DELETE", info.registration_client_uri, info.registration_access_token);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(await t.store.get_client(info.client_id)).toBeNull();
    expect(await t.store.get_grant(t.user.id, info.client_id)).toBeNull();
    expect((await userinfo(t, tokens.access_token)).status).toBe(401);

    const token = await redeem(t, "any-code", "v".repeat(43), { method: "basic", client_id: info.client_id, secret: info.client_secret! });
    expect(token.status).toBe(401);
    expect(((await token.json()) as { error: string }).error).toBe("invalid_client");
    const [event] = await t.store.list_audit_events({ client_id: info.client_id, type: "client_deleted" });
    expect(event).toMatchObject({ outcome: "success" });
  });

  test("the registration access token dies with the client: a second DELETE or a GET is 401", async () => {
    const info = await registered(t);
    expect((await manage("DELETE", info.registration_client_uri, info.registration_access_token)).status).toBe(204);
    await expect_invalid_token(await manage("DELETE", info.registration_client_uri, info.registration_access_token));
    await expect_invalid_token(await manage("GET", info.registration_client_uri, info.registration_access_token));
  });

  test("a wrong token: 401 and the client stays", async () => {
    const info = await registered(t);
    await expect_invalid_token(await manage("DELETE", info.registration_client_uri, "wrong-token"));
    expect(await t.store.get_client(info.client_id)).not.toBeNull();
  });
});

describe("the consent page of a registered client", () => {
  test("shows its name, logo, and privacy policy, terms and home page links", async () => {
    const info = await registered(t, {
      ...WEB_CLIENT,
      client_name: "Photo Printer",
      logo_uri: "https://rp.example.com/logo.png",
      policy_uri: "https://rp.example.com/privacy",
      tos_uri: "https://rp.example.com/terms",
      client_uri: "https://rp.example.com/",
    });
    const { status, html } = await consent_page(t, info.client_id);
    expect(status).toBe(200);
    expect(html).toContain("<strong>Photo Printer</strong>");
    expect(html).toMatch(/<img class="logo" src="https:\/\/rp\.example\.com\/logo\.png"/);
    expect(html).toMatch(/<a href="https:\/\/rp\.example\.com\/privacy"[^>]*>Privacy policy<\/a>/);
    expect(html).toMatch(/<a href="https:\/\/rp\.example\.com\/terms"[^>]*>Terms of service<\/a>/);
    expect(html).toMatch(/<a href="https:\/\/rp\.example\.com\/"[^>]*>About Photo Printer<\/a>/);
  });

  test("a client name with markup is escaped", async () => {
    const info = await registered(t, { ...WEB_CLIENT, client_name: '<script>alert("x")</script>' });
    const { html } = await consent_page(t, info.client_id);
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
  });
});
