/**
 * Sign-up, invitations and e-mail change in Chromium, with a real SMTP server receiving the
 * mail (tests/helpers/smtp.ts) and a real relying party (openid-client) checking the ID Token:
 *
 * - sign-up from an application's sign-in page → verification mail → confirm → sign in → the
 *   RP's ID Token says email_verified: true; before the address is confirmed, sign-in is refused;
 * - refusals name the field and keep the other input (domain not allowed, password policy,
 *   username taken) and create nothing;
 * - an address that already has an account is not revealed: same page, the owner gets a mail;
 * - `idp users invite` (the CLI, against the same database) → invitation mail → choose a
 *   password → signed in; the link works once; inviting again voids the older link; CLI errors;
 * - e-mail change on the account page → notice to the old address, link to the new one →
 *   confirm → the RP's ID Token has the new address; used and forged links change nothing;
 * - axe (WCAG 2 A/AA) finds no serious violation on each new page.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { run_cli } from "../../src/cli/index.ts";
import { axe, chromium_available, launch, serious } from "../helpers/chromium.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_rp, type RelyingParty } from "../helpers/rp.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

let t: TestProvider;
let rp: RelyingParty;
let browser: Browser;
let smtp: TestSmtp;
let dir: string;

const STRONG = "lunar walrus teapot 42";
const ALLOWED = ["example.com", "bücher.example"];

beforeAll(async () => {
  if (!chromium_available) return;
  smtp = await start_smtp();
  // A database file, so the CLI (idp users invite) and the server share it.
  dir = mkdtempSync(join(tmpdir(), "idp-signup-"));
  t = await start_provider({
    database_url: `sqlite:${join(dir, "idp.sqlite")}`,
    config: { smtp_url: smtp.url, mail_from: "idp@example.com", signup: { mode: "open", domains: ALLOWED } },
  });
  const port = await free_port();
  const { client, secret } = await t.add_client({
    client_name: "Signup App",
    redirect_uris: [`http://127.0.0.1:${port}/callback`],
    token_endpoint_auth_method: "client_secret_basic",
  });
  rp = await start_rp(t.issuer, port, client.client_id, secret);
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  rp.stop();
  await t.stop();
  await smtp.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function fresh_page(options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext(options.bypassCSP ? { bypassCSP: true, reducedMotion: "reduce" } : {});
  return context.newPage();
}

async function fill_signup(page: Page, fields: { username: string; email: string; name?: string; password: string; confirm?: string }): Promise<void> {
  await page.getByLabel("Username", { exact: true }).fill(fields.username);
  await page.getByLabel("Email", { exact: true }).fill(fields.email);
  await page.locator("#name").fill(fields.name ?? "");
  await page.getByLabel("Password", { exact: true }).fill(fields.password);
  await page.getByLabel("Password again", { exact: true }).fill(fields.confirm ?? fields.password);
  await page.getByRole("button", { name: "Create account" }).click();
}

async function sign_in_form(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username", { exact: true }).fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function rp_claims(page: Page): Promise<Record<string, unknown>> {
  await page.waitForURL((url) => url.href.startsWith(rp.callback));
  if ((await page.locator("#error").count()) > 0) throw new Error(await page.locator("#error").innerText());
  return JSON.parse(await page.locator("#claims").innerText()) as Record<string, unknown>;
}

/** The RP's sign-in, through consent when it is asked; the ID Token's claims. */
async function rp_sign_in(page: Page, username: string, password: string): Promise<Record<string, unknown>> {
  await page.goto(`${rp.url}/login`);
  await sign_in_form(page, username, password);
  await page.waitForURL((url) => url.pathname.endsWith("/consent") || url.href.startsWith(rp.callback));
  if (page.url().endsWith("/consent")) await page.getByRole("button", { name: "Allow" }).click();
  return rp_claims(page);
}

/** `idp users invite …` in-process, against the server's database and settings. */
async function cli(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await run_cli(argv, {
    stdin: "",
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    env: {
      DATABASE_URL: `sqlite:${join(dir, "idp.sqlite")}`,
      IDP_ISSUER: t.issuer,
      IDP_SMTP_URL: smtp.url,
      IDP_MAIL_FROM: "idp@example.com",
      IDP_SIGNUP: "open",
      IDP_ARGON2_MEMORY_KIB: "1024",
      IDP_ARGON2_TIME_COST: "1",
      IDP_SIGNING_ALGS: "RS256,ES256",
      ...env,
    },
  });
  return { code, stdout, stderr };
}

async function expect_no_serious(page: Page, name: string): Promise<void> {
  expect({ page: name, problems: serious(await axe(page)) }).toEqual({ page: name, problems: [] });
}

describe.skipIf(!chromium_available)("sign-up, invitations and e-mail change (Chromium, real SMTP, openid-client RP)", () => {
  test("sign-up inside an authorization: check your mail, refused until verified, verify, sign in, ID token email_verified", async () => {
    const page = await fresh_page();
    await page.goto(`${rp.url}/login`);
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.waitForURL(/\/signup\?interaction=/);
    expect(await page.locator(".lead").innerText()).toContain("Signup App");
    await fill_signup(page, { username: "sam", email: "Sam@Example.COM", name: "Sam Signup", password: STRONG });
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Check your mail");
    expect(await page.getByRole("status").innerText()).toContain("Sam@example.com");
    const user = await t.store.get_user_by_username("sam");
    expect(user).toMatchObject({ status: "unverified", email: "Sam@example.com", email_verified: false, name: "Sam Signup" });
    const audit = await t.store.list_audit_events({ user_id: user!.id });
    expect(audit.map((e) => [e.type, e.outcome])).toContainEqual(["signup", "success"]);

    // Not verified yet: the password is right, but the sign-in says what to do.
    await page.getByRole("link", { name: "Sign in" }).click();
    await sign_in_form(page, "sam", STRONG);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Confirm your e-mail address first");

    const mail = await smtp.wait_for("sam@example.com", (m) => m.subject.includes("Confirm your e-mail"));
    const link = smtp.link(mail, `${t.issuer}/email/verify`);
    expect(new URL(link).searchParams.get("interaction")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.goto(link);
    await page.getByRole("button", { name: "Confirm my address" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Your e-mail address is confirmed");
    // Back to the application's sign-in, then its answer.
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL(/\/interaction\/.+\/login$/);
    await sign_in_form(page, "sam", STRONG);
    await page.waitForURL(/\/consent$/);
    await page.getByRole("button", { name: "Allow" }).click();
    const claims = await rp_claims(page);
    expect(claims).toMatchObject({ sub: user!.id, email: "Sam@example.com", email_verified: true, name: "Sam Signup" });
    await page.context().close();
  }, 60_000);

  test("refusals name the field, keep the other input and create nothing", async () => {
    const page = await fresh_page();
    await page.goto(`${t.issuer}/signup`);
    const cases: { fields: Parameters<typeof fill_signup>[1]; field: string; says: string }[] = [
      { fields: { username: "eve", email: "eve@evil.test", password: STRONG }, field: "email", says: "example.com or bücher.example" },
      { fields: { username: "eve", email: "eve@sub.example.com", password: STRONG }, field: "email", says: "E-mail address" },
      { fields: { username: "eve", email: "eve@localhost", password: STRONG }, field: "email", says: "is not a domain name" },
      { fields: { username: "eve", email: "eve@example.com", password: "short" }, field: "password", says: "too short" },
      { fields: { username: "eve", email: "eve@example.com", password: "password123" }, field: "password", says: "common" },
      { fields: { username: "evelyn", email: "eve@example.com", password: "evelyn-and-the-walrus" }, field: "password", says: "username" },
      { fields: { username: "eve", email: "eve@example.com", password: STRONG, confirm: `${STRONG}!` }, field: "confirm_password", says: "Password again" },
      { fields: { username: "alice", email: "eve@example.com", password: STRONG }, field: "username", says: "already taken" },
      { fields: { username: "eve smith", email: "eve@example.com", password: STRONG }, field: "username", says: "Username" },
    ];
    for (const { fields, field, says } of cases) {
      await fill_signup(page, fields);
      expect(await page.getByRole("alert").innerText()).toContain(says);
      expect(await page.locator(`#${field}`).getAttribute("aria-invalid")).toBe("true");
      // The other input is kept (never the passwords).
      expect(await page.getByLabel("Username", { exact: true }).inputValue()).toBe(fields.username);
      expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe(fields.email);
      expect(await page.getByLabel("Password", { exact: true }).inputValue()).toBe("");
    }
    for (const name of ["eve", "evelyn", "eve smith"]) expect(await t.store.get_user_by_username(name)).toBeNull();
    // An IDN domain on the list, typed as A-labels, is the same domain.
    await fill_signup(page, { username: "jonas", email: "jonas@xn--bcher-kva.example", password: STRONG });
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Check your mail");
    expect((await t.store.get_user_by_username("jonas"))?.email).toBe("jonas@bücher.example");
    await page.context().close();
  }, 60_000);

  test("an address that already has an account is not revealed: same page, and its owner gets a mail", async () => {
    const page = await fresh_page();
    await page.goto(`${t.issuer}/signup`);
    await fill_signup(page, { username: "mallory", email: "ALICE@example.com", password: STRONG });
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Check your mail");
    expect(await page.getByRole("status").innerText()).toBe("We sent a message to ALICE@example.com.");
    expect(await t.store.get_user_by_username("mallory")).toBeNull();
    const notice = await smtp.wait_for("alice@example.com", (m) => m.subject.startsWith("You already have an account"));
    expect(notice.text).toContain("your username is alice");
    expect(notice.text).toContain(`${t.issuer}/account/login`);
    // No verification link went to the owner: nothing in the mail can take over the account.
    expect(notice.text).not.toContain("token=");
    await page.context().close();
  }, 60_000);

  test("idp users invite: mail, choose a password, signed in; the link works once; CLI errors", async () => {
    const invited = await cli(["users", "invite", "nora@example.com", "--name", "Nora Newcomer", "--json"]);
    expect(invited.stderr).toBe("");
    expect(invited.code).toBe(0);
    const out = JSON.parse(invited.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ username: "nora", status: "invited", email: "nora@example.com", email_verified: false, invitation: { resent: false } });
    expect(out).not.toHaveProperty("password_hash");
    const mail = await smtp.wait_for("nora@example.com", (m) => m.subject.startsWith("You are invited"));
    const link = smtp.link(mail, `${t.issuer}/invitation`);

    // Signing in before accepting is refused (no password), and says what to do.
    const page = await fresh_page();
    await page.goto(link);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Welcome, Nora Newcomer");
    expect(await page.getByLabel("Username", { exact: true }).inputValue()).toBe("nora");
    await page.getByLabel("Username", { exact: true }).fill("nora.n");
    await page.getByLabel("Password", { exact: true }).fill("nora.n-password");
    await page.getByLabel("Password again", { exact: true }).fill("nora.n-password");
    await page.getByRole("button", { name: "Create account" }).click();
    expect(await page.getByRole("alert").innerText()).toContain("username");
    expect(await page.getByLabel("Username", { exact: true }).inputValue()).toBe("nora.n");
    await page.getByLabel("Password", { exact: true }).fill(STRONG);
    await page.getByLabel("Password again", { exact: true }).fill(STRONG);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/account\?done=welcome$/);
    expect(await page.locator("p.notice").innerText()).toContain("Welcome!");
    const user = await t.store.get_user_by_username("nora.n");
    expect(user).toMatchObject({ status: "active", email_verified: true, email: "nora@example.com" });

    // Used: the same link again changes nothing.
    await page.goto(link);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("This invitation link does not work");
    await page.context().close();
    // And the new password signs in to an application.
    const rp_page = await fresh_page();
    expect(await rp_sign_in(rp_page, "nora.n", STRONG)).toMatchObject({ sub: user!.id, email: "nora@example.com", email_verified: true });
    await rp_page.context().close();

    // Inviting again re-sends and voids the older link.
    expect((await cli(["users", "invite", "otto@example.com", "--username", "otto"])).code).toBe(0);
    const first = smtp.link(await smtp.wait_for("otto@example.com"), `${t.issuer}/invitation`);
    const again = await cli(["users", "invite", "otto@example.com"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("previous link no longer works");
    const second = smtp.link(await smtp.wait_for("otto@example.com"), `${t.issuer}/invitation`);
    expect(second).not.toBe(first);
    const check = await fresh_page();
    await check.goto(first);
    expect(await check.getByRole("heading", { level: 1 }).innerText()).toBe("This invitation link does not work");
    await check.goto(second);
    expect(await check.getByLabel("Username", { exact: true }).inputValue()).toBe("otto");
    await check.context().close();

    // Clear errors naming what is wrong; nothing is created.
    const bad = await cli(["users", "invite", "not an address"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("error: email:");
    const active = await cli(["users", "invite", "alice@example.com"]);
    expect(active.code).toBe(1);
    expect(active.stderr).toContain('already the address of user "alice" (status active)');
    const taken = await cli(["users", "invite", "zed@example.com", "--username", "alice"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('error: --username: "alice" is already taken');
    const off = await cli(["users", "invite", "zed@example.com"], { IDP_SIGNUP: "off" });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("IDP_SIGNUP=off");
    const no_mail = await cli(["users", "invite", "zed@example.com"], { IDP_PRODUCTION: "true", IDP_SMTP_URL: "", IDP_SIGNUP_REQUIRE_VERIFICATION: "false" });
    expect(no_mail.code).toBe(1);
    expect(no_mail.stderr).toContain("mail is off");
    expect((await t.store.find_users_by_email("zed@example.com")).length).toBe(0);
  }, 90_000);

  test("e-mail change: notice to the old address, confirm at the new one, the ID token has the new address", async () => {
    const user = await t.add_user({ username: "carol", name: "Carol", email: "carol@example.com", email_verified: true }, STRONG);
    const page = await fresh_page();
    await page.goto(`${t.issuer}/account`);
    await sign_in_form(page, "carol", STRONG);
    await page.waitForURL(/\/account$/);

    // Refusals name the field and keep the address typed; nothing is sent.
    await page.getByLabel("New e-mail address").fill("carol@localhost");
    await page.locator("#email_current_password").fill(STRONG);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    expect(await page.getByRole("alert").innerText()).toContain("New e-mail address:");
    expect(await page.getByLabel("New e-mail address").inputValue()).toBe("carol@localhost");
    await page.getByLabel("New e-mail address").fill("carol.new@example.org");
    await page.locator("#email_current_password").fill("not my password");
    await page.getByRole("button", { name: "Change e-mail" }).click();
    expect(await page.getByRole("alert").innerText()).toContain("Password: that is not your password");

    await page.locator("#email_current_password").fill(STRONG);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await page.waitForURL(/\/account\?done=email_sent$/);
    expect(await page.locator("p.notice").innerText()).toContain("We sent a link to your new address");
    const notice = await smtp.wait_for("carol@example.com", (m) => m.subject.includes("is changing"));
    expect(notice.text).toContain("carol.new@example.org");
    expect(notice.text).not.toContain("token=");
    const confirm = await smtp.wait_for("carol.new@example.org", (m) => m.subject.includes("Confirm your new e-mail"));
    const link = smtp.link(confirm, `${t.issuer}/email/confirm`);
    // Until the link is followed the old address stays.
    expect((await t.store.get_user_by_id(user.id))?.email).toBe("carol@example.com");

    // A forged token: a clear page, nothing changes.
    const forged = new URL(link);
    forged.searchParams.set("token", "A".repeat(43));
    await page.goto(forged.href);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("This confirmation link does not work");

    await page.goto(link);
    expect(await page.locator("main").innerText()).toContain("Use carol.new@example.org for the account carol instead of carol@example.com?");
    expect((await t.store.get_user_by_id(user.id))?.email).toBe("carol@example.com");
    await page.getByRole("button", { name: "Confirm new address" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Your e-mail address is changed");
    expect(await t.store.get_user_by_id(user.id)).toMatchObject({ email: "carol.new@example.org", email_verified: true });
    const events = (await t.store.list_audit_events({ user_id: user.id })).map((e) => `${e.type}:${e.outcome}`);
    expect(events).toEqual(expect.arrayContaining(["email_change_requested:failure", "email_change_requested:success", "email_change:success"]));

    // Used: the link again gives the page and changes nothing.
    await page.goto(link);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("This confirmation link does not work");
    await page.context().close();

    const rp_page = await fresh_page();
    expect(await rp_sign_in(rp_page, "carol", STRONG)).toMatchObject({ sub: user.id, email: "carol.new@example.org", email_verified: true });
    await rp_page.context().close();
  }, 90_000);

  test("axe finds no serious violation on the new pages", async () => {
    const page = await fresh_page({ bypassCSP: true });
    await page.goto(`${t.issuer}/account/login`);
    await expect_no_serious(page, "login with sign-up link");
    await page.goto(`${t.issuer}/signup`);
    await expect_no_serious(page, "signup");
    await fill_signup(page, { username: "axel", email: "axel@elsewhere.test", password: STRONG });
    expect(await page.getByRole("alert").count()).toBe(1);
    await expect_no_serious(page, "signup with an error");
    await fill_signup(page, { username: "axel", email: "axel@example.com", password: STRONG });
    await expect_no_serious(page, "check your mail");

    expect((await cli(["users", "invite", "ivy@example.com"])).code).toBe(0);
    await page.goto(smtp.link(await smtp.wait_for("ivy@example.com"), `${t.issuer}/invitation`));
    await expect_no_serious(page, "invitation");
    await page.getByLabel("Password", { exact: true }).fill("too short");
    await page.getByLabel("Password again", { exact: true }).fill("too short");
    await page.getByRole("button", { name: "Create account" }).click();
    expect(await page.getByRole("alert").count()).toBe(1);
    await expect_no_serious(page, "invitation with an error");

    await t.add_user({ username: "axa", email: "axa@example.com", email_verified: true }, STRONG);
    await page.goto(`${t.issuer}/account/login`);
    await sign_in_form(page, "axa", STRONG);
    await page.waitForURL(/\/account$/);
    await expect_no_serious(page, "account with change e-mail");
    await page.getByLabel("New e-mail address").fill("axa@example.org");
    await page.locator("#email_current_password").fill("not the password");
    await page.getByRole("button", { name: "Change e-mail" }).click();
    expect(await page.getByRole("alert").count()).toBe(1);
    await expect_no_serious(page, "account with an e-mail error");
    await page.locator("#email_current_password").fill(STRONG);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await page.waitForURL(/done=email_sent/);
    await page.goto(smtp.link(await smtp.wait_for("axa@example.org"), `${t.issuer}/email/confirm`));
    await expect_no_serious(page, "confirm new e-mail");
    await page.getByRole("button", { name: "Confirm new address" }).click();
    await expect_no_serious(page, "e-mail changed");
    await page.context().close();
  }, 90_000);
});
