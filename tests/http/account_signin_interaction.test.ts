/**
 * The account page's own sign-in keeps its two-factor step in an interaction that has no
 * application. Opening that interaction's login or consent page sends the browser to the account
 * sign-in page instead of an "Unknown application" error.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { Browser, account_login } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

/** Password accepted at /account/login for a user with an authenticator app: the two-factor page's interaction id. */
async function account_two_factor(browser: Browser): Promise<string> {
  const user = await t.add_user({ username: `fay-${crypto.randomUUID().slice(0, 8)}` });
  await t.store.update_user(user.id, { totp_secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", totp_enabled_at: t.clock.now() });
  const answer = await account_login(t, browser, user.username, t.password);
  const location = answer.headers.get("location")!;
  expect(location).toMatch(/\/interaction\/[^/]+\/two-factor$/);
  return /\/interaction\/([^/]+)\/two-factor$/.exec(location)![1]!;
}

test("the login page of an account sign-in interaction redirects to /account/login (GET 302, POST 303)", async () => {
  const browser = new Browser();
  const id = await account_two_factor(browser);
  const get = await browser.get(`${t.url}/interaction/${id}/login`);
  expect(get.status).toBe(302);
  expect(get.headers.get("location")).toBe(`${t.issuer}/account/login`);
  const post = await browser.post(`${t.url}/interaction/${id}/login`, { csrf: "x", username: "fay", password: t.password });
  expect(post.status).toBe(303);
  expect(post.headers.get("location")).toBe(`${t.issuer}/account/login`);
  // The two-factor step is still waiting.
  expect((await browser.get(`${t.url}/interaction/${id}/two-factor`)).status).toBe(200);
});

test("the consent page of an account sign-in interaction redirects to /account/login", async () => {
  const browser = new Browser();
  const id = await account_two_factor(browser);
  const get = await browser.get(`${t.url}/interaction/${id}/consent`);
  expect(get.status).toBe(302);
  expect(get.headers.get("location")).toBe(`${t.issuer}/account/login`);
});

test("another browser still gets the 'started in another browser' page", async () => {
  const id = await account_two_factor(new Browser());
  const other = new Browser();
  other.cookies.set("idp_interaction", "someone-else");
  const page = await other.get(`${t.url}/interaction/${id}/login`);
  expect(page.status).toBe(403);
  expect(await page.text()).toContain("started in another browser");
});
