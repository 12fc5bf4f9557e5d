/**
 * The admin console's sign-in providers page in Chromium, axe on each state: an administrator
 * (member of `admins`, TOTP through the store) adds GitLab from its preset (the secret stored
 * encrypted, never shown), sees the redirect URI, disables and enables it (the sign-in page's
 * button follows), opens the removal's confirmation page, is refused with a wrong password
 * (nothing changes), then removes it with the password: the identities linked through it go, the
 * local account stays. One server, one browser.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { open_secret } from "../../src/oidc/federation/secret_box.ts";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { axe, chromium_available, launch, overflow, PHONE, serious } from "../helpers/chromium.ts";
import { PASSWORD, start_provider, type TestProvider } from "../helpers/provider.ts";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const KEY = randomBytes(32).toString("base64url");

let t: TestProvider;
let browser: Browser;
let page: Page;

const run = (name: string, fn: () => Promise<void>) => (chromium_available ? test : test.skip)(name, fn, 60_000);

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider({ config: { federation: { secret_key: KEY } } });
  const root = await t.add_user({ username: "root", totp_secret: SECRET, totp_enabled_at: t.clock.now() - 120 });
  const admins = await t.store.create_group({ name: "admins", description: null });
  await t.store.add_group_member(admins.id, root.id, t.clock.now());
  browser = await launch();
  // bypassCSP: for axe's script only (tests/helpers/chromium.ts).
  page = await (await browser.newContext({ bypassCSP: true })).newPage();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await t.stop();
});

async function clean(name: string): Promise<void> {
  const problems = serious(await axe(page));
  expect(problems, `${name}: ${problems.join("; ")}`).toEqual([]);
}

/** The section of one provider, found by its heading. */
const section = (label: string) => page.locator("section", { has: page.getByRole("heading", { name: label, level: 2 }) });

run("adds a provider from a preset, disables and enables it, removes it with re-authentication", async () => {
  await page.goto(`${t.issuer}/admin/upstreams`);
  // Signed out: the account's sign-in, then back here.
  await page.locator("#username").fill("root");
  await page.locator("#password").fill(PASSWORD);
  await page.locator("#password").press("Enter");
  await page.locator("#code").fill(totp_code(SECRET, totp_step(t.clock.now())));
  await page.locator("#code").press("Enter");
  await page.waitForURL((url) => url.pathname === "/admin/upstreams");
  expect(await page.locator("h1").innerText()).toBe("Sign-in providers");
  expect(await page.getByRole("navigation", { name: "Admin console" }).getByRole("link", { name: "Sign-in providers" }).getAttribute("aria-current")).toBe("page");
  await clean("empty");

  // A bad name: the form says which field, keeps what was typed (never the secret), adds nothing.
  // The preset form (the generic OpenID Connect one has the same labels).
  const preset = section("Add a sign-in provider");
  await preset.getByLabel("Provider", { exact: true }).selectOption("gitlab");
  await preset.getByLabel("Name", { exact: true }).fill("Git Lab");
  await preset.getByLabel("Client ID (registered at the provider)").fill("gl-client");
  await preset.getByLabel("Client secret").fill("gl-secret-value");
  await preset.getByRole("button", { name: "Add provider" }).click();
  expect(await page.getByRole("alert").innerText()).toContain("name");
  expect(await preset.getByLabel("Client ID (registered at the provider)").inputValue()).toBe("gl-client");
  expect(await preset.getByLabel("Client secret").inputValue()).toBe("");
  expect(await t.store.list_upstreams()).toEqual([]);
  await clean("refused");

  await preset.getByLabel("Name", { exact: true }).fill("gitlab");
  await preset.getByLabel("Client secret").fill("gl-secret-value");
  await preset.getByRole("button", { name: "Add provider" }).click();
  await page.waitForURL((url) => url.searchParams.get("done") === "upstream_created");
  const gitlab = section("GitLab");
  expect(await gitlab.innerText()).toContain(`${t.issuer}/federation/gitlab/callback`);
  expect(await page.content()).not.toContain("gl-secret-value");
  const row = (await t.store.get_upstream("gitlab"))!;
  expect(row).toMatchObject({ kind: "oidc", issuer: "https://gitlab.com", client_id: "gl-client", enabled: true });
  expect(open_secret(KEY, "gitlab", row.client_secret_enc!)).toBe("gl-secret-value");
  await clean("added");
  // At phone width nothing runs off the side (the redirect URI is long).
  await page.setViewportSize(PHONE);
  expect(await overflow(page)).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 800 });

  await gitlab.getByRole("button", { name: "Disable" }).click();
  await page.waitForURL((url) => url.searchParams.get("done") === "upstream_disabled");
  expect((await t.store.get_upstream("gitlab"))!.enabled).toBe(false);
  expect(await (await fetch(`${t.url}/account/login`)).text()).not.toContain("/federation/gitlab/start");
  await section("GitLab").getByRole("button", { name: "Enable" }).click();
  await page.waitForURL((url) => url.searchParams.get("done") === "upstream_enabled");
  expect(await (await fetch(`${t.url}/account/login`)).text()).toContain("/federation/gitlab/start");

  // Removal is confirmed on its own page with the password: a wrong one is refused and nothing changes.
  const bob = await t.add_user({ username: "bob" });
  await t.store.link_identity({ upstream: "gitlab", subject: "gl-42", user_id: bob.id, email: null, ...identity_source((await t.store.get_upstream("gitlab"))!) });
  await section("GitLab").getByRole("link", { name: "Remove" }).click();
  expect(await page.locator("h1").innerText()).toBe("Remove the sign-in provider GitLab");
  await clean("removal confirmation");
  await page.getByLabel("Your password").fill("not my password");
  await page.getByRole("button", { name: "Remove" }).click();
  expect(await page.getByRole("alert").innerText()).toContain("password");
  expect(await t.store.get_upstream("gitlab")).not.toBeNull();
  await page.getByLabel("Your password").fill(PASSWORD);
  await page.getByRole("button", { name: "Remove" }).click();
  await page.waitForURL((url) => url.searchParams.get("done") === "upstream_deleted");
  expect(await t.store.get_upstream("gitlab")).toBeNull();
  expect(await t.store.get_identity("gitlab", "gl-42")).toBeNull();
  expect(await t.store.get_user_by_id(bob.id)).not.toBeNull();
  await clean("removed");

  const events = await t.store.list_audit_events({ type: "admin_console" });
  expect(events.filter((e) => e.outcome === "success").map((e) => e.details?.action)).toEqual(
    expect.arrayContaining(["upstream_created", "upstream_disabled", "upstream_enabled", "upstream_deleted"]),
  );
  expect(JSON.stringify(events)).not.toContain("gl-secret-value");
});
