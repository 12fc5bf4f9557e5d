/**
 * Which local account an upstream sign-in reaches, and what it may change there, against a real
 * upstream (panva's oidc-provider on loopback) in Chromium, with a real SMTP server:
 *
 * - auto-link needs the local account's address verified here and the account active (an account
 *   holding an address it never proved does not receive its owner's upstream identity);
 * - addresses are matched by address_key (an IDN domain in A-labels, another letter case);
 * - a just-in-time account keeps the upstream's address only when the upstream verified it;
 * - upstream groups join local groups only through the upstream's `group_map`, and the
 *   memberships it added go when the upstream stops asserting them (never an administrator's);
 * - linking from the account page needs the password again (or, without one, a recent sign-in),
 *   is a POST form (no session token in a URL), and mails the owner a notice; the former
 *   GET /federation/NAME/start?link=CSRF links nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { REAUTH_SECONDS } from "../../src/http/endpoints/account/passkey_options.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";
import type { GroupRow } from "../../src/store/types.ts";
import { axe, chromium_available, launch, serious } from "../helpers/chromium.ts";
import { start_oidc_upstream, upstream_sign_in, type OidcUpstream, type UpstreamAccount } from "../helpers/oidc_upstream.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";

const ACCOUNTS: Record<string, UpstreamAccount> = {
  victim: { sub: "victim", email: "victim@corp.example", email_verified: true, name: "Victim" },
  "disabled-owner": { sub: "disabled-owner", email: "gone@corp.example", email_verified: true, name: "Gone" },
  "idn-ada": { sub: "idn-ada", email: "ADA@xn--bcher-kva.example", email_verified: true, name: "Ada" },
  "unverified-new": { sub: "unverified-new", email: "newbie@corp.example", email_verified: false, name: "Newbie" },
  grouped: { sub: "grouped", email: "grouped@corp.example", email_verified: true, name: "Grouped", groups: ["ops", "up-ops", "admins"] },
  "link-me": { sub: "link-me", email: "bob-at-upstream@corp.example", email_verified: true, name: "Bob Upstream" },
  "no-password": { sub: "no-password", email: "nopass@corp.example", email_verified: true, name: "No Password" },
};

let t: TestProvider;
let op: OidcUpstream;
let smtp: TestSmtp;
let browser: Browser;
const groups: Record<string, GroupRow> = {};

beforeAll(async () => {
  if (!chromium_available) return;
  smtp = await start_smtp();
  t = await start_provider({
    config: {
      outbound: { allow_http: true, allow: ["127.0.0.1"] },
      federation: { secret_key: randomBytes(32).toString("base64url") },
      smtp_url: smtp.url,
      mail_from: "idp@example.com",
    },
  });
  op = await start_oidc_upstream(ACCOUNTS, [`${t.issuer}/federation/op/callback`, `${t.issuer}/federation/plain/callback`]);
  const common = { issuer: op.issuer, client_id: op.client_id, client_secret: op.client_secret, auto_link: true, policy: "jit" as const };
  // "op" maps one upstream group; "plain" maps none (the default).
  await t.store.create_upstream(new_upstream(t.config, { ...common, name: "op", display_name: "Upstream OP", group_map: { "up-ops": "ops" } }));
  await t.store.create_upstream(new_upstream(t.config, { ...common, name: "plain", display_name: "Plain OP" }));
  for (const name of ["ops", "admins", "staff"]) groups[name] = await t.store.create_group({ name });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await op.stop();
  await t.stop();
  await smtp.stop();
});

async function fresh(options: { bypassCSP?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  return { context, page: await context.newPage() };
}

/** Signs in to the account page through `upstream` as the upstream account `login`. */
async function through(page: Page, upstream: string, login: string): Promise<void> {
  await page.goto(`${t.issuer}/federation/${upstream}/start`);
  await upstream_sign_in(page, op.issuer, login);
  await page.waitForURL((u) => u.href.startsWith(`${t.issuer}/federation/${upstream}/callback`) || u.href.startsWith(`${t.issuer}/account`));
}

async function audits(type: string): Promise<string[]> {
  return (await t.store.list_audit_events({ limit: 500 })).filter((e) => e.type === type).map((e) => `${e.outcome}:${e.user_id ?? ""}:${JSON.stringify(e.details)}`);
}

async function password_sign_in(page: Page, username: string): Promise<void> {
  await page.goto(`${t.issuer}/account/login`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(t.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${t.issuer}/account`);
}

describe.skipIf(!chromium_available)("which local account an upstream sign-in reaches", () => {
  test("auto-link refuses a local account whose address is not verified here, or that is not active", async () => {
    const squatter = await t.add_user({ username: "squatter", email: "victim@corp.example", email_verified: false });
    const disabled = await t.add_user({ username: "gone", email: "gone@corp.example", email_verified: true, status: "disabled" });
    for (const [login, reason] of [
      ["victim", "e-mail not verified here"],
      ["disabled-owner", "local account disabled"],
    ] as const) {
      const { context, page } = await fresh();
      await through(page, "op", login);
      expect(await page.locator("h1").innerText()).toContain("Link your account first");
      expect(await t.store.get_identity("op", login)).toBeNull();
      expect((await audits("federation_link")).some((e) => e.startsWith("failure") && e.includes(reason))).toBe(true);
      await context.close();
    }
    expect(await t.store.list_identities_for_user(squatter.id)).toEqual([]);
    expect(await t.store.list_identities_for_user(disabled.id)).toEqual([]);
  }, 30_000);

  test("addresses are matched by address_key: an IDN domain in A-labels and another case reach the account", async () => {
    const ada = await t.add_user({ username: "ada", email: "ada@bücher.example", email_verified: true });
    const { context, page } = await fresh();
    await through(page, "op", "idn-ada");
    await page.waitForURL(`${t.issuer}/account`);
    expect((await t.store.get_identity("op", "idn-ada"))?.user_id).toBe(ada.id);
    expect(await t.store.find_users_by_email("ADA@xn--bcher-kva.example")).toEqual([]);
    await context.close();
  }, 20_000);

  test("a just-in-time account keeps no address the upstream did not verify", async () => {
    const { context, page } = await fresh();
    await through(page, "op", "unverified-new");
    await page.waitForURL(`${t.issuer}/account`);
    const identity = (await t.store.get_identity("op", "unverified-new"))!;
    const user = (await t.store.get_user_by_id(identity.user_id))!;
    expect(user.email).toBeNull();
    expect(user.email_verified).toBe(false);
    expect(identity.email).toBeNull();
    // The address stays free for its owner's sign-up and password reset.
    expect(await t.store.find_users_by_email("newbie@corp.example")).toEqual([]);
    await context.close();
  }, 20_000);

  test("upstream groups join local groups only through group_map, and leave when no longer asserted", async () => {
    const first = await fresh();
    await through(first.page, "op", "grouped");
    await first.page.waitForURL(`${t.issuer}/account`);
    const user_id = (await t.store.get_identity("op", "grouped"))!.user_id;
    // "up-ops" is mapped to ops; "ops" and "admins" are names of local groups but not mapped.
    expect(await t.store.list_user_groups(user_id)).toEqual(["ops"]);
    await first.context.close();

    // An administrator's membership is never the upstream's to remove.
    await t.store.add_group_member(groups.staff!.id, user_id);
    ACCOUNTS.grouped!.groups = ["admins"];
    const second = await fresh();
    await through(second.page, "op", "grouped");
    await second.page.waitForURL(`${t.issuer}/account`);
    expect(await t.store.list_user_groups(user_id)).toEqual(["staff"]);
    const removed = await audits("group_member_removed");
    expect(removed.some((e) => e.includes(user_id) && e.includes('"group":"ops"') && e.includes('"upstream":"op"'))).toBe(true);
    await second.context.close();

    // An upstream without a mapping changes no membership, whatever it asserts.
    ACCOUNTS.grouped!.groups = ["up-ops", "ops", "admins", "staff"];
    await t.store.link_identity({ upstream: "plain", subject: "grouped", user_id, email: null, ...identity_source((await t.store.get_upstream("plain"))!) });
    const third = await fresh();
    await through(third.page, "plain", "grouped");
    await third.page.waitForURL(`${t.issuer}/account`);
    expect(await t.store.list_user_groups(user_id)).toEqual(["staff"]);
    await third.context.close();
  }, 40_000);
});

describe.skipIf(!chromium_available)("linking from the account page", () => {
  test("needs the password again, is a POST form, and mails a notice; the old GET link links nothing", async () => {
    const bob = await t.add_user({ username: "bob", email: "bob@example.com", email_verified: true });
    const { context, page } = await fresh();
    await password_sign_in(page, "bob");
    // No link on the page carries the session's form token.
    expect(await page.locator('a[href*="link="]').count()).toBe(0);
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();

    // The former GET with the token in the URL is refused and starts nothing.
    const old = await page.goto(`${t.issuer}/federation/op/start?link=${encodeURIComponent(csrf)}`);
    expect(old!.status()).toBe(400);
    expect(await page.locator("h1").innerText()).toContain("Link from your account page");

    // A wrong password links nothing and says why, next to the form.
    await page.goto(`${t.issuer}/account`);
    await page.locator("#link_current_password").fill("not-the-password");
    await page.getByRole("button", { name: "Link Upstream OP" }).click();
    expect(await page.locator("#identity-link-error").innerText()).toContain("not your password");
    expect((await audits("federation_link")).some((e) => e.startsWith(`failure:${bob.id}`) && e.includes("re-authentication failed"))).toBe(true);

    // The right password: on to the upstream (a page that navigates on), back linked.
    await page.locator("#link_current_password").fill(t.password);
    await page.getByRole("button", { name: "Link Upstream OP" }).click();
    await upstream_sign_in(page, op.issuer, "link-me");
    await page.waitForURL(`${t.issuer}/account`);
    expect((await t.store.get_identity("op", "link-me"))?.user_id).toBe(bob.id);
    const notice = await smtp.wait_for("bob@example.com", (m) => m.subject.includes("Upstream OP can now sign in"));
    expect(notice.text).toContain("bob-at-upstream@corp.example");
    expect(notice.text).toContain(`${t.issuer}/account`);

    // The page with the link form and its error passes axe.
    const checked = await fresh({ bypassCSP: true });
    await checked.context.addCookies(await context.cookies());
    await checked.page.goto(`${t.issuer}/account`);
    expect(serious(await axe(checked.page))).toEqual([]);
    await checked.page.locator("#link_current_password").fill("wrong");
    await checked.page.getByRole("button", { name: "Link Plain OP" }).click();
    await checked.page.locator("#identity-link-error").waitFor();
    expect(serious(await axe(checked.page))).toEqual([]);
    await checked.context.close();
    await context.close();
  }, 40_000);

  test("auto-link also mails the notice", async () => {
    const carol = await t.add_user({ username: "carol", email: "nopass@corp.example", email_verified: true });
    const { context, page } = await fresh();
    await through(page, "op", "no-password");
    await page.waitForURL(`${t.issuer}/account`);
    expect((await t.store.get_identity("op", "no-password"))?.user_id).toBe(carol.id);
    const notice = await smtp.wait_for("nopass@corp.example", (m) => m.subject.includes("can now sign in"));
    expect(notice.text).toContain("Upstream OP");
    await context.close();
  }, 20_000);

  test("without a password: allowed right after signing in, refused once the sign-in is old", async () => {
    // The just-in-time account of "unverified-new" has no password; "plain" is not linked yet.
    const { context, page } = await fresh();
    await through(page, "op", "unverified-new");
    await page.waitForURL(`${t.issuer}/account`);
    const user_id = (await t.store.get_identity("op", "unverified-new"))!.user_id;
    expect(await page.locator("#link_current_password").count()).toBe(0);
    await page.getByRole("button", { name: "Link Plain OP" }).click();
    // The upstream may still have this browser's session (no sign-in page then).
    await page.waitForURL((u) => u.href === `${t.issuer}/account` || u.href.startsWith(`${op.issuer}/interaction/`));
    if (page.url().startsWith(op.issuer)) await upstream_sign_in(page, op.issuer, "unverified-new");
    await page.waitForURL(`${t.issuer}/account`);
    expect((await t.store.get_identity("plain", "unverified-new"))?.user_id).toBe(user_id);
    await t.store.unlink_identity(user_id, "plain", "unverified-new");

    t.clock.advance(REAUTH_SECONDS + 60);
    await page.goto(`${t.issuer}/account`);
    await page.getByRole("button", { name: "Link Plain OP" }).click();
    expect(await page.locator("#identity-link-error").innerText()).toContain("sign out and sign in again");
    expect(await t.store.get_identity("plain", "unverified-new")).toBeNull();
    await context.close();
  }, 30_000);
});
