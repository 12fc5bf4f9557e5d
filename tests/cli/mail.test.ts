/**
 * `idp mail list|retry|test` against a real SMTP server (tests/helpers/smtp.ts), and the SMTP
 * password masked by `idp config check`.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { open_store } from "../../src/store/open.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

const PASSWORD = "cli-smtp-secret-9f8e7d";

let box: Sandbox;
let smtp: TestSmtp;
let smtp_env: Record<string, string>;

beforeAll(async () => {
  box = sandbox();
  smtp = await start_smtp({ user: "mailer", password: PASSWORD });
  smtp_env = { IDP_SMTP_URL: smtp.url, IDP_MAIL_FROM: "idp@example.com", IDP_ISSUER: "https://idp.example.com" };
});
afterAll(async () => {
  await smtp.stop();
  box.cleanup();
});

describe("idp mail test", () => {
  test("with SMTP: delivers at once and reports it", async () => {
    const result = await box.run(["mail", "test", "ops@example.com"], { env: smtp_env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("sent to ops@example.com through smtp://mailer:********@127.0.0.1:");
    expect(result.stdout).not.toContain(PASSWORD);
    const mail = await smtp.wait_for("ops@example.com");
    expect(mail).toMatchObject({ subject: "Test message from idp.example.com", from: "idp@example.com", auth_user: "mailer" });
    expect(mail.text).toContain("https://idp.example.com");
    expect(mail.html).toContain('<html lang="en">');

    const json = await box.run(["mail", "test", "ops@example.com", "--json"], { env: smtp_env });
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ status: "sent", delivered: true });
    await smtp.wait_for("ops@example.com");
  });

  test("SMTP unreachable: exit 1 with the reason; the message stays queued for the server", async () => {
    await smtp.stop();
    try {
      const result = await box.run(["mail", "test", "later@example.com"], { env: smtp_env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/not delivered through smtp:\/\/mailer:\*{8}@127\.0\.0\.1:\d+: .*(ECONNREFUSED|connect)/i);
      expect(result.stderr).toContain("stays queued");
      expect(result.stderr).not.toContain(PASSWORD);
    } finally {
      await smtp.start();
    }
    const listed = await box.run(["mail", "list", "--json"]);
    const rows = listed.json<Record<string, unknown>[]>();
    expect(rows.find((r) => r.recipient === "later@example.com")).toMatchObject({ status: "queued", attempts: 1 });
  });

  test("a refused recipient: exit 1, the message is failed", async () => {
    smtp.reject("nobody@example.com");
    const result = await box.run(["mail", "test", "nobody@example.com"], { env: smtp_env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("550");
    const failed = (await box.run(["mail", "list", "--failed", "--json"])).json<Record<string, unknown>[]>();
    expect(failed.map((r) => r.recipient)).toEqual(["nobody@example.com"]);
  });

  test("development without SMTP: queued for the server's log", async () => {
    const result = await box.run(["mail", "test", "dev@example.com"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("writes it to its log");
  });

  test("production without SMTP: mail is off", async () => {
    const result = await box.run(["mail", "test", "prod@example.com"], { env: { IDP_PRODUCTION: "true", IDP_ISSUER: "https://idp.example.com" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("mail is off");
  });

  test("a bad address or a missing one", async () => {
    const bad = await box.run(["mail", "test", "not an address"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"not an address" is not an e-mail address');
    const missing = await box.run(["mail", "test"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing argument <ADDRESS>");
  });
});

describe("idp mail list and retry", () => {
  test("list: newest first, statuses, no bodies", async () => {
    const result = await box.run(["mail", "list"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^id\s+status\s+to\s+template\s+attempts/i);
    expect(result.stdout).toContain("dev@example.com");
    expect(result.stdout).toContain("nobody@example.com");
    expect(result.stdout).not.toContain("outgoing mail works");
    // Newest first: the last test's message is on the first row.
    expect(lines[1]).toContain("dev@example.com");
    const json = (await box.run(["mail", "list", "--json", "--limit", "2"])).json<Record<string, unknown>[]>();
    expect(json).toHaveLength(2);
    for (const row of json) expect(Object.keys(row)).not.toContainEqual(expect.stringMatching(/^(text|html)$/));
  });

  test("retry: a failed message goes back to the queue; anything else is refused", async () => {
    const [failed] = (await box.run(["mail", "list", "--failed", "--json"])).json<{ id: string }[]>();
    const retried = await box.run(["mail", "retry", failed!.id]);
    expect(retried.code).toBe(0);
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      expect(await store.get_mail(failed!.id)).toMatchObject({ status: "queued", attempts: 0, last_error: null });
    } finally {
      await store.close();
    }
    const again = await box.run(["mail", "retry", failed!.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is queued, not failed");
    const unknown = await box.run(["mail", "retry", "no-such-id"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no mail "no-such-id"');
  });

  test("list --failed on an empty result, and the help", async () => {
    expect((await box.run(["mail", "list", "--failed"])).stdout).toBe("No failed mail.\n");
    const help = await box.run(["mail", "--help"]);
    expect(help.stdout).toContain("idp mail list [--failed]");
  });
});

test("idp config check masks the SMTP password", async () => {
  const result = await box.run(["config", "check", "--json"], { env: smtp_env });
  expect(result.code).toBe(0);
  expect(result.stdout).not.toContain(PASSWORD);
  expect(result.json<{ config: { smtp_url: string; mail_from: string } }>().config).toMatchObject({
    smtp_url: `smtp://mailer:********@127.0.0.1:${smtp.port}`,
    mail_from: "idp@example.com",
  });
  const text = await box.run(["config", "check"], { env: smtp_env });
  expect(text.stdout).toContain("smtp_url");
  expect(text.stdout).not.toContain(PASSWORD);
});
