/**
 * The device authorization grant (RFC 8628) end to end with openid-client v6 as the device: a
 * public client registered for the grant (through `idp clients add --grant-type` against the
 * compiled executable), the user's part driven over HTTP, the tokens validated by openid-client,
 * and the device code refused once used. Only HTTP and the E2eProvider interface are used, so it
 * runs unchanged against the compiled executable (tests/helpers/target.ts). The interval is the
 * default 5 seconds: one poll.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { start_target, type E2eProvider } from "../helpers/target.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

let t: E2eProvider;
beforeAll(async () => {
  t = await start_target();
}, 60_000);
afterAll(() => t.stop());

describe("openid-client, device authorization grant", () => {
  test("a TV gets tokens after the user enters its code, signs in and approves; the device code is then used", async () => {
    const { client: tv } = await t.add_client({ client_name: "Kitchen TV", token_endpoint_auth_method: "none", redirect_uris: [], grant_types: [DEVICE_GRANT, "refresh_token"] });
    const config = await client.discovery(new URL(t.issuer), tv.client_id, undefined, client.None(), { execute: [client.allowInsecureRequests] });
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${t.issuer}/device_authorization`);
    const started = await client.initiateDeviceAuthorization(config, { scope: "openid offline_access" });
    expect(started.interval).toBe(5);

    const browser = new Browser();
    const form = await (await browser.get(started.verification_uri)).text();
    let response = await browser.post(form_action(form)!, { csrf: hidden_field(form, "csrf")!, user_code: started.user_code });
    const login = await (await browser.get(response.headers.get("location")!)).text();
    response = await browser.post(form_action(login)!, { csrf: hidden_field(login, "csrf")!, username: "alice", password: t.password });
    const consent = await (await browser.get(response.headers.get("location")!)).text();
    expect(consent).toContain("Kitchen TV");
    expect(consent).toContain(started.user_code);
    response = await browser.post(form_action(consent)!, { csrf: hidden_field(consent, "csrf")!, decision: "allow" });
    expect(response.status).toBe(200);

    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    expect(tokens.claims()!.sub).toBe(t.user.id);
    expect(typeof tokens.refresh_token).toBe("string");
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, t.user.id);
    expect(userinfo.sub).toBe(t.user.id);

    const again = await fetch(`${t.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: tv.client_id }),
    });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe("invalid_grant");
  }, 30_000);
});
