/**
 * The sign-up settings through real HTTP, with a real SMTP server: IDP_SIGNUP_REQUIRE_VERIFICATION
 * off (active at once, signed in, still sent a verification mail; a used address is refused
 * openly, see SECURITY.md), the per-address throttle (429), which pages each IDP_SIGNUP mode
 * mounts, the start refused in production when sign-up needs mail that is off, and the CSRF
 * token of each new form (missing or foreign: 403, nothing changes, the link is not used up).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { request_email_change } from "../../src/oidc/accounts/email_change.ts";
import { invite } from "../../src/oidc/accounts/invitations.ts";
import { Browser, account_login, account_page, form_action, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

const STRONG = "copper kettle meadow 9";

let smtp: TestSmtp;
let open: TestProvider;

beforeAll(async () => {
  smtp = await start_smtp();
  open = await start_provider({
    config: { smtp_url: smtp.url, mail_from: "idp@example.com", signup: { mode: "open", require_verification: false, per_ip: 3 } },
  });
}, 30_000);

afterAll(async () => {
  await open?.stop();
  await smtp?.stop();
});

/** Opens /signup and posts the form with its CSRF token. */
async function sign_up(browser: Browser, t: TestProvider, fields: Record<string, string>): Promise<Response> {
  const page = await browser.get(`${t.issuer}/signup`);
  expect(page.status).toBe(200);
  const html = await page.text();
  return browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, name: "", confirm_password: fields.password ?? "", ...fields });
}

describe("sign-up without required verification", () => {
  test("the account is active and signed in at once; a verification mail is still sent", async () => {
    const browser = new Browser();
    const response = await sign_up(browser, open, { username: "vic", email: "vic@example.net", password: STRONG });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${open.issuer}/account`);
    const account = await browser.get(`${open.issuer}/account`);
    expect(account.status).toBe(200);
    expect(await account.text()).toContain("Signed in as <strong>vic</strong>");
    expect(await open.store.get_user_by_username("vic")).toMatchObject({ status: "active", email_verified: false });
    const mail = await smtp.wait_for("vic@example.net", (m) => m.subject.includes("Confirm your e-mail"));
    expect(smtp.link(mail, `${open.issuer}/email/verify`)).toContain("token=");
  });

  test("an address in use is refused on the field (the account would be usable at once)", async () => {
    const response = await sign_up(new Browser(), open, { username: "vic2", email: "alice@example.com", password: STRONG });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("E-mail address: an account already uses this address.");
    expect(html).toContain('value="vic2"');
    expect(await open.store.get_user_by_username("vic2")).toBeNull();
  });

  test("sign-ups from one address are throttled (429) and audited", async () => {
    // Two complete forms were counted above; the third passes, the fourth waits.
    expect((await sign_up(new Browser(), open, { username: "vic3", email: "vic3@example.net", password: STRONG })).status).toBe(303);
    const refused = await sign_up(new Browser(), open, { username: "vic4", email: "vic4@example.net", password: STRONG });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await open.store.get_user_by_username("vic4")).toBeNull();
    const events = await open.store.list_audit_events({ type: "signup" });
    expect(events.some((e) => e.outcome === "failure" && (e.details as { reason?: string } | null)?.reason === "throttled")).toBe(true);
  });
});

describe("IDP_SIGNUP modes", () => {
  test("off (the default): no sign-up page, no invitation page, no link on the sign-in page", async () => {
    const off = await start_provider();
    try {
      expect((await fetch(`${off.issuer}/signup`)).status).toBe(404);
      expect((await fetch(`${off.issuer}/invitation?token=x`)).status).toBe(404);
      expect(await (await new Browser().get(`${off.issuer}/account/login`)).text()).not.toContain("Create an account");
    } finally {
      await off.stop();
    }
  });

  test("invite: invitation links only, no public sign-up; open: the sign-in page links to sign-up", async () => {
    const invite = await start_provider({ config: { smtp_url: smtp.url, mail_from: "idp@example.com", signup: { mode: "invite" } } });
    try {
      expect((await fetch(`${invite.issuer}/signup`)).status).toBe(404);
      const link = await fetch(`${invite.issuer}/invitation?token=${"A".repeat(43)}`, { headers: { accept: "text/html" } });
      expect(link.status).toBe(400);
      expect(await link.text()).toContain("This invitation link does not work");
      expect(await (await new Browser().get(`${invite.issuer}/account/login`)).text()).not.toContain("Create an account");
    } finally {
      await invite.stop();
    }
    expect(await (await new Browser().get(`${open.issuer}/account/login`)).text()).toContain(`href="${open.issuer}/signup">Create an account`);
  });

  test("production without SMTP: open sign-up with verification and invitations refuse to start", () => {
    const base = { IDP_PRODUCTION: "true", IDP_ISSUER: "https://id.example.com" };
    expect(() => load_config({ ...base, IDP_SIGNUP: "open" })).toThrow(/IDP_SIGNUP.*needs mail.*IDP_SMTP_URL/);
    expect(() => load_config({ ...base, IDP_SIGNUP: "invite" })).toThrow(/invitations are sent by mail/);
    expect(load_config({ ...base, IDP_SIGNUP: "open", IDP_SIGNUP_REQUIRE_VERIFICATION: "false" }).signup.mode).toBe("open");
    expect(load_config({ ...base, IDP_SIGNUP: "open", IDP_SMTP_URL: "smtp://mail.example.com", IDP_MAIL_FROM: "idp@example.com" }).signup.mode).toBe("open");
    expect(() => load_config({ IDP_SIGNUP_DOMAINS: "example.com, not a domain" })).toThrow(/signup\.domains\.1 \(IDP_SIGNUP_DOMAINS\): "not a domain" is not a domain name/);
    expect(load_config({ IDP_SIGNUP_DOMAINS: "Example.COM, bücher.example." }).signup.domains).toEqual(["example.com", "xn--bcher-kva.example"]);
  });
});

describe("every new form refuses a missing or foreign CSRF token and changes nothing", () => {
  /** Posts `fields` to `action` without a token, then with the token of another browser's same page. */
  async function refused(page_url: string, fields: Record<string, string>, action?: string): Promise<void> {
    const victim = new Browser();
    const attacker = new Browser();
    const victim_page = await victim.get(page_url);
    expect(victim_page.status).toBe(200);
    const target = action ?? form_action(await victim_page.text())!;
    const attacker_csrf = hidden_field(await (await attacker.get(page_url)).text(), "csrf")!;
    for (const csrf of [undefined, attacker_csrf]) {
      const response = await victim.post(target, csrf === undefined ? fields : { ...fields, csrf });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("This form has expired");
    }
  }

  test("sign-up", async () => {
    await refused(`${open.issuer}/signup`, { username: "csrf1", email: "csrf1@example.net", password: STRONG, confirm_password: STRONG, name: "" });
    expect(await open.store.get_user_by_username("csrf1")).toBeNull();
  });

  test("invitation: the link still works afterwards", async () => {
    await invite(open.provider, { email: "csrf2@example.net" });
    const link = smtp.link(await smtp.wait_for("csrf2@example.net"), `${open.issuer}/invitation`);
    const token = new URL(link).searchParams.get("token")!;
    await refused(link, { token, username: "csrf2", password: STRONG, confirm_password: STRONG });
    const user = (await open.store.find_users_by_email("csrf2@example.net"))[0]!;
    expect(user.status).toBe("invited");
    expect((await new Browser().get(link)).status).toBe(200);
  });

  test("e-mail change: the request form and the confirmation form", async () => {
    await open.add_user({ username: "csrf3", email: "csrf3@example.net", email_verified: true }, STRONG);
    const browser = new Browser();
    expect((await account_login(open, browser, "csrf3", STRONG)).status).toBe(303);
    const { csrf } = await account_page(open, browser);
    expect(csrf).toBeTruthy();
    for (const given of [undefined, "forged"]) {
      const response = await browser.post(`${open.issuer}/account/email`, { ...(given ? { csrf: given } : {}), new_email: "csrf3.new@example.net", current_password: STRONG });
      expect(response.status).toBe(403);
    }
    const user = (await open.store.get_user_by_username("csrf3"))!;
    await request_email_change(open.provider, user, "csrf3.new@example.net", "");
    const link = smtp.link(await smtp.wait_for("csrf3.new@example.net"), `${open.issuer}/email/confirm`);
    await refused(link, { token: new URL(link).searchParams.get("token")! });
    expect((await open.store.get_user_by_id(user.id))?.email).toBe("csrf3@example.net");
    expect((await new Browser().get(link)).status).toBe(200);
  });
});
