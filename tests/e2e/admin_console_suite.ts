/**
 * The admin web console (/admin) in Chromium, axe on every page: an administrator (member of
 * `admins`, TOTP enrolled through the store) signs in with the account sign-in and a code,
 * creates a user, adds them to a group, registers an application on its own page (its secret
 * shown once works at /token) and edits it on the application's page, ends one of the user's sessions (its cookie stops working) and reads the audit log
 * filtered by that user. With `full` (SQLite): the refusals: a non-admin gets 403, an admin
 * without a second factor is refused, a form without its CSRF token is 403, a stale ETag shows
 * the "changed by someone else" message and changes nothing, a destructive action goes through
 * its confirmation page (a danger zone naming the user) and is refused without the password.
 * One server and one browser per file.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { create_registration_token } from "../../src/oidc/admin/registration_tokens.ts";
import { create_resource_server } from "../../src/oidc/admin/resources.ts";
import { create_app } from "../../src/oidc/admin/apps.ts";
import { add_service_account } from "../../src/oidc/admin/ldap_service_accounts.ts";
import { create_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import { sp_metadata } from "../helpers/saml.ts";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { axe, chromium_available, DESKTOP, launch, PHONE, overflow, serious } from "../helpers/chromium.ts";
import { Browser as HttpBrowser, account_login } from "../helpers/browser.ts";
import { PASSWORD, start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

/**
 * Where the walk leaves the console's screenshots (README "## Admin console"); viewport only, to
 * stay small. Written only with IDP_SCREENSHOTS=1 (the pages hold ports and dates that change
 * every run): `IDP_SCREENSHOTS=1 npx bun test tests/e2e/admin_console.test.ts` refreshes them.
 */
const SCREENSHOT_DIR = join(import.meta.dirname, "../../docs/screenshots");
const WRITE_SCREENSHOTS = process.env.IDP_SCREENSHOTS === "1";

/** Words (runs without a space) in the page's tables that are split across lines. */
function broken_words(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll("table.admin th, table.admin td")) {
      const style = getComputedStyle(cell);
      if (style.overflowWrap !== "normal" || style.wordBreak !== "normal") broken.push(`${cell.tagName}: ${style.overflowWrap} ${style.wordBreak}`);
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        for (const match of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  });
}

export type SuiteDatabase = { url: string; drop(): Promise<void> };

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

export function admin_console_suite(label: string, database: () => Promise<SuiteDatabase>, full: boolean): void {
  let db: SuiteDatabase;
  let t: TestProvider;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  // The full run has mail and invitations (a real SMTP server); the main walk runs without.
  let smtp: TestSmtp | null = null;

  beforeAll(async () => {
    if (!chromium_available) return;
    db = await database();
    if (full) smtp = await start_smtp();
    t = await start_provider({ database_url: db.url, config: smtp === null ? {} : { smtp_url: smtp.url, mail_from: "idp@example.com", signup: { mode: "invite" } } });
    const root = await t.add_user({ username: "root", name: "Root Admin", totp_secret: SECRET, totp_enabled_at: t.clock.now() - 120 });
    const admins = await t.store.create_group({ name: "admins", description: null });
    await t.store.add_group_member(admins.id, root.id, t.clock.now());
    browser = await launch();
    // bypassCSP: for axe's script only (tests/helpers/chromium.ts).
    context = await browser.newContext({ bypassCSP: true });
    page = await context.newPage();
  }, 90_000);

  afterAll(async () => {
    if (!chromium_available) return;
    await browser.close();
    await t.stop();
    await smtp?.stop();
    await db.drop();
  });

  async function clean(name: string): Promise<void> {
    const problems = serious(await axe(page));
    expect(problems, `${name}: ${problems.join("; ")}`).toEqual([]);
  }

  // A browser walk with argon2 hashing on a shared 2-core machine: more than bun's default 5 s.
  const run = (name: string, fn: () => Promise<void>, timeout = 30_000) => (chromium_available ? test : test.skip)(name, fn, timeout);

  async function expect_visible(locator: ReturnType<Page["locator"]>): Promise<void> {
    expect(await locator.isVisible()).toBe(true);
  }

  describe(`admin console (${label})`, () => {
    run("an admin signs in with a second factor and reaches the dashboard", async () => {
      await page.goto(`${t.issuer}/admin`);
      // Not signed in: the account's sign-in.
      expect(new URL(page.url()).pathname).toBe("/account/login");
      await page.getByLabel("Username").fill("root");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByLabel("6-digit code").fill(totp_code(SECRET, totp_step(t.clock.now())));
      await page.getByRole("button", { name: "Verify" }).click();
      // Back where the sign-in started (oidc/browser/return_path.ts), not the account page.
      await page.waitForURL((url) => url.pathname === "/admin");
      const response = await page.goto(`${t.issuer}/admin`);
      expect(response!.status()).toBe(200);
      expect(response!.headers()["cache-control"]).toBe("no-store");
      expect(response!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(await page.locator("h1").innerText()).toBe("Dashboard");
      expect(await page.locator(".stats").innerText()).toContain("Sign-ins, last 24 h");
      await clean("dashboard");
      await page.setViewportSize(PHONE);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    run("creates a user, a group, and adds the user to it", async () => {
      await page.goto(`${t.issuer}/admin/users`);
      await clean("users");
      // "New user" is a page of its own, reached from the users page.
      await page.getByRole("link", { name: "New user" }).click();
      expect(new URL(page.url()).pathname).toBe("/admin/users/new");
      await clean("new user");
      await page.getByLabel("Username", { exact: true }).fill("bob");
      await page.getByLabel("E-mail (optional)").fill("bob@example.com");
      await page.getByLabel("Initial password").fill("a long enough passphrase 42");
      await page.getByRole("button", { name: "Create user" }).click();
      expect(await page.getByRole("status").innerText()).toBe("The user was created.");
      const bob = (await t.store.get_user_by_username("bob"))!;
      expect(bob.email).toBe("bob@example.com");
      await clean("user");

      await page.goto(`${t.issuer}/admin/groups`);
      await page.getByLabel("Name", { exact: true }).fill("staff");
      await page.getByRole("button", { name: "Create group" }).click();
      expect(await page.getByRole("status").innerText()).toBe("The group was created.");
      await clean("groups");

      await page.goto(`${t.issuer}/admin/users/${bob.id}`);
      await page.getByLabel("Add to group").selectOption("staff");
      await page.getByRole("button", { name: "Add to group" }).click();
      expect(await page.getByRole("status").innerText()).toBe("The member was added.");
      expect(await t.store.list_user_groups(bob.id)).toEqual(["staff"]);
    });

    run("registers an application: its secret is shown once and works at /token", async () => {
      await page.goto(`${t.issuer}/admin/clients`);
      await clean("clients");
      await page.getByRole("link", { name: "New application" }).click();
      expect(await page.locator("h1").innerText()).toBe("New application");
      await clean("new application");
      const form = page.locator("form", { has: page.getByRole("button", { name: "Register" }) });
      await form.getByLabel("Name").fill("Console App");
      await form.getByLabel("Redirect URIs (one a line)").fill("https://console-app.example.com/callback");
      await form.getByLabel("client_credentials").check();
      await page.getByRole("button", { name: "Register" }).click();
      const client_id = await page.locator("#client-id").innerText();
      const secret = await page.locator("#client-secret").innerText();
      expect(secret.length).toBeGreaterThan(30);
      await clean("client secret");
      const stored = (await t.store.get_client(client_id))!;
      expect(stored.client_secret_hash).not.toContain(secret);
      const token = await fetch(`${t.url}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`${client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      expect(token.status).toBe(200);
      // Never shown again; the secret page leads to the application's page.
      await page.getByRole("link", { name: "Open the application's settings" }).click();
      expect(await page.locator("h1").innerText()).toBe("Application Console App");
      expect(await page.content()).not.toContain(secret);
    });

    run("ends one of a user's sessions: its cookie stops working", async () => {
      const bob_browser = new HttpBrowser();
      expect((await account_login(t, bob_browser, "bob", "a long enough passphrase 42")).status).toBe(303);
      expect((await bob_browser.get(`${t.url}/account`)).status).toBe(200);
      const bob = (await t.store.get_user_by_username("bob"))!;
      await page.goto(`${t.issuer}/admin/users/${bob.id}`);
      await page.getByRole("button", { name: /^End this session \(1:/ }).click();
      expect(await page.getByRole("status").innerText()).toBe("The session was ended.");
      const after = await bob_browser.get(`${t.url}/account`);
      expect(after.status).toBe(302);
      expect(after.headers.get("location")).toContain("/account/login");
    });

    run("reads the audit log filtered by the user, with who did it", async () => {
      const bob = (await t.store.get_user_by_username("bob"))!;
      await page.goto(`${t.issuer}/admin/audit`);
      await page.getByLabel("User (username or id)").fill("bob");
      await page.getByRole("button", { name: "Filter" }).click();
      const table = await page.locator("table").innerText();
      expect(table).toContain("Change in the admin console");
      expect(table).toContain("root (administrator)");
      expect(table).toContain("action: group_member_added");
      expect(table).toContain("action: session_ended");
      expect(table).not.toContain("client_registered");
      await clean("audit");
      const root = (await t.store.get_user_by_username("root"))!;
      const events = await t.store.list_audit_events({ user_id: bob.id, type: "admin_console" });
      expect(events.map((e) => e.details?.action)).toEqual(expect.arrayContaining(["user_created", "group_member_added", "session_ended"]));
      expect(events.every((e) => e.details?.actor === `user:${root.id}`)).toBe(true);
      await page.goto(`${t.issuer}/admin/keys`);
      await clean("keys");
    });

    if (!full) return;

    run("signed out: a GET remembers only its own console path to return to; a POST remembers nothing", async () => {
      const anonymous = new HttpBrowser();
      const get = await anonymous.get(`${t.url}/admin/audit`);
      expect(get.status).toBe(303);
      expect(get.headers.get("location")).toBe(`${t.issuer}/account/login`);
      expect(decodeURIComponent(anonymous.cookies.get("idp_return") ?? "")).toBe("/admin/audit");
      const post = new HttpBrowser();
      expect((await post.post(`${t.url}/admin/groups`, { action: "create", group: "x" })).status).toBe(303);
      expect(post.cookies.has("idp_return")).toBe(false);
      // A planted value outside the console is ignored: the sign-in goes to the account page.
      await t.add_user({ username: "dave" });
      post.cookies.set("idp_return", "//evil.example/admin");
      expect((await account_login(t, post, "dave", PASSWORD)).headers.get("location")).toBe(`${t.issuer}/account`);
    });

    run("invites someone by e-mail: an invited account and a link in their mail", async () => {
      await page.goto(`${t.issuer}/admin/users/new`);
      await page.getByLabel("Their e-mail").fill("erin@example.com");
      await page.getByLabel("Their name (optional)").fill("Erin Invited");
      await page.getByRole("button", { name: "Send invitation" }).click();
      expect(await page.getByRole("status").innerText()).toContain("The invitation was sent");
      const erin = (await t.store.find_users_by_email("erin@example.com"))[0]!;
      expect(erin.status).toBe("invited");
      const mail = await smtp!.wait_for("erin@example.com");
      expect(smtp!.link(mail, `${t.issuer}/`)).toContain("/invitation");
      await clean("invited user");
    });

    run("edits an application's access policy on its page: only an existing group is accepted, the refusal next to the field", async () => {
      await page.goto(`${t.issuer}/admin/clients?q=console`);
      await page.getByRole("link", { name: "Console App" }).click();
      expect(await page.locator("h1").innerText()).toBe("Application Console App");
      const allowed = page.getByLabel(/^Only members of these groups/);
      await allowed.fill("no-such-group");
      await page.getByRole("button", { name: "Save" }).click();
      expect(await page.getByRole("alert").innerText()).toContain('no group "no-such-group"');
      // The words next to the field, which says it is invalid; what was typed stays.
      expect(await allowed.getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#allowed_groups-error").innerText()).toContain('no group "no-such-group"');
      expect(await allowed.inputValue()).toBe("no-such-group");
      await clean("refused application settings");
      await page.setViewportSize(PHONE);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await clean("refused application settings at 390 px");
      await page.setViewportSize(DESKTOP);
      await allowed.fill("STAFF");
      await page.getByRole("button", { name: "Save" }).click();
      expect(await page.getByRole("status").innerText()).toBe("The application was saved.");
      const client = (await t.store.list_clients()).find((c) => c.metadata.client_name === "Console App")!;
      expect(client.metadata.allowed_groups).toEqual(["staff"]);
      expect(client.metadata.redirect_uris).toEqual(["https://console-app.example.com/callback"]);
      await clean("application with policy");
    });

    run("a new secret may keep the old one working for an hour; the page says until when", async () => {
      await page.goto(`${t.issuer}/admin/clients`);
      await page.getByRole("link", { name: "Console App" }).click();
      await page.getByRole("link", { name: "New secret" }).click();
      expect(await page.locator("h1").innerText()).toBe("A new secret for Console App");
      await clean("rotation confirmation");
      await page.getByLabel("For 1 hour").check();
      await page.getByLabel("Your password").fill(PASSWORD);
      await page.getByRole("button", { name: "Make a new secret" }).click();
      expect(await page.locator("main").innerText()).toContain("The previous secret keeps working until");
      await clean("new secret with a grace period");
      await page.getByRole("link", { name: "Back to the application" }).click();
      expect(await page.getByRole("region", { name: "Client secret" }).innerText()).toContain("Previous secret");
      await clean("application with a previous secret");
    });

    run("a user outside the admin group gets 403", async () => {
      const bob_browser = new HttpBrowser();
      await account_login(t, bob_browser, "bob", "a long enough passphrase 42");
      const answer = await bob_browser.get(`${t.url}/admin`);
      expect(answer.status).toBe(403);
      expect(await answer.text()).toContain("may not use the admin console");
      expect((await bob_browser.get(`${t.url}/admin/users`)).status).toBe(403);
    });

    run("an admin signed in without a second factor is refused", async () => {
      const carol = await t.add_user({ username: "carol" });
      const admins = (await t.store.get_group_by_name("admins"))!;
      await t.store.add_group_member(admins.id, carol.id, t.clock.now());
      const carol_browser = new HttpBrowser();
      expect((await account_login(t, carol_browser, "carol", PASSWORD)).status).toBe(303);
      const answer = await carol_browser.get(`${t.url}/admin/users`);
      expect(answer.status).toBe(403);
      expect(await answer.text()).toContain("needs a second factor");
      // The account page links to the console for members of the admin group only.
      expect(await (await carol_browser.get(`${t.url}/account`)).text()).toContain(`href="${t.issuer}/admin"`);
      await t.add_user({ username: "dan" });
      const dan_browser = new HttpBrowser();
      expect((await account_login(t, dan_browser, "dan", PASSWORD)).status).toBe(303);
      const dan_page = await (await dan_browser.get(`${t.url}/account`)).text();
      expect(dan_page).toContain("dan");
      expect(dan_page).not.toContain(`href="${t.issuer}/admin"`);
    });

    run("a form without its CSRF token is refused and changes nothing", async () => {
      const answer = await page.request.post(`${t.issuer}/admin/groups`, { form: { action: "create", group: "forged" }, maxRedirects: 0 });
      expect(answer.status()).toBe(403);
      expect(await t.store.get_group_by_name("forged")).toBeNull();
    });

    run("a stale form (someone else saved first) shows a message and changes nothing", async () => {
      const bob = (await t.store.get_user_by_username("bob"))!;
      await page.goto(`${t.issuer}/admin/users/${bob.id}`);
      await t.store.update_user(bob.id, { name: "Bob Elsewhere" });
      await page.getByLabel("Given name").fill("Robert");
      await page.getByRole("button", { name: "Save profile" }).click();
      expect(await page.getByRole("alert").innerText()).toContain("changed by someone else");
      const after = (await t.store.get_user_by_username("bob"))!;
      expect(after.name).toBe("Bob Elsewhere");
      expect(after.given_name).toBeNull();
      await clean("stale form");
    });

    run("the frame: a full-width header with the administrator and sign-out, a side bar that stays, a skip link", async () => {
      await page.setViewportSize(DESKTOP);
      await page.goto(`${t.issuer}/admin/users`);
      const header = (await page.locator("header.site").boundingBox())!;
      expect(header.x).toBe(0);
      expect(header.width).toBe(DESKTOP.width);
      const account = page.locator("header.site");
      expect(await account.getByRole("link", { name: "Your account" }).getAttribute("href")).toBe(`${t.issuer}/account`);
      expect(await account.innerText()).toContain("Signed in as root");
      await expect_visible(account.getByRole("button", { name: "Sign out" }));
      // The nav is a side bar left of the content, which takes the rest of the width.
      const nav = (await page.locator("nav.admin-nav").boundingBox())!;
      const heading = (await page.locator("h1").boundingBox())!;
      expect(nav.x + nav.width).toBeLessThanOrEqual(heading.x);
      expect(nav.y).toBeLessThan(heading.y + heading.height);
      expect(heading.width).toBeGreaterThan(900);
      // It stays in view at the bottom of a long page.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
      const stuck = (await page.locator("nav.admin-nav").boundingBox())!;
      expect(stuck.y).toBeGreaterThanOrEqual(0);
      expect(stuck.y + stuck.height).toBeLessThanOrEqual(DESKTOP.height);
      // Keyboard: the first Tab shows the skip link; Enter moves the focus past the nav to the heading.
      await page.goto(`${t.issuer}/admin/users`);
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.className)).toBe("skip-link");
      const skip = (await page.locator(".skip-link").boundingBox())!;
      expect(skip.y).toBeGreaterThanOrEqual(0);
      expect(await page.locator(".skip-link").evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe("none");
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("content");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.closest("nav") === null)).toBe(true);
      await clean("users at 1280 px");
      // On a phone the nav is a bar above the heading; nothing overflows sideways.
      await page.setViewportSize(PHONE);
      const top_nav = (await page.locator("nav.admin-nav").boundingBox())!;
      expect(top_nav.y + top_nav.height).toBeLessThanOrEqual((await page.locator("h1").boundingBox())!.y);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await clean("users at 390 px");
      await page.setViewportSize(DESKTOP);
    });

    run(
      "tables at 390 and 1280 px: no word broken across lines, the page never wider than the screen",
      async () => {
        await create_resource_server(
          t.store,
          { uri: "https://api.example.com/v1", scopes: ["read:docs", "write:docs"], access_token_format: "jwt", access_token_ttl: 900 },
          t.clock.now(),
        );
        await create_registration_token(t.store, { expires_in: 7 * 86_400, uses: 5 }, t.clock.now());
        await create_saml_service_provider(
          t.store,
          {
            metadata_xml: sp_metadata({ entity_id: "https://wiki.example.com/saml/metadata", acs: ["https://wiki.example.com/saml/acs"] }),
            name: "Team wiki",
            attributes: { employeeType: "groups" },
            sign: "both",
          },
          t.clock.now(),
        );
        await create_app(t.store, "grafana", { url: "https://grafana.example.com", rules: ["/admin=*+2fa"] }, t.clock.now());
        await add_service_account(t.store, { name: "nextcloud" }, t.clock.now());
        for (const path of ["/users", "/clients", "/groups", "/audit", "/keys", "/upstreams", "/saml", "/apps", "/ldap-accounts", "/resources", "/registration-tokens"]) {
          for (const size of [PHONE, DESKTOP]) {
            await page.setViewportSize(size);
            await page.goto(`${t.issuer}/admin${path}`);
            const where = `${path} at ${size.width} px`;
            expect({ where, overflow: await overflow(page) }).toEqual({ where, overflow: 0 });
            expect({ where, broken: await broken_words(page) }).toEqual({ where, broken: [] });
            for (const box of await page.locator(".table-wrap").all()) {
              const bounds = (await box.boundingBox())!;
              expect(bounds.x + bounds.width).toBeLessThanOrEqual(size.width);
            }
            await clean(where);
          }
        }
        // The audit table is wider than a phone: it scrolls in its own region, not the page.
        await page.setViewportSize(PHONE);
        await page.goto(`${t.issuer}/admin/audit`);
        expect(await page.locator(".table-wrap").evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
        expect(await overflow(page)).toBe(0);
        await page.setViewportSize(DESKTOP);
        // Eleven tables at two sizes, axe on each: more than 30 s on a shared machine.
      },
      120_000,
    );

    run(
      "screenshots of the console at 1280 and 390 px (docs/screenshots/), axe clean at both",
      async () => {
        if (WRITE_SCREENSHOTS) mkdirSync(SCREENSHOT_DIR, { recursive: true });
        const bob = (await t.store.get_user_by_username("bob"))!;
        // Made by the tables' walk above.
        const api = "https://api.example.com/v1";
        const [token] = await t.store.list_initial_access_tokens();
        const app = (await t.store.list_clients()).find((c) => c.metadata.client_name === "Console App")!;
        const pages = [
          ["dashboard", "/admin"],
          ["users", "/admin/users"],
          ["user", `/admin/users/${bob.id}`],
          ["new-user", "/admin/users/new"],
          ["applications", "/admin/clients"],
          ["application", `/admin/clients/${app.client_id}`],
          ["new-application", "/admin/clients/new"],
          ["groups", "/admin/groups"],
          ["sign-in-providers", "/admin/upstreams"],
          ["saml-applications", "/admin/saml"],
          ["saml-application", `/admin/saml/sp?entity_id=${encodeURIComponent("https://wiki.example.com/saml/metadata")}`],
          ["protected-applications", "/admin/apps"],
          ["protected-application", "/admin/apps/grafana"],
          ["ldap-service-accounts", "/admin/ldap-accounts"],
          ["ldap-password-rotation", "/admin/ldap-accounts/confirm?action=rotate&name=nextcloud"],
          ["resources", "/admin/resources"],
          ["resource-removal", `/admin/resources/confirm?action=remove&uri=${encodeURIComponent(api)}`],
          ["registration-tokens", "/admin/registration-tokens"],
          ["registration-token-revocation", `/admin/registration-tokens/confirm?action=revoke&id=${token!.id}`],
          ["keys", "/admin/keys"],
          ["key-rotation", "/admin/keys/confirm?action=rotate&alg=ES256"],
          ["audit", "/admin/audit?period=24h"],
          ["confirmation", `/admin/users/${bob.id}/confirm?action=delete`],
          ["settings", "/admin/settings"],
        ] as const;
        for (const [name, path] of pages) {
          for (const size of [DESKTOP, PHONE]) {
            await page.setViewportSize(size);
            await page.goto(`${t.issuer}${path}`);
            expect(await overflow(page)).toBeLessThanOrEqual(0);
            await clean(`${name} at ${size.width} px`);
            // Taken only to refresh the docs: the page's checks above are the test.
            if (WRITE_SCREENSHOTS) await page.screenshot({ fullPage: false, path: join(SCREENSHOT_DIR, `console-${name}-${size.width}.png`) });
          }
        }
        await page.setViewportSize(DESKTOP);
      },
      // Every console page at two sizes, axe on each: more than the walk's 30 s on a shared machine.
      300_000,
    );

    run("a registration token made with the form is shown once, on a page axe finds clean at 1280 and 390 px", async () => {
      await page.setViewportSize(DESKTOP);
      await page.goto(`${t.issuer}/admin/registration-tokens`);
      await page.getByLabel("in 7 days").check();
      await page.getByLabel("Registrations it may make").fill("3");
      await page.getByRole("button", { name: "Create token" }).click();
      expect(await page.locator("h1").innerText()).toBe("Registration token created");
      expect(await page.locator("#registration-token").innerText()).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await clean("registration token shown once at 1280 px");
      await page.setViewportSize(PHONE);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await clean("registration token shown once at 390 px");
      await page.setViewportSize(DESKTOP);
    });

    run("a destructive action goes through its confirmation page: refused with a wrong password, runs with the right one", async () => {
      const bob = (await t.store.get_user_by_username("bob"))!;
      await page.goto(`${t.issuer}/admin/users/${bob.id}`);
      // No password field on the user's page: the destructive actions are links to their confirmation.
      expect(await page.locator('input[type="password"]').count()).toBe(0);
      await page.getByRole("link", { name: "Delete the user" }).click();
      expect(await page.locator("h1").innerText()).toBe("Delete the user bob");
      expect(await page.getByRole("region", { name: "Danger zone" }).innerText()).toContain("is deleted with its sessions, grants and tokens");
      await clean("confirmation");
      await page.setViewportSize(PHONE);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByLabel("Your password").fill("not my password");
      await page.getByRole("button", { name: "Delete the user" }).click();
      expect(await page.getByRole("alert").innerText()).toContain("not right");
      expect(await t.store.get_user_by_id(bob.id)).not.toBeNull();
      await clean("refused confirmation");
      await page.getByLabel("Your password").fill(PASSWORD);
      await page.getByRole("button", { name: "Delete the user" }).click();
      expect(await page.getByRole("status").innerText()).toBe("The user was deleted.");
      expect(await t.store.get_user_by_id(bob.id)).toBeNull();
    });

    run("the admin group says why it cannot be deleted; deleting oneself is refused on the confirmation page", async () => {
      await page.goto(`${t.issuer}/admin/groups`);
      expect(await page.locator("section", { has: page.getByRole("heading", { name: "admins" }) }).innerText()).toContain("it cannot be deleted while it is configured");
      const root = (await t.store.get_user_by_username("root"))!;
      await page.goto(`${t.issuer}/admin/users/${root.id}`);
      await page.getByRole("link", { name: "Delete the user" }).click();
      expect(await page.getByRole("alert").innerText()).toBe("You cannot delete your own account: another administrator must do it.");
      expect(await page.getByRole("button", { name: "Delete the user" }).count()).toBe(0);
      await clean("refused on oneself");
    });

    run("signs out from the console's header: the signed-out page, then the console asks for a sign-in", async () => {
      await page.goto(`${t.issuer}/admin/audit`);
      await page.locator("header.site").getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((url) => url.pathname === "/admin/sign-out");
      expect(await page.locator("h1").innerText()).toBe("You are signed out");
      await clean("signed out");
      await page.goto(`${t.issuer}/admin`);
      expect(new URL(page.url()).pathname).toBe("/account/login");
    });
  });
}
