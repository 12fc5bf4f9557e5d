/**
 * Without mail (production without IDP_SMTP_URL) nothing offers a password reset or a
 * confirmation link: the sign-in pages have no "Forgot password?", the page itself says it is
 * not available (404), and the account page offers no confirmation link.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Browser, account_login, account_page } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { production: true } });
});
afterAll(() => t.stop());

test("mail off: no forgot-password link, the page is 404, no confirmation link on the account page", async () => {
  expect(t.provider.mail.enabled).toBe(false);
  const browser = new Browser();
  const login = await (await browser.get(`${t.url}/account/login`)).text();
  expect(login).toContain("<h1>Sign in</h1>");
  expect(login).not.toContain("Forgot password?");
  const forgot = await browser.get(`${t.url}/password/forgot`);
  expect(forgot.status).toBe(404);
  expect(await forgot.text()).toContain("Password reset is not available");

  await t.add_user({ username: "unconfirmed", email: "unconfirmed@example.com", email_verified: false });
  expect((await account_login(t, browser, "unconfirmed", t.password)).status).toBe(303);
  const { html } = await account_page(t, browser);
  expect(html).toContain("unconfirmed@example.com (not verified)");
  expect(html).not.toContain("Send a confirmation link");
});
