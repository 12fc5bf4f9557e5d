/**
 * default_acr_values (OIDC Registration §2): a client's registered defaults stand in for
 * acr_values when the authorization request has none; a request's own acr_values win.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { decodeJwt } from "jose";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { Browser, authorize, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce, redeem } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, expect_error, register, registered } from "./register_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
});
afterAll(() => t.stop());

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

async function mfa_client() {
  const { client, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", default_acr_values: ["mfa"] });
  return { client_id: client.client_id, secret: secret! };
}

test('a client with default_acr_values ["mfa"] forces the two-factor step; acr mfa in the ID Token', async () => {
  const user = await t.add_user({ username: "dana" });
  await t.store.update_user(user.id, { totp_secret: SECRET, totp_enabled_at: t.clock.now() });
  const { client_id, secret } = await mfa_client();
  const p = pkce();
  const url = authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }, client_id);
  const { callback, steps } = await authorize(new Browser(), url, {
    username: "dana",
    password: t.password,
    callback_prefix: REDIRECT_URI,
    second_factor: () => totp_code(SECRET, totp_step(t.clock.now())),
  });
  expect(steps).toEqual(["login", "two-factor", "consent"]);
  const body = (await (await redeem(t, callback.searchParams.get("code")!, p.verifier, { method: "basic", client_id, secret })).json()) as { id_token: string };
  expect(decodeJwt(body.id_token)).toMatchObject({ acr: "mfa", amr: ["pwd", "otp"] });
});

test('default_acr_values ["mfa"] stops a user without an authenticator app; acr_values=pwd in the request wins', async () => {
  await t.add_user({ username: "eli" });
  const { client_id } = await mfa_client();
  const browser = new Browser();
  const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }, client_id));
  const html = await (await browser.get(new URL(start.headers.get("location")!, t.url).href)).text();
  const answer = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "eli", password: t.password });
  expect(answer.status).toBe(403);
  expect(await answer.text()).toContain("This application requires two-step verification");

  const url = authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256", acr_values: "pwd" }, client_id);
  const { steps } = await authorize(new Browser(), url, { username: "eli", password: t.password, callback_prefix: REDIRECT_URI });
  expect(steps).toEqual(["login", "consent"]);
});

test("default_acr_values can be registered with advertised values; others are invalid_client_metadata", async () => {
  const info = await registered(t, { ...WEB_CLIENT, default_acr_values: ["mfa", "mfa"] });
  expect(info.default_acr_values).toEqual(["mfa"]);
  expect((await t.store.get_client(info.client_id))!.metadata.default_acr_values).toEqual(["mfa"]);
  const refused = await expect_error(await register(t, { ...WEB_CLIENT, default_acr_values: ["urn:example:loa:3"] }), "invalid_client_metadata");
  expect(refused).toContain("default_acr_values");
});
