/**
 * Forgot password and e-mail verification in Chromium, with a real SMTP server receiving the
 * mail (tests/helpers/smtp.ts) and a real relying party (openid-client):
 *
 * - from an application's sign-in page: "Forgot password?" → mail → the link opened in the
 *   browser → a new password → back on that application's sign-in → signed in with the new
 *   password, to an ID Token at the RP; the old password is refused;
 * - an unverified account: the sign-in says to confirm first, the button mails the link again,
 *   the link's confirm button activates the account;
 * - axe (WCAG 2 A/AA) finds no serious violation on each new page.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, Page } from "playwright-core";
import { settle_password_reset_requests } from "../../src/oidc/accounts/password_reset.ts";
import { new_totp_secret } from "../../src/oidc/signin/totp.ts";
import { axe, chromium_available, launch, serious } from "../helpers/chromium.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_rp, type RelyingParty } from "../helpers/rp.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

let t: TestProvider;
let rp: RelyingParty;
let browser: Browser;
let smtp: TestSmtp;

const NEW_PASSWORD = "otter lantern bicycle 7";

beforeAll(async () => {
  if (!chromium_available) return;
  smtp = await start_smtp();
  t = await start_provider({ config: { smtp_url: smtp.url, mail_from: "idp@example.com" } });
  const port = await free_port();
  const { client, secret } = await t.add_client({
    client_name: "Reset App",
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
});

/** A page in a new browser context; `bypassCSP` only where axe is injected. */
async function fresh_page(bypassCSP = false): Promise<Page> {
  const context = await browser.newContext(bypassCSP ? { bypassCSP: true, reducedMotion: "reduce" } : {});
  return context.newPage();
}

async function sign_in_form(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username", { exact: true }).fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function expect_no_serious(page: Page, name: string): Promise<void> {
  expect({ page: name, problems: serious(await axe(page)) }).toEqual({ page: name, problems: [] });
}

describe.skipIf(!chromium_available)("forgot password and e-mail verification (Chromium, real SMTP, openid-client RP)", () => {
  test("forgot password from an application's sign-in: mail, new password, back to that sign-in, ID Token", async () => {
    await t.add_user({ username: "rita", name: "Rita Reset", email: "rita@example.com", email_verified: true });
    const page = await fresh_page();
    await page.goto(`${rp.url}/login`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.waitForURL(/\/password\/forgot\?interaction=/);
    await page.getByLabel("Username or e-mail address").fill("rita@example.com");
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByText("Check your e-mail.").waitFor();

    await settle_password_reset_requests();
    const mail = await smtp.wait_for("rita@example.com", (m) => m.subject.startsWith("Reset your password"));
    expect(mail.html).toContain("/password/reset?token=");
    const link = smtp.link(mail, `${t.issuer}/password/reset?`);
    expect(new URL(link).searchParams.get("interaction")).toMatch(/^[A-Za-z0-9_-]{43}$/);

    await page.goto(link);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Choose a new password");
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("New password again").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("heading", { name: "Your password was changed" }).waitFor();
    await page.getByRole("link", { name: "Sign in" }).click();

    // Back on the sign-in of the same authorization request: the old password is refused, the new one signs in.
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]{43}\/login$/);
    expect(await page.locator(".lead").innerText()).toContain("Reset App");
    await sign_in_form(page, "rita", t.password);
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").innerText()).toBe("Wrong username or password.");
    await sign_in_form(page, "rita", NEW_PASSWORD);
    await page.waitForURL((url) => url.pathname.endsWith("/consent") || url.href.startsWith(rp.callback));
    if (page.url().endsWith("/consent")) await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(rp.callback));
    const claims = JSON.parse(await page.locator("#claims").innerText()) as Record<string, unknown>;
    expect(claims).toMatchObject({ email: "rita@example.com", email_verified: true });
    await page.context().close();
  }, 60_000);

  test("an unverified account: refused with a resend button; the mailed link's button confirms it; then it signs in", async () => {
    await t.add_user({ username: "uma", email: "uma@example.com", email_verified: false, status: "unverified" });
    const page = await fresh_page();
    await page.goto(`${t.url}/account/login`);
    await sign_in_form(page, "uma", t.password);
    await page.getByRole("heading", { name: "Confirm your e-mail address first" }).waitFor();
    await page.getByRole("button", { name: "Send the confirmation link again" }).click();
    await page.getByText("We sent a new confirmation link to uma@example.com.").waitFor();
    const mail = await smtp.wait_for("uma@example.com", (m) => m.subject.startsWith("Confirm your e-mail address"));
    await page.goto(smtp.link(mail, `${t.issuer}/email/verify?`));
    await page.getByRole("button", { name: "Confirm my address" }).click();
    await page.getByRole("heading", { name: "Your e-mail address is confirmed" }).waitFor();
    await page.getByRole("link", { name: "Sign in" }).click();
    await sign_in_form(page, "uma", t.password);
    await page.waitForURL(`${t.issuer}/account`);
    expect(await page.locator("dd", { hasText: "uma@example.com" }).innerText()).toBe("uma@example.com (verified)");
    await page.context().close();
  }, 60_000);

  test("axe: forgot, check your mail, reset (with two-step fields and an error), bad link, status, resend, confirm, confirmed, account prompt", async () => {
    await t.add_user({ username: "axel", email: "axel@example.com", email_verified: true, totp_secret: new_totp_secret(), totp_enabled_at: t.clock.now() });
    await t.add_user({ username: "vera", email: "vera@example.com", email_verified: false, status: "unverified" });
    const page = await fresh_page(true);
    await page.goto(`${t.url}/password/forgot`);
    await expect_no_serious(page, "forgot");
    await page.getByLabel("Username or e-mail address").fill("axel");
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByText("Check your e-mail.").waitFor();
    await expect_no_serious(page, "forgot-sent");
    await settle_password_reset_requests();
    const mail = await smtp.wait_for("axel@example.com", (m) => m.subject.startsWith("Reset your password"));
    await page.goto(smtp.link(mail, `${t.issuer}/password/reset?`));
    await page.getByLabel("6-digit code").waitFor();
    await expect_no_serious(page, "reset");
    await page.getByLabel("New password", { exact: true }).fill("short");
    await page.getByLabel("New password again").fill("short");
    // The browser's own minlength check would stop the form first: post it as typed.
    await page
      .locator("form")
      .first()
      .evaluate((form) => form.setAttribute("novalidate", ""));
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").innerText()).toBe("The password is too short: use at least 10 characters.");
    await expect_no_serious(page, "reset-error");
    await page.goto(`${t.url}/password/reset?token=${"B".repeat(43)}`);
    await expect_no_serious(page, "reset-bad-link");

    await page.goto(`${t.url}/account/login`);
    await sign_in_form(page, "vera", t.password);
    await page.getByRole("heading", { name: "Confirm your e-mail address first" }).waitFor();
    await expect_no_serious(page, "status-unverified");
    await page.getByRole("button", { name: "Send the confirmation link again" }).click();
    await page.getByText("We sent a new confirmation link to vera@example.com.").waitFor();
    await expect_no_serious(page, "resend-sent");
    const verify = await smtp.wait_for("vera@example.com", (m) => m.subject.startsWith("Confirm your e-mail address"));
    await page.goto(smtp.link(verify, `${t.issuer}/email/verify?`));
    await expect_no_serious(page, "verify-confirm");
    await page.getByRole("button", { name: "Confirm my address" }).click();
    await page.getByRole("heading", { name: "Your e-mail address is confirmed" }).waitFor();
    await expect_no_serious(page, "verify-done");

    // The account page of a user with an address not verified yet offers the link.
    await t.add_user({ username: "nell", email: "nell@example.com", email_verified: false });
    await page.goto(`${t.url}/account/login`);
    await sign_in_form(page, "nell", t.password);
    await page.waitForURL(`${t.issuer}/account`);
    await page.getByRole("button", { name: "Send a confirmation link" }).waitFor();
    await expect_no_serious(page, "account-unverified");
    await page.getByRole("button", { name: "Send a confirmation link" }).click();
    await page.getByText("We sent a confirmation link to your e-mail address.").waitFor();
    await smtp.wait_for("nell@example.com", (m) => m.subject.startsWith("Confirm your e-mail address"));
    await page.context().close();
  }, 90_000);
});
