/**
 * `idp users send-reset USER`: the CLI queues a password reset link in the outbox of the
 * server's database; the running server (a real one, on the same SQLite file) delivers it to a
 * real SMTP server, and the link opens the reset page. Clear errors for a user without an
 * address, an invited user, and mail that is off; set-password voids the links.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { join } from "node:path";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
let smtp: TestSmtp;
let t: TestProvider;
let env: Record<string, string>;

beforeAll(async () => {
  box = sandbox();
  smtp = await start_smtp();
  t = await start_provider({ database_url: `sqlite:${join(box.dir, "x.sqlite")}`, config: { smtp_url: smtp.url, mail_from: "idp@example.com" } });
  env = { IDP_ISSUER: t.issuer, IDP_SMTP_URL: smtp.url, IDP_MAIL_FROM: "idp@example.com" };
});
afterAll(async () => {
  await t.stop();
  await smtp.stop();
  box.cleanup();
});

describe("idp users send-reset", () => {
  test("queues a reset link the server delivers; the link opens the reset page; audited", async () => {
    const result = await box.run(["users", "send-reset", "ALICE"], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Queued a password reset link for alice to alice@example.com");
    const mail = await smtp.wait_for("alice@example.com", (m) => m.subject.startsWith("Reset your password"));
    const link = smtp.link(mail, `${t.issuer}/password/reset?token=`);
    // The CLI's own output never shows the link.
    expect(result.stdout).not.toContain(new URL(link).searchParams.get("token")!);
    const page = await new Browser().get(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Choose a new password");
    const events = await t.store.list_audit_events({ user_id: t.user.id, type: "password_reset_requested" });
    expect(events[0]?.details).toMatchObject({ via: "cli" });

    // A newer link voids this one; so does a password set by the CLI.
    const json = await box.run(["users", "send-reset", "alice", "--json"], { env });
    expect(json.json()).toMatchObject({ username: "alice", email: "alice@example.com" });
    expect((await new Browser().get(link)).status).toBe(400);
    const newer = smtp.link(await smtp.wait_for("alice@example.com", (m) => m.subject.startsWith("Reset your password")), `${t.issuer}/password/reset?token=`);
    expect((await box.run(["users", "set-password", "alice", "--password-stdin"], { env, stdin: "set by the admin 1\n" })).code).toBe(0);
    expect((await new Browser().get(newer)).status).toBe(400);
  });

  test("refused with a clear error: no address, invited, unknown user, mail off, missing argument", async () => {
    await t.store.create_user({ username: "noaddress", password_hash: "x" });
    await t.store.create_user({ username: "invitee", password_hash: "", status: "invited", email: "invitee@example.com" });
    const no_address = await box.run(["users", "send-reset", "noaddress"], { env });
    expect([no_address.code, no_address.stderr]).toEqual([1, 'error: user "noaddress" has no e-mail address to send a reset link to (set one, or use idp users set-password)\n']);
    const invited = await box.run(["users", "send-reset", "invitee"], { env });
    expect(invited.code).toBe(1);
    expect(invited.stderr).toContain("is invited and has no password yet");
    const unknown = await box.run(["users", "send-reset", "nobody"], { env });
    expect([unknown.code, unknown.stderr]).toEqual([1, 'error: no user "nobody"\n']);
    const off = await box.run(["users", "send-reset", "alice"], { env: { IDP_PRODUCTION: "true", IDP_ISSUER: "https://idp.example.com" } });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("mail is off");
    expect((await box.run(["users", "send-reset"], { env })).code).toBe(2);
  });

  test("the password policy applies to add and set-password", async () => {
    const common = await box.run(["users", "add", "carol", "--password-stdin"], { env, stdin: "qwertyuiop\n" });
    expect(common.code).toBe(1);
    expect(common.stderr).toContain("one of the most common passwords");
    const own_name = await box.run(["users", "add", "carol", "--password-stdin", "--email", "c.arol@example.com"], { env, stdin: "my name is Carol ok\n" });
    expect(own_name.stderr).toContain("must not be or contain your username");
    const local_part = await box.run(["users", "add", "carol", "--password-stdin", "--email", "c.arol@example.com"], { env, stdin: "hello C.AROL friend\n" });
    expect(local_part.stderr).toContain("must not be or contain your e-mail address");
    const long = await box.run(["users", "set-password", "alice", "--password-stdin"], { env, stdin: `${"x".repeat(1025)}\n` });
    expect(long.stderr).toContain("too long: use at most 1024 characters");
    expect((await box.run(["users", "list", "--json"], { env })).json<{ username: string }[]>().map((u) => u.username)).not.toContain("carol");
  });
});
