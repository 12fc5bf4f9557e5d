/**
 * Sign-in through an upstream OpenID Connect provider: panva's oidc-provider on loopback, in a
 * real browser (Chromium). The application is a real relying party (openid-client) against our
 * provider: every successful sign-in ends with our ID Token for a local account. Covered: the
 * sign-in button, just-in-time accounts (groups into existing local groups only), auto-link by
 * verified e-mail, refused auto-link for an unverified e-mail, manual link and unlink from the
 * account page (never the last way in), login_hint=idp:NAME, a forged state, an unreachable
 * upstream.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import * as oidc from "openid-client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { axe, chromium_available, launch, serious } from "../helpers/chromium.ts";
import { authorization_request, start_landing_app, type LandingApp } from "../helpers/landing_app.ts";
import { start_oidc_upstream, upstream_sign_in, type OidcUpstream, type UpstreamAccount } from "../helpers/oidc_upstream.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";

const ACCOUNTS: Record<string, UpstreamAccount> = {
  "jit-user": { sub: "jit-user", email: "jit@upstream.example", email_verified: true, name: "Jit User", groups: ["Staff", "NotHere"] },
  "alice-up": { sub: "alice-up", email: "alice@example.com", email_verified: true, name: "Alice Upstream" },
  mallory: { sub: "mallory", email: "alice@example.com", email_verified: false, name: "Mallory" },
  "link-me": { sub: "link-me", email: "other@upstream.example", email_verified: true, name: "Link Me" },
};

let t: TestProvider;
let op: OidcUpstream;
let browser: Browser;
let landing: LandingApp;

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider({
    config: { outbound: { allow_http: true, allow: ["127.0.0.1"] }, federation: { secret_key: randomBytes(32).toString("base64url") } },
  });
  op = await start_oidc_upstream(ACCOUNTS, [`${t.issuer}/federation/op/callback`]);
  await t.store.create_upstream(
    new_upstream(t.config, {
      name: "op",
      display_name: "Upstream OP",
      issuer: op.issuer,
      client_id: op.client_id,
      client_secret: op.client_secret,
      auto_link: true,
      policy: "jit",
      group_map: { Staff: "Staff", NotHere: "NotHere" },
    }),
  );
  // An upstream nobody listens at.
  await t.store.create_upstream(new_upstream(t.config, { name: "down", display_name: "Down SSO", issuer: `http://127.0.0.1:${await free_port()}`, client_id: "x", enabled: true }));
  await t.store.create_group({ name: "Staff" });

  landing = await start_landing_app(t, "Fed App");
  browser = await launch();
}, 60_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  landing.stop();
  await op.stop();
  await t.stop();
});

/** An authorization request of the application, with the checks openid-client makes afterwards. */
const authorization = (extra: Record<string, string> = {}) => authorization_request(landing, "openid profile email groups", extra);

/** A new browser profile; `bypassCSP` only where axe-core must inject its script. */
async function fresh(options: { bypassCSP?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  return { context, page: await context.newPage() };
}

async function audit_types(): Promise<string[]> {
  return (await t.store.list_audit_events({ limit: 200 })).map((e) => `${e.type}:${e.outcome}:${JSON.stringify(e.details)}`);
}

describe.skipIf(!chromium_available)("sign-in through oidc-provider", () => {
  test("the sign-in page shows a button per enabled upstream", async () => {
    const { context, page } = await fresh({ bypassCSP: true });
    const request = await authorization();
    await page.goto(request.url);
    expect(await page.getByRole("link", { name: "Sign in with Upstream OP" }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "Sign in with Down SSO" }).count()).toBe(1);
    expect(serious(await axe(page))).toEqual([]);
    await context.close();
  });

  test("first sign-in creates a local account (jit), maps only existing groups, amr fed; its only way in cannot be unlinked", async () => {
    const { context, page } = await fresh();
    const request = await authorization();
    await page.goto(request.url);
    await page.getByRole("link", { name: "Sign in with Upstream OP" }).click();
    await upstream_sign_in(page, op.issuer, "jit-user");
    const claims = await request.finish(page);
    const identity = await t.store.get_identity("op", "jit-user");
    expect(identity).not.toBeNull();
    expect(claims.sub).toBe(identity!.user_id);
    expect(claims.amr).toEqual(["fed"]);
    expect(claims.email).toBe("jit@upstream.example");
    expect(claims.email_verified).toBe(true);
    expect(claims.groups).toEqual(["Staff"]);
    expect(await t.store.get_group_by_name("NotHere")).toBeNull();
    const user = (await t.store.get_user_by_id(identity!.user_id))!;
    expect(user.password_hash).toBe("");
    expect(user.name).toBe("Jit User");

    // The account page lists the linked identity; unlinking the only way in is refused.
    await page.goto(`${t.issuer}/account`);
    expect(await page.getByRole("heading", { name: "Other ways to sign in" }).count()).toBe(1);
    const checked = await fresh({ bypassCSP: true });
    await checked.context.addCookies(await context.cookies());
    await checked.page.goto(`${t.issuer}/account`);
    expect(serious(await axe(checked.page))).toEqual([]);
    await checked.context.close();
    await page.getByRole("button", { name: /Unlink/ }).click();
    expect(await page.locator("h1").innerText()).toContain("only way to sign in");
    expect(await t.store.get_identity("op", "jit-user")).not.toBeNull();

    // The second sign-in finds the same account.
    const again = await authorization({ prompt: "login" });
    await page.goto(again.url);
    await page.getByRole("link", { name: "Sign in with Upstream OP" }).click();
    const second = await again.finish(page);
    expect(second.sub).toBe(identity!.user_id);
    expect((await audit_types()).some((e) => e.startsWith("federation_account_created:success"))).toBe(true);
    await context.close();
  }, 30_000);

  test("auto-link by a verified e-mail signs in to the existing account", async () => {
    const { context, page } = await fresh();
    const request = await authorization({ login_hint: "idp:op" });
    // login_hint=idp:op goes straight to the upstream, no chooser.
    await page.goto(request.url);
    await upstream_sign_in(page, op.issuer, "alice-up");
    const claims = await request.finish(page);
    expect(claims.sub).toBe(t.user.id);
    expect(claims.amr).toEqual(["fed"]);
    expect((await t.store.get_identity("op", "alice-up"))?.user_id).toBe(t.user.id);
    await context.close();
  });

  test("an unverified e-mail of an existing account is not linked", async () => {
    const { context, page } = await fresh();
    const request = await authorization({ login_hint: "idp:op" });
    await page.goto(request.url);
    await upstream_sign_in(page, op.issuer, "mallory");
    await page.waitForURL((u) => u.href.startsWith(`${t.issuer}/federation/op/callback`));
    expect(await page.locator("h1").innerText()).toContain("Link your account first");
    expect(await t.store.get_identity("op", "mallory")).toBeNull();
    expect((await audit_types()).some((e) => e.startsWith("federation_link:failure") && e.includes("not verified"))).toBe(true);
    await context.close();
  });

  test("a signed-in user links an upstream account from the account page, then unlinks it", async () => {
    const bob = await t.add_user({ username: "bob", email: "bob@example.com", email_verified: true });
    const { context, page } = await fresh();
    await page.goto(`${t.issuer}/account/login`);
    await page.getByLabel("Username").fill("bob");
    await page.getByLabel("Password").fill(t.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${t.issuer}/account`);
    // Linking asks for the password again (account/identity_link.ts).
    await page.locator("#link_current_password").fill(t.password);
    await page.getByRole("button", { name: "Link Upstream OP" }).click();
    await upstream_sign_in(page, op.issuer, "link-me");
    await page.waitForURL(`${t.issuer}/account`);
    expect((await t.store.get_identity("op", "link-me"))?.user_id).toBe(bob.id);
    await page.getByRole("button", { name: /Unlink/ }).click();
    await page.waitForURL((u) => u.href.includes("done=identity_unlinked"));
    expect(await t.store.get_identity("op", "link-me")).toBeNull();
    expect((await audit_types()).some((e) => e.startsWith("federation_unlink:success"))).toBe(true);
    await context.close();
  });

  test("a forged state is refused and audited", async () => {
    const { context, page } = await fresh();
    const response = await page.goto(`${t.issuer}/federation/op/callback?code=abc&state=${oidc.randomState()}`);
    expect(response!.status()).toBe(403);
    expect(await page.locator("h1").innerText()).toContain("cannot be completed");
    expect((await audit_types()).some((e) => e.startsWith("federation_login:failure") && e.includes("unknown or expired state"))).toBe(true);
    await context.close();
  });

  test("an unreachable upstream gets a clear page and an audit entry", async () => {
    const { context, page } = await fresh();
    const request = await authorization();
    await page.goto(request.url);
    await page.getByRole("link", { name: "Sign in with Down SSO" }).click();
    expect(await page.locator("h1").innerText()).toContain("Down SSO is not available");
    expect((await audit_types()).some((e) => e.startsWith("federation_login:failure") && e.includes('"upstream":"down"'))).toBe(true);
    await context.close();
  });
});
