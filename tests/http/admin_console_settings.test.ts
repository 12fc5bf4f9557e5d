/**
 * The console's settings page over plain HTTP: every setting with its source and secrets masked
 * as `idp config check` masks them (no secret in the page); the mail status, the outbox (never a
 * body), the policies; the test message arrives at the SMTP server (tests/helpers/smtp.ts) and is
 * refused when mail is off, when the admin has no address, or without the form token; auditors
 * read it without the button, the helpdesk not at all. And load_config's sources: default <
 * config file < environment < the program's own values.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { config_sources, load_config } from "../../src/app/config.ts";
import type { UserRow } from "../../src/store/types.ts";
import { alert_text, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

const SMTP_PASSWORD = "sm7p-secret-never-shown";
const METRICS_TOKEN = "metrics-token-never-shown-0123456789";
const SALT = "pairwise-salt-never-shown-0123456789";
const SECRET_KEY = Buffer.alloc(32, 7).toString("base64url");

async function member(t: TestProvider, group: string, username: string, email: string | null): Promise<UserRow> {
  const user = await t.add_user({ username, email, email_verified: email !== null });
  const row = (await t.store.list_groups()).find((g) => g.name === group) ?? (await t.store.create_group({ name: group, description: null }));
  await t.store.add_group_member(row.id, user.id, t.clock.now());
  return user;
}

/** The settings table's row of `path`: value and source. */
function setting(html: string, path: string): { value: string; source: string } {
  const row = new RegExp(`<tr data-setting="${path.replace(/\./g, "\\.")}">[\\s\\S]*?<td class="value">([\\s\\S]*?)</td><td class="nowrap source">([\\s\\S]*?)</td>`).exec(html);
  if (row === null) throw new Error(`no row for ${path}`);
  return { value: row[1]!, source: row[2]! };
}

describe("settings page", () => {
  let smtp: TestSmtp;
  let t: TestProvider;
  let root: UserRow;
  let nomail: UserRow;
  let auditor: UserRow;
  let helper: UserRow;

  beforeAll(async () => {
    smtp = await start_smtp({ user: "idp", password: SMTP_PASSWORD });
    t = await start_provider({
      config: {
        smtp_url: smtp.url,
        mail_from: "idp@example.com",
        metrics_token: METRICS_TOKEN,
        pairwise: { salt: SALT },
        federation: { secret_key: SECRET_KEY },
        passwords: { min_length: 12 },
        admin_console: { auditor_group: "auditors", helpdesk_group: "helpdesk" },
      },
    });
    root = await member(t, "admins", "root", "root@example.com");
    nomail = await member(t, "admins", "nomail", null);
    auditor = await member(t, "auditors", "audrey", "audrey@example.com");
    helper = await member(t, "helpdesk", "hal", "hal@example.com");
  });

  afterAll(async () => {
    await t.stop();
    await smtp.stop();
  });

  test("every setting, its source, secrets masked; the policies; in the navigation", async () => {
    const { html } = await console_page(await console_browser(t, root), `${t.url}/admin/settings`);
    for (const secret of [SMTP_PASSWORD, METRICS_TOKEN, SALT, SECRET_KEY]) expect(html).not.toContain(secret);
    expect(setting(html, "metrics_token")).toEqual({ value: "********", source: "program" });
    expect(setting(html, "pairwise.salt").value).toBe("********");
    expect(setting(html, "federation.secret_key").value).toBe("********");
    expect(setting(html, "smtp_url").value).toBe(smtp.url.replace(`:${SMTP_PASSWORD}@`, ":********@"));
    expect(setting(html, "passwords.min_length")).toEqual({ value: "12", source: "program" });
    expect(setting(html, "tokens.code_ttl")).toEqual({ value: String(t.config.tokens.code_ttl), source: "default" });
    expect(setting(html, "admin_console.helpdesk_group")).toEqual({ value: "helpdesk", source: "program" });
    expect(html).toContain(`${t.config.passwords.min_length} to ${t.config.passwords.max_length} characters`);
    expect(html).toContain(`<code>${t.config.signup.mode}</code>`);
    expect(html).toContain(`<a href="${t.issuer}/admin/settings" aria-current="page">Settings</a>`);
  });

  test("the test message arrives at the admin's own address; the outbox lists it without its body", async () => {
    const browser = await console_browser(t, root);
    const { csrf } = await console_page(browser, `${t.url}/admin/settings`);
    const answer = await browser.post(`${t.url}/admin/settings/test-mail`, { csrf: csrf! });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("The test message is in the outbox, on its way to your address.");
    const mail = await smtp.wait_for("root@example.com");
    expect(mail.subject).toContain("Test message from");
    expect(mail.text).toContain("If you can read it, outgoing mail works.");
    const { html } = await console_page(browser, `${t.url}/admin/settings`);
    const outbox = /<table class="admin" id="outbox">[\s\S]*?<\/table>/.exec(html)![0];
    expect(outbox).toContain("root@example.com");
    expect(outbox).toContain(mail.subject);
    expect(html).not.toContain("If you can read it, outgoing mail works.");
    const events = await t.store.list_audit_events({ type: "admin_console" });
    expect(events.some((event) => event.details?.action === "mail_test" && event.user_id === root.id)).toBe(true);
  });

  test("refused without an address, and without the form token", async () => {
    const browser = await console_browser(t, nomail);
    const { html: page, csrf } = await console_page(browser, `${t.url}/admin/settings`);
    expect(page).toContain("Your account has no e-mail address to send a test message to.");
    const before = (await t.store.list_mail()).length;
    const refused = await browser.post(`${t.url}/admin/settings/test-mail`, { csrf: csrf! });
    expect(refused.status).toBe(409);
    expect(alert_text(await refused.text())).toBe("Your account has no e-mail address: no test message was sent. Add one on your account page.");
    const forged = await (await console_browser(t, root)).post(`${t.url}/admin/settings/test-mail`, { csrf: "forged" });
    expect(forged.status).toBe(403);
    expect((await t.store.list_mail()).length).toBe(before);
  });

  test("an auditor reads it without the button; the helpdesk may not", async () => {
    const as_auditor = await console_browser(t, auditor);
    const { html, csrf } = await console_page(as_auditor, `${t.url}/admin/settings`);
    expect(html).not.toContain("/admin/settings/test-mail");
    expect((await as_auditor.post(`${t.url}/admin/settings/test-mail`, { csrf: csrf ?? "" })).status).toBe(403);
    await console_page(await console_browser(t, helper), `${t.url}/admin/settings`, 403);
  });
});

describe("settings page, mail off", () => {
  let t: TestProvider;

  beforeAll(async () => {
    t = await start_provider({ config: { production: true } });
  });

  afterAll(() => t.stop());

  test("says mail is off and refuses the test message", async () => {
    const root = await member(t, "admins", "root", "root@example.com");
    const browser = await console_browser(t, root);
    const { html, csrf } = await console_page(browser, `${t.url}/admin/settings`);
    expect(html).toContain('<dd id="mail-status">off</dd>');
    const refused = await browser.post(`${t.url}/admin/settings/test-mail`, { csrf: csrf! });
    expect(refused.status).toBe(409);
    expect(alert_text(await refused.text())).toContain("Mail is off (production mode without IDP_SMTP_URL): no test message was sent.");
    expect(await t.store.list_mail()).toEqual([]);
  });
});

describe("load_config keeps each value's source", () => {
  test("default < config file < environment < the program's values", () => {
    const dir = mkdtempSync(join(tmpdir(), "idp-sources-"));
    try {
      const file = join(dir, "config.json");
      writeFileSync(file, JSON.stringify({ port: 4100, tokens: { code_ttl: 30, access_token_ttl: 600 }, signup: { mode: "off" } }));
      const config = load_config({ IDP_CONFIG: file, PORT: "4200", IDP_ACCESS_TOKEN_TTL: "900", NODE_ENV: "production" }, { "tokens.refresh_token_ttl": 1000 });
      const sources = config_sources(config)!;
      expect(sources.port).toBe("environment");
      expect(sources["tokens.code_ttl"]).toBe("file");
      expect(sources["tokens.access_token_ttl"]).toBe("environment");
      expect(sources["tokens.refresh_token_ttl"]).toBe("program");
      expect(sources["signup.mode"]).toBe("file");
      expect(sources.production).toBe("environment");
      expect(sources["tokens.id_token_ttl"]).toBe("default");
      expect(sources.issuer).toBe("default");
      expect(config.port).toBe(4200);
      expect(config_sources(structuredClone(config))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
