/**
 * Every mail template (oidc/mail.ts MailData; the SAMPLES table must name each, so a new
 * template does not compile here without one) renders a subject, a text body with every link of
 * its data, and an HTML body in the mail layout: lang attribute, inline styles only, data
 * escaped, each link also shown as text, and no serious axe-core violation in Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, Page } from "playwright-core";
import { load_mail_templates } from "../../src/app/mail/outbox.ts";
import { MailRenderer } from "../../src/app/mail/render.ts";
import { MAIL_TEMPLATES } from "../../src/app/mail/subjects.ts";
import type { MailData, MailRequest } from "../../src/oidc/mail.ts";
import { PHONE, axe, chromium_available, launch, overflow, serious } from "../helpers/chromium.ts";

const ISSUER = "https://id.example.com";
const NAME = `Ada <script>alert("x")</script> & Co`;

const SAMPLES: { [T in keyof MailData]: MailData[T] } = {
  password_reset: { name: NAME, link: `${ISSUER}/account/reset?token=reset-token-1&x=1`, expires_minutes: 30 },
  password_changed: { name: NAME },
  email_verification: { name: null, link: `${ISSUER}/account/verify?token=verify-token-2`, expires_minutes: 1440 },
  invitation: { name: NAME, link: `${ISSUER}/account/invitation?token=invite-token-3`, expires_hours: 72 },
  email_change_confirm: { name: NAME, link: `${ISSUER}/account/email?token=change-token-4`, new_email: "new@example.com", expires_minutes: 60 },
  email_change_notice: { name: NAME, new_email: "new@example.com" },
  identity_linked: { name: NAME, upstream: `Git<b>Lab</b>`, upstream_email: "ada@gitlab.example" },
  account_exists: { name: NAME, username: "ada", sign_in_link: `${ISSUER}/account/login` },
  test: {},
};

const renderer = new MailRenderer(load_mail_templates(), ISSUER);
const request = (template: keyof MailData) => ({ to: "ada@example.com", template, data: SAMPLES[template] }) as MailRequest;
const links = (data: object) => Object.values(data).filter((v): v is string => typeof v === "string" && v.startsWith("https://"));
const escape_html = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

test("SAMPLES covers every template", () => {
  expect(Object.keys(SAMPLES).sort()).toEqual([...MAIL_TEMPLATES].sort());
});

test("a template missing its text or HTML body is found when the renderer is made", () => {
  const templates = { ...load_mail_templates() };
  delete templates["mail/invitation.txt"];
  expect(() => new MailRenderer(templates, ISSUER)).toThrow("mail templates missing from views/: mail/invitation.txt.eta");
});

describe.each(MAIL_TEMPLATES)("%s", (template) => {
  const mail = renderer.render(request(template));

  test("subject, and a text body with every link and no template residue", () => {
    expect(mail.subject).toContain("id.example.com");
    expect(mail.subject).not.toMatch(/[\r\n]/);
    for (const link of links(SAMPLES[template])) expect(mail.text).toContain(`\n${link}\n`);
    for (const body of [mail.text, mail.html]) expect(body).not.toMatch(/undefined|\[object|<%|%>/);
    if ("name" in SAMPLES[template] && SAMPLES[template].name !== null) expect(mail.text).toContain(`Hello ${NAME},`);
  });

  test("HTML body: the layout, escaped data, inline styles, links shown as text", () => {
    expect(mail.html).toStartWith("<!doctype html>");
    expect(mail.html).toContain('<html lang="en">');
    expect(mail.html).toContain(`<title>${escape_html(mail.subject)}</title>`);
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).not.toMatch(/<style|<link /);
    if ("name" in SAMPLES[template] && SAMPLES[template].name !== null) expect(mail.html).toContain(escape_html(NAME));
    for (const link of links(SAMPLES[template])) {
      expect(mail.html).toContain(`href="${escape_html(link)}"`);
      expect(mail.html).toContain(`>${escape_html(link)}</a>`);
    }
  });
});

describe.skipIf(!chromium_available)("HTML mail in Chromium", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launch();
    page = await (await browser.newContext({ bypassCSP: true, javaScriptEnabled: true })).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  test("every template: no serious axe violation, nothing scrolls sideways on a phone", async () => {
    await page.setViewportSize(PHONE);
    for (const template of MAIL_TEMPLATES) {
      await page.setContent(renderer.render(request(template)).html);
      expect({ template, problems: serious(await axe(page)) }).toEqual({ template, problems: [] });
      expect({ template, overflow: await overflow(page) }).toEqual({ template, overflow: 0 });
    }
  }, 60_000);
});
