/**
 * Forgot password without account enumeration (OWASP Forgot Password Cheat Sheet: "return a
 * consistent message for both existent and non-existent accounts", "ensure that responses
 * return in a consistent amount of time"): an existing account, an unknown name and an account
 * without an address get the same status, headers that matter and body; and the answer does not
 * wait for the account lookup or the mail at all. Checked structurally, not with a stopwatch:
 * the lookup is held until the answer has arrived.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "../helpers/test_api.ts";
import { settle_password_reset_requests } from "../../src/oidc/accounts/password_reset.ts";
import { Browser, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

let t: TestProvider;
let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await start_smtp();
  t = await start_provider({ config: { smtp_url: smtp.url, mail_from: "idp@example.com" } });
  await t.store.create_user({ username: "silent", password_hash: "x" });
});
afterAll(async () => {
  await t.stop();
  await smtp.stop();
});

type Answer = { status: number; body: string; headers: Record<string, string | null> };

async function ask(browser: Browser, identifier: string): Promise<Answer> {
  const page = await (await browser.get(`${t.url}/password/forgot`)).text();
  const response = await browser.post(`${t.url}/password/forgot`, { csrf: hidden_field(page, "csrf")!, identifier });
  const pick = (name: string) => response.headers.get(name);
  return {
    status: response.status,
    body: await response.text(),
    headers: {
      "content-type": pick("content-type"),
      "set-cookie": pick("set-cookie"),
      "cache-control": pick("cache-control"),
      "content-security-policy": pick("content-security-policy"),
      location: pick("location"),
      "retry-after": pick("retry-after"),
    },
  };
}

describe("forgot password reveals nothing about accounts", () => {
  test("an account, an unknown name, an unknown address and an account without an address: the same answer", async () => {
    const browser = new Browser();
    const answers = [
      await ask(browser, "alice"),
      await ask(browser, "nobody"),
      await ask(browser, "nobody@example.com"),
      await ask(browser, "silent"),
      await ask(browser, "alice@example.com"),
    ];
    for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]!);
    expect(answers[0]!.status).toBe(200);
    await settle_password_reset_requests();
    // Only the real account with an address got mail (twice: by name and by address).
    await smtp.wait_for("alice@example.com");
    await smtp.wait_for("alice@example.com");
  });

  test("the answer arrives while the account lookup is still held: it cannot depend on it", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const original = t.store.get_user_by_username.bind(t.store);
    const lookup = spyOn(t.store, "get_user_by_username").mockImplementation(async (name: string) => {
      order.push("lookup started");
      await held;
      order.push("lookup done");
      return original(name);
    });
    try {
      const answer = await ask(new Browser(), "alice");
      order.push("answered");
      expect(answer.status).toBe(200);
      expect(answer.body).toContain("Check your e-mail.");
      release();
      await settle_password_reset_requests();
      expect(order).toEqual(["lookup started", "answered", "lookup done"]);
      await smtp.wait_for("alice@example.com");
    } finally {
      release();
      lookup.mockRestore();
    }
  });
});
