/**
 * Single sign-on (OIDC Core §3.1.2.3: a signed-in End-User is not asked to authenticate again):
 * one login in a browser serves every client, each verified by its own openid-client.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { full_flow, relying_party } from "./authorize_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

async function new_rp(name: string) {
  const { client, secret } = await t.add_client({ client_name: name });
  return relying_party(t, client.client_id, secret!);
}

describe("SSO", () => {
  test("SSO second client without password", async () => {
    const [mail, calendar] = await Promise.all([new_rp("Mail"), new_rp("Calendar")]);
    const browser = new Browser();
    const first = await full_flow(mail, browser, { scope: "openid email" });
    expect(first.pages).toEqual(["login", "consent"]);
    t.clock.advance(5);
    // The session cookie signs the user in to the second client: its consent page, no password.
    const second = await full_flow(calendar, browser, { scope: "openid profile" });
    expect(second.pages).toEqual(["consent"]);
    expect(second.claims.sub).toBe(first.claims.sub);
    expect(second.claims.aud).toBe(calendar.clientMetadata().client_id);
    // Same authentication: same auth_time and amr, the time the password was typed.
    expect(second.claims.auth_time).toBe(first.claims.auth_time);
    expect(second.claims.amr).toEqual(first.claims.amr);
  });

  test("SSO: a first-party client after another client's login shows no page at all", async () => {
    const { client, secret } = await t.add_client({ client_name: "Portal", skip_consent: true });
    const portal = await relying_party(t, client.client_id, secret!);
    const browser = new Browser();
    await full_flow(await new_rp("Other"), browser);
    expect((await full_flow(portal, browser)).pages).toEqual([]);
  });

  test("SSO: another browser has no session", async () => {
    const rp = await new_rp("Solo");
    await full_flow(rp, new Browser());
    expect((await full_flow(rp, new Browser())).pages).toEqual(["login"]);
  });
});

describe("SSO after the user is deleted", () => {
  // /authorize reads the session without its user (sessions.ts current_session_row): it relies on
  // the store deleting a user's sessions with the user.
  test("a deleted user's browser session no longer signs anyone in", async () => {
    const rp = await new_rp("Deleted user");
    const user = await t.add_user({ username: "short-lived" });
    const browser = new Browser();
    expect((await full_flow(rp, browser, {}, { username: "short-lived" })).pages).toEqual(["login", "consent"]);
    expect(await t.store.delete_user(user.id)).toBe(true);
    await t.add_user({ username: "short-lived" });
    expect((await full_flow(rp, browser, {}, { username: "short-lived" })).pages).toEqual(["login", "consent"]);
  });
});
