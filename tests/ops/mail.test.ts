/**
 * Outgoing mail end to end: `idp.mail.send()` queues in the outbox, the worker delivers through
 * a real SMTP server (tests/helpers/smtp.ts, with AUTH), retries through an outage, gives up on a
 * permanent refusal or after a day, counts in /metrics (real HTTP), never logs a body or the SMTP
 * password; development without SMTP logs the mail, production without SMTP has mail off; two
 * instances on one PostgreSQL database never send one message twice.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load_config } from "../../src/app/config.ts";
import { MAIL_GIVE_UP_SECONDS } from "../../src/app/mail/outbox.ts";
import { DEFAULT_MAIL_WORKER, next_attempt } from "../../src/app/mail/worker.ts";
import { create_provider } from "../../src/app/provider.ts";
import { serve } from "../../src/app/server.ts";
import { run_cli } from "../../src/cli/index.ts";
import type { LogLine } from "../../src/oidc/provider.ts";
import { open_store } from "../../src/store/open.ts";
import type { MailRow, MailSummary } from "../../src/store/types.ts";
import { free_port, start_provider, TEST_MAIL_WORKER, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { rejection } from "../helpers/settle.ts";
import { setTimeout as sleep } from "node:timers/promises";

const SMTP_PASSWORD = "sm7p-pa55word-never-logged";
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const FROM = "idp@example.com";

/** Polls an async probe until it returns something other than undefined. */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

async function outbox_row(tp: TestProvider, recipient: string, ok: (row: MailSummary) => boolean = () => true): Promise<MailRow> {
  const found = await eventually(async () => (await tp.store.list_mail()).find((m) => m.recipient === recipient && ok(m)), `the outbox row to ${recipient}`);
  return (await tp.store.get_mail(found.id))!;
}

async function cli(argv: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await run_cli(argv, { stdin: "", stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env });
  return { code, stdout, stderr };
}

describe("mail through SMTP", () => {
  let smtp: TestSmtp;
  let tp: TestProvider;
  let dir: string;
  const logs: LogLine[] = [];
  const cli_env = () => ({ DATABASE_URL: tp.config.database_url, IDP_ISSUER: tp.issuer, IDP_SIGNING_ALGS: "RS256,ES256" });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "idp-mail-"));
    smtp = await start_smtp({ user: "idp", password: SMTP_PASSWORD });
    tp = await start_provider({
      database_url: `sqlite:${join(dir, "idp.sqlite")}`,
      config: { smtp_url: smtp.url, mail_from: FROM, metrics_token: METRICS_TOKEN },
      log: (line) => void logs.push(line),
    });
  });
  afterAll(async () => {
    await tp.stop();
    await smtp.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a queued mail arrives multipart (text and HTML) with the issuer's link intact", async () => {
    expect(tp.provider.mail.enabled).toBe(true);
    const link = `${tp.issuer}/account/reset?token=tok_${crypto.randomUUID()}&from=mail`;
    await tp.provider.mail.send({ to: "bob@example.com", template: "password_reset", data: { name: "Bob <Builder>", link, expires_minutes: 30 } });
    const mail = await smtp.wait_for("bob@example.com");

    expect(mail.from).toBe(FROM);
    expect(mail.auth_user).toBe("idp");
    expect(mail.subject).toBe(`Reset your password for ${new URL(tp.issuer).host}`);
    expect(mail.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail.text).toContain(link);
    expect(mail.text).toContain("Hello Bob <Builder>,");
    expect(mail.text).toContain("expires in 30 minutes");
    expect(smtp.link(mail, `${tp.issuer}/`)).toBe(link);
    // The HTML part: escaped, the link as a button and as text, the layout's lang.
    expect(mail.html).toContain('<html lang="en">');
    expect(mail.html).toContain("Hello Bob &lt;Builder&gt;,");
    expect(mail.html).toContain(`href="${link.replace("&", "&amp;")}"`);
    expect(mail.html).toContain(`>${link.replace("&", "&amp;")}</a>`);
    expect(mail.html).not.toContain("<style");

    const row = await outbox_row(tp, "bob@example.com", (m) => m.status === "sent");
    expect(row).toMatchObject({ template: "password_reset", attempts: 1, last_error: null });
    expect(row.sent_at).not.toBeNull();
  });

  test("SMTP down: the mail waits in the outbox (queued, attempts, last_error); back up: it arrives", async () => {
    await smtp.stop();
    const link = `${tp.issuer}/account/verify?token=tok_${crypto.randomUUID()}`;
    await tp.provider.mail.send({ to: "carol@example.com", template: "email_verification", data: { name: null, link, expires_minutes: 60 } });

    const waiting = await outbox_row(tp, "carol@example.com", (m) => m.status === "queued" && m.attempts > 0);
    expect(waiting.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(waiting.next_attempt_at).toBeGreaterThan(waiting.created_at);
    expect(smtp.messages.some((m) => m.to === "carol@example.com")).toBe(false);
    const warning = logs.find((l) => l.msg === "mail delivery failed, will retry" && l.mail_id === waiting.id);
    expect(warning).toMatchObject({ level: "warn", template: "email_verification" });

    await smtp.start();
    const mail = await smtp.wait_for("carol@example.com", undefined, 15_000);
    expect(smtp.link(mail, `${tp.issuer}/`)).toBe(link);
    const sent = await outbox_row(tp, "carol@example.com", (m) => m.status === "sent");
    expect(sent.attempts).toBeGreaterThanOrEqual(2);
    // No log line holds the body or its link.
    expect(JSON.stringify(logs)).not.toContain(link);
  });

  test("a permanent refusal ends failed at once and shows in `idp mail list --failed`; `idp mail retry` sends it", async () => {
    smtp.reject("gone@example.com");
    await tp.provider.mail.send({ to: "gone@example.com", template: "password_changed", data: { name: "Gone" } });
    const failed = await outbox_row(tp, "gone@example.com", (m) => m.status === "failed");
    expect(failed.attempts).toBe(1);
    expect(failed.last_error).toContain("550");
    expect(logs.find((l) => l.msg === "mail delivery failed for good" && l.mail_id === failed.id)).toMatchObject({ level: "error", permanent: true });

    const listed = await cli(["mail", "list", "--failed", "--json"], cli_env());
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r.id)).toContain(failed.id);
    expect(rows.every((r) => r.status === "failed")).toBe(true);
    expect(listed.stdout).not.toContain("was just changed");
    expect(rows[0]).not.toHaveProperty("text");

    smtp.accept("gone@example.com");
    const retried = await cli(["mail", "retry", failed.id], cli_env());
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain("queued again");
    // The worker's poll picks up what another process queued.
    const mail = await smtp.wait_for("gone@example.com");
    expect(mail.subject).toContain("Your password for");
    await outbox_row(tp, "gone@example.com", (m) => m.status === "sent");
  });

  test("a mail that cannot be delivered for a day ends failed", async () => {
    await smtp.stop();
    try {
      await tp.provider.mail.send({ to: "dave@example.com", template: "test", data: {} });
      await outbox_row(tp, "dave@example.com", (m) => m.status === "queued" && m.attempts > 0);
      tp.clock.advance(25 * 3600);
      const failed = await outbox_row(tp, "dave@example.com", (m) => m.status === "failed");
      expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i);
      expect(logs.find((l) => l.msg === "mail delivery failed for good" && l.mail_id === failed.id)).toMatchObject({ permanent: false });
    } finally {
      await smtp.start();
    }
  });

  test("a recipient that is no deliverable address is stored failed: never raised, never sent", async () => {
    const to = "bob@example.com<eve@example.com>";
    await tp.provider.mail.send({ to, template: "test", data: {} });
    const row = await outbox_row(tp, to);
    expect(row).toMatchObject({ status: "failed", attempts: 0, last_error: "the recipient is not a deliverable e-mail address" });
    expect(logs.find((l) => l.msg === "mail refused: the recipient is not a deliverable address")).toMatchObject({ level: "error", mail_id: row.id });
    await sleep(2 * TEST_MAIL_WORKER.poll_ms!);
    expect(smtp.messages.some((m) => m.recipients.includes("eve@example.com"))).toBe(false);
    expect(await tp.store.get_mail(row.id)).toMatchObject({ status: "failed", attempts: 0 });
  });

  test("/metrics counts sent and failed mail and the queue", async () => {
    const response = await fetch(`${tp.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const sample = (series: string) =>
      Number(
        text
          .split("\n")
          .find((l) => l.startsWith(`${series} `))
          ?.slice(series.length + 1),
      );
    expect(sample("idp_mail_sent_total")).toBeGreaterThanOrEqual(3);
    expect(sample('idp_mail_failed_total{outcome="retry"}')).toBeGreaterThanOrEqual(1);
    expect(sample('idp_mail_failed_total{outcome="failed"}')).toBeGreaterThanOrEqual(2);
    expect(sample("idp_mail_queued")).toBe(0);
  });

  test("the SMTP password never appears in the logs", () => {
    const text = JSON.stringify(logs);
    expect(text).not.toContain(SMTP_PASSWORD);
    expect(logs.find((l) => l.msg === "mail worker started")?.transport).toBe(smtp.url.replace(SMTP_PASSWORD, "********"));
  });
});

test("retries back off 30 s, doubling, at most an hour apart, until the give-up time", () => {
  const waits = [1, 2, 3, 4, 5, 6, 7, 8, 9, 30].map((attempts) => next_attempt(attempts, 1000, 1000 + MAIL_GIVE_UP_SECONDS, DEFAULT_MAIL_WORKER)! - 1000);
  expect(waits).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]);
  expect(next_attempt(8, 1000, 1000 + 3599, DEFAULT_MAIL_WORKER)).toBeNull();
  expect(next_attempt(8, 1000, 1000 + 3600, DEFAULT_MAIL_WORKER)).toBe(4600);
});

describe("without SMTP", () => {
  test("development: the worker writes each mail to the log (recipient, subject, text with the link)", async () => {
    const logs: LogLine[] = [];
    const tp = await start_provider({ log: (line) => void logs.push(line) });
    try {
      expect(tp.provider.mail.enabled).toBe(true);
      const link = `${tp.issuer}/account/verify?token=dev_${crypto.randomUUID()}`;
      await tp.provider.mail.send({ to: "erin@example.com", template: "email_verification", data: { name: "Erin", link, expires_minutes: 60 } });
      const line = await eventually(async () => logs.find((l) => l.msg === "mail (development, not sent)"), "the mail log line");
      expect(line).toMatchObject({ level: "info", to: "erin@example.com", subject: `Confirm your e-mail address for ${new URL(tp.issuer).host}` });
      expect(String(line.text)).toContain(link);
      expect(line).not.toHaveProperty("html");
      await outbox_row(tp, "erin@example.com", (m) => m.status === "sent");
    } finally {
      await tp.stop();
    }
  });

  test("production: mail is off (enabled false, send refuses) and no worker runs", async () => {
    const store = await open_store("sqlite::memory:");
    try {
      const config = load_config({}, { production: true, issuer: "https://idp.example.com", database_url: "sqlite::memory:", signing_algs: ["RS256"] });
      const idp = await create_provider(config, { store, log: () => {} });
      expect(idp.mail.enabled).toBe(false);
      expect((await rejection(idp.mail.send({ to: "x@example.com", template: "test", data: {} }))).message).toMatch(/not configured/);

      const logs: LogLine[] = [];
      const served = await serve(config, { store, port: 0, log: (line) => void logs.push(line), out: () => {} });
      await served.stop();
      expect(logs.some((l) => l.msg === "mail worker started")).toBe(false);
      expect(await store.list_mail()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test("smtp_url without mail_from, or a bad one, is refused naming the setting (never echoing the password)", () => {
    expect(() => load_config({ IDP_SMTP_URL: "smtp://u:secretpw@mail.example.com" })).toThrow(/mail_from \(IDP_MAIL_FROM\): is required when smtp_url is set/);
    expect(() => load_config({ IDP_SMTP_URL: "https://u:secretpw@mail.example.com", IDP_MAIL_FROM: FROM })).toThrow(/smtp_url \(IDP_SMTP_URL\): must be smtp:\/\//);
    expect(() => load_config({ IDP_SMTP_URL: "smtps://mail.example.com?starttls=required", IDP_MAIL_FROM: FROM })).toThrow(/IDP_SMTP_URL/);
    expect(() => load_config({ IDP_SMTP_URL: "smtp://mail.example.com", IDP_MAIL_FROM: "not an address" })).toThrow(/mail_from \(IDP_MAIL_FROM\): must be an e-mail address/);
    try {
      load_config({ IDP_SMTP_URL: "https://u:secretpw@mail.example.com" });
    } catch (error) {
      expect(String(error)).not.toContain("secretpw");
    }
    expect(load_config({ IDP_SMTP_URL: "smtp://mail.example.com:2525?starttls=required", IDP_MAIL_FROM: FROM }).smtp_url).toBe("smtp://mail.example.com:2525?starttls=required");
  });
});

if (await use_postgres()) {
  describe("two instances on one PostgreSQL database", () => {
    test("every message is sent exactly once", async () => {
      const db = await create_temp_database();
      const smtp = await start_smtp();
      const first = await start_provider({ database_url: db.url, config: { smtp_url: smtp.url, mail_from: FROM } });
      const store = await open_store(db.url, { max: 4 });
      const port = await free_port();
      const config = load_config(
        {},
        { issuer: first.issuer, port, host: "127.0.0.1", database_url: db.url, signing_algs: ["RS256", "ES256"], log_requests: false, smtp_url: smtp.url, mail_from: FROM },
      );
      const second = await serve(config, { store, port, log: () => {}, out: () => {}, mail_worker: TEST_MAIL_WORKER });
      try {
        const recipients = Array.from({ length: 30 }, (_, i) => `user${i}@example.com`);
        // Both instances queue and wake their workers at once; each also polls the other's mail.
        await Promise.all(recipients.map((to, i) => (i % 2 ? second.provider : first.provider).mail.send({ to, template: "test", data: {} })));
        for (const to of recipients) await smtp.wait_for(to, undefined, 15_000);
        await eventually(async () => ((await store.count_mail()).sent === 30 ? true : undefined), "30 sent rows");
        // Two more polls of both workers: nothing is sent again.
        await sleep(2 * TEST_MAIL_WORKER.poll_ms! + 100);
        expect(smtp.messages).toHaveLength(30);
        expect(new Set(smtp.messages.map((m) => m.to)).size).toBe(30);
        expect((await store.list_mail()).every((m) => m.attempts === 1)).toBe(true);
      } finally {
        await second.stop();
        await store.close();
        await first.stop();
        await smtp.stop();
        await db.drop();
      }
      // Two providers started and 30 messages through SMTP: about 4 s on Bun and on Deno, too near
      // the default 5 s on a loaded CI machine.
    }, 20_000);
  });
}
