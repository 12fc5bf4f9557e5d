/**
 * Without mail (production without IDP_SMTP_URL) nothing offers a password reset or a
 * confirmation link: the sign-in pages have no "Forgot password?", the page itself says it is
 * not available (404), and the account page offers no confirmation link. What is missing is said:
 * a line where the link or the form would be, in the page's language, and one warning at start.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import type { LogLine } from "../../src/oidc/provider.ts";
import { translator } from "../../src/oidc/ui/catalogs.ts";
import { Browser, account_login, account_page } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
const logged: LogLine[] = [];
beforeAll(async () => {
  t = await start_provider({ config: { production: true }, log: (line) => void logged.push(line) });
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

test("mail off: one warning at start names what is unavailable and the fix", () => {
  const warnings = logged.filter((line) => line.msg === "mail is off");
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ level: "warn", reason: "production mode without IDP_SMTP_URL", fix: "set IDP_SMTP_URL and IDP_MAIL_FROM" });
  expect(warnings[0]!.unavailable).toEqual(expect.arrayContaining(["forgot password", "e-mail change"]));
});

test("mail off: the sign-in pages say why there is no “Forgot password?”, the account page why the address cannot be changed", async () => {
  const en = translator("en");
  const fr = translator("fr");
  // The account's own sign-in page, and an application's (in French).
  const own = await (await new Browser().get(`${t.url}/account/login`)).text();
  expect(own).toContain(en.t("login.forgot_unavailable"));
  const browser = new Browser();
  const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }));
  const login = await (await browser.get(start.headers.get("location")!, { "accept-language": "fr" })).text();
  expect(login).toContain(fr.t("login.forgot_unavailable").replace(/'/g, "&#39;"));
  expect(login).not.toContain("/password/forgot");

  await t.add_user({ username: "mover", email: "mover@example.com", email_verified: true });
  const signed_in = new Browser();
  expect((await account_login(t, signed_in, "mover", t.password)).status).toBe(303);
  const { html } = await account_page(t, signed_in);
  expect(html).toContain(en.t("account.email_change_unavailable"));
  expect(html).not.toContain('name="new_email"');
});
