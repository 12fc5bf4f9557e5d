/**
 * The console's frame over plain HTTP: every console page has the skip link, the header with the
 * signed-in administrator, "Your account" and the "Sign out" form, and the navigation. The
 * sign-out (POST /admin/sign-out) needs the console's form token, then ends the session the way
 * the normal logout does (its `logout` audit event, its cookie removed) and shows the signed-out page.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { UserRow } from "../../src/store/types.ts";
import { console_browser, console_page } from "../helpers/admin_console.ts";
import { hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let root: UserRow;

beforeAll(async () => {
  t = await start_provider();
  root = await t.add_user({ username: "root" });
  const admins = await t.store.create_group({ name: "admins", description: null });
  await t.store.add_group_member(admins.id, root.id, t.clock.now());
});

afterAll(async () => {
  await t.stop();
});

const header = (html: string) => /<header class="site">[\s\S]*?<\/header>/.exec(html)?.[0] ?? "";

describe("admin console: the frame", () => {
  test("every console page has the skip link, the header with the administrator, their account and the sign-out, and the nav", async () => {
    const browser = await console_browser(t, root);
    const bob = await t.add_user({ username: "bob" });
    // The sign-out form carries the console's form token, the one of its other forms.
    const groups = (await console_page(browser, `${t.url}/admin/groups`)).html;
    const token = hidden_field(groups.replace(header(groups), ""), "csrf");
    for (const path of ["", "/users", `/users/${bob.id}`, "/groups", "/clients", "/upstreams", "/audit", "/keys", `/users/${bob.id}/confirm?action=delete`]) {
      const { html } = await console_page(browser, `${t.url}/admin${path}`);
      expect({ path, skip: html.includes('<a class="skip-link" href="#content">Skip to content</a>') }).toEqual({ path, skip: true });
      expect({ path, target: html.includes('<h1 id="content" tabindex="-1">') }).toEqual({ path, target: true });
      const bar = header(html);
      expect(bar).toContain("Signed in as <strong>root</strong>");
      expect(bar).toContain(`<a href="${t.issuer}/account">Your account</a>`);
      expect(bar).toContain(`<form method="post" action="${t.issuer}/admin/sign-out"`);
      expect(hidden_field(bar, "csrf")).toBe(token);
      expect(html).toContain('<nav class="admin-nav"');
    }
    // Outside the console: no console header.
    const account = await (await browser.get(`${t.url}/account`)).text();
    expect(account).not.toContain("skip-link");
    expect(header(account)).not.toContain("sign-out");
  });

  test("a sign-out without the console's token is refused and the session goes on", async () => {
    const browser = await console_browser(t, root);
    const before = (await t.store.list_audit_events({ type: "logout" })).length;
    expect((await browser.post(`${t.url}/admin/sign-out`, {})).status).toBe(403);
    expect((await browser.post(`${t.url}/admin/sign-out`, { csrf: "forged" })).status).toBe(403);
    await console_page(browser, `${t.url}/admin`);
    expect((await t.store.list_audit_events({ type: "logout" })).length).toBe(before);
  });

  test("the sign-out ends the session like the normal logout and shows the signed-out page", async () => {
    const browser = await console_browser(t, root);
    const { html } = await console_page(browser, `${t.url}/admin/users`);
    const answer = await browser.post(`${t.url}/admin/sign-out`, { csrf: hidden_field(header(html), "csrf")! });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const page = await answer.text();
    expect(page).toContain("You are signed out");
    expect(answer.headers.get("set-cookie")).toContain("Max-Age=0");
    const [logout] = await t.store.list_audit_events({ type: "logout", user_id: root.id, limit: 1 });
    expect(logout?.details).toMatchObject({ initiator: "user" });
    // The console now asks for a sign-in again; the old cookie no longer works.
    const again = await browser.get(`${t.url}/admin`);
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe(`${t.issuer}/account/login`);
    // Without a session there is nothing to end: the same page.
    expect((await browser.post(`${t.url}/admin/sign-out`, {})).status).toBe(200);
  });
});
