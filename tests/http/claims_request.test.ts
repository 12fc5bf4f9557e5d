/**
 * The claims request parameter (OIDC Core §5.5), with openid-client building the request and
 * checking the tokens: individual claims for the ID Token and for UserInfo, released even
 * outside the granted scopes after the user approved them on the consent page.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { drive, expect_error, full_flow, relying_party, start } from "./authorize_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

/** A fresh client (nothing granted yet) and its openid-client configuration. */
async function fresh_rp(metadata: Record<string, unknown> = {}): Promise<client.Configuration> {
  const { client: registered, secret } = await t.add_client({ client_name: "Claims App", ...metadata });
  return relying_party(t, registered.client_id, secret!);
}

const PROTOCOL = new Set(["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "amr", "sid", "acr"]);
const user_claims = (object: Record<string, unknown>) =>
  Object.keys(object)
    .filter((k) => !PROTOCOL.has(k))
    .sort();

describe("claims parameter", () => {
  test("claims parameter: essential email released in id_token without email scope", async () => {
    const rp = await fresh_rp();
    const claims = JSON.stringify({ id_token: { email: { essential: true } } });
    const flow = await full_flow(rp, new Browser(), { scope: "openid", claims });
    expect(flow.claims.email).toBe("alice@example.com");
    expect(user_claims(flow.claims)).toEqual(["email"]);
    // Only where it was asked for: UserInfo still gives the scopes' claims.
    expect(await client.fetchUserInfo(rp, flow.tokens.access_token, flow.claims.sub)).toEqual({ sub: t.user.id });
  });

  test("claims parameter: userinfo claims released at /userinfo, not in the ID Token", async () => {
    const rp = await fresh_rp();
    const claims = JSON.stringify({ userinfo: { name: null, phone_number: { essential: false }, email_verified: null } });
    const flow = await full_flow(rp, new Browser(), { claims });
    expect(user_claims(flow.claims)).toEqual([]);
    const info = await client.fetchUserInfo(rp, flow.tokens.access_token, flow.claims.sub);
    expect(info).toEqual({ sub: t.user.id, name: "Alice Liddell", phone_number: "+1 555 0100", email_verified: true });
  });

  test("claims parameter: the consent page lists requested claims in plain words, and the grant remembers them", async () => {
    const rp = await fresh_rp();
    const claims = JSON.stringify({ id_token: { email: { essential: true }, picture: null } });
    const browser = new Browser();
    const flow = await full_flow(rp, browser, { scope: "openid profile", claims });
    expect(flow.pages).toEqual(["login", "consent"]);
    expect(flow.claims.email).toBe("alice@example.com");
    // Signed in: prompt=consent shows the page again, to read it.
    const again = await start(rp, { scope: "openid profile", claims, prompt: "consent" });
    const redirect = await browser.get(again.url.href);
    const consent = await (await browser.get(redirect.headers.get("location")!)).text();
    expect(consent).toContain("See your basic profile");
    expect(consent).toContain("It also asks for these details:");
    expect(consent).toContain("Your email address (required by the application)");
    // picture is released by the profile scope: not listed again.
    expect(consent).not.toContain("Your profile picture");
    // Approved once: the same request later needs no consent.
    expect((await full_flow(rp, browser, { scope: "openid profile", claims })).pages).toEqual([]);
    // A claim not approved yet asks again; prompt=none says so.
    const more = await start(rp, { scope: "openid", prompt: "none", claims: JSON.stringify({ userinfo: { phone_number: null } }) });
    expect_error(t, (await drive(browser, more.url.href)).arrival, "consent_required", more.state);
  });

  test("claims parameter: a first-party (skip_consent) client gets requested claims without a consent page", async () => {
    const rp = await fresh_rp({ skip_consent: true });
    const flow = await full_flow(rp, new Browser(), { claims: JSON.stringify({ id_token: { given_name: null, family_name: { essential: true } } }) });
    expect(flow.pages).toEqual(["login"]);
    expect(flow.claims.given_name).toBe("Alice");
    expect(flow.claims.family_name).toBe("Liddell");
  });

  test("claims parameter: a claim the user has no value for is left out, essential or not", async () => {
    const rp = await fresh_rp({ skip_consent: true });
    const flow = await full_flow(rp, new Browser(), { claims: JSON.stringify({ id_token: { birthdate: { essential: true }, nickname: null } }) });
    expect(user_claims(flow.claims)).toEqual([]);
  });

  test("claims parameter: names that are not user claims are ignored (no other user field leaks)", async () => {
    const rp = await fresh_rp({ skip_consent: true });
    const names = ["password_hash", "totp_secret", "id", "username", "created_at", "__proto__", "constructor"];
    const claims = JSON.stringify({ id_token: Object.fromEntries(names.map((n) => [n, { essential: true }])), userinfo: Object.fromEntries(names.map((n) => [n, null])) });
    const flow = await full_flow(rp, new Browser(), { claims });
    expect(user_claims(flow.claims)).toEqual([]);
    expect(await client.fetchUserInfo(rp, flow.tokens.access_token, flow.claims.sub)).toEqual({ sub: t.user.id });
  });

  test("claims parameter: id_token.sub with a value names the expected user", async () => {
    const rp = await fresh_rp({ skip_consent: true });
    const browser = new Browser();
    await full_flow(rp, browser);
    const same = await full_flow(rp, browser, { prompt: "none", claims: JSON.stringify({ id_token: { sub: { value: t.user.id } } }) });
    expect(same.claims.sub).toBe(t.user.id);
    const other = await start(rp, { prompt: "none", claims: JSON.stringify({ id_token: { sub: { value: "someone-else" } } }) });
    expect_error(t, (await drive(browser, other.url.href)).arrival, "login_required", other.state);
  });

  test("claims parameter: malformed → invalid_request", async () => {
    const rp = await fresh_rp();
    for (const claims of [
      "{",
      "[]",
      '"email"',
      '{"id_token": []}',
      '{"id_token": {"email": true}}',
      '{"userinfo": {"email": {"essential": "yes"}}}',
      '{"id_token": {"email": {"values": "a"}}}',
    ]) {
      const started = await start(rp, { claims });
      expect_error(t, (await drive(new Browser(), started.url.href)).arrival, "invalid_request", started.state);
    }
  });

  test("claims_parameter_supported is advertised", async () => {
    const rp = await fresh_rp();
    expect(rp.serverMetadata().claims_parameter_supported).toBe(true);
  });
});
