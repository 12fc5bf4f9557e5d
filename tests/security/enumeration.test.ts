/**
 * Sign-in without user enumeration (OWASP Authentication Cheat Sheet, "Authentication Responses";
 * RFC 9700 does not cover it): an unknown username and a wrong password get the same page — the
 * same status, headers that matter and HTML once the per-browser form token and the echoed
 * username are set aside — and the same work: exactly one argon2id verification each (a dummy
 * hash for the unknown user, platform/passwords.ts). Checked structurally by counting calls to
 * the argon2id implementation in use (`argon2_impl.verify`: libsodium or Bun.password), not with
 * a stopwatch (tests never assert on wall-clock time).
 */
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "../helpers/test_api.ts";
import { argon2_impl } from "../../src/platform/passwords.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let verify: ReturnType<typeof spyOn<typeof argon2_impl, "verify">>;
beforeAll(async () => {
  t = await start_provider();
  verify = spyOn(argon2_impl, "verify");
});
afterEach(() => verify.mockClear());
afterAll(async () => {
  verify.mockRestore();
  await t.stop();
});

type Attempt = { status: number; html: string; headers: Record<string, string | null>; argon2_calls: number };

/** The page without what differs by design: the form token, the interaction id and the username typed in. */
function normalize(html: string, username: string): string {
  return (
    html
      .replace(/name="csrf" value="[^"]*"/g, 'name="csrf" value=""')
      .replace(/\/interaction\/[^/"]+\//g, "/interaction/ID/")
      // The "Forgot password?" link carries the interaction too.
      .replace(/interaction=[A-Za-z0-9_-]+/g, "interaction=ID")
      .replaceAll(`value="${username}"`, 'value=""')
  );
}

async function app_attempt(username: string, password: string): Promise<Attempt> {
  const browser = new Browser();
  const p = pkce();
  const start = await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }));
  const page = await (await browser.get(new URL(start.headers.get("location")!, t.url).href)).text();
  verify.mockClear();
  const response = await browser.post(form_action(page)!, { csrf: hidden_field(page, "csrf")!, username, password });
  return read(response, username);
}

async function account_attempt(username: string, password: string): Promise<Attempt> {
  const browser = new Browser();
  const page = await (await browser.get(`${t.url}/account/login`)).text();
  verify.mockClear();
  return read(await browser.post(`${t.url}/account/login`, { csrf: hidden_field(page, "csrf")!, username, password }), username);
}

async function read(response: Response, username: string): Promise<Attempt> {
  const pick = (name: string) => response.headers.get(name);
  return {
    status: response.status,
    html: normalize(await response.text(), username),
    headers: {
      "content-type": pick("content-type"),
      // Which cookies are set and how, not their (random, per-browser) values.
      "set-cookie": response.headers
        .getSetCookie()
        .map((line) => line.replace(/=[^;]*/, "=…"))
        .join("\n"),
      location: pick("location"),
      "content-security-policy": pick("content-security-policy"),
    },
    argon2_calls: verify.mock.calls.length,
  };
}

describe.each([
  ["the sign-in for an application", app_attempt],
  ["the account page's sign-in", account_attempt],
])("%s", (_name, attempt) => {
  test("an unknown username and a wrong password get the same page", async () => {
    const wrong = await attempt("alice", "not her password");
    const unknown = await attempt("nobody-by-this-name", "not her password");
    expect(wrong.status).toBe(200);
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.headers).toEqual(wrong.headers);
    expect(unknown.html).toBe(wrong.html);
    expect(wrong.html).toContain("Wrong username or password.");
  });

  test("both cost exactly one argon2id verification (a dummy hash for the unknown user)", async () => {
    expect((await attempt("alice", "not her password")).argon2_calls).toBe(1);
    expect((await attempt("nobody-by-this-name", "not her password")).argon2_calls).toBe(1);
    // An empty username is no shortcut either.
    expect((await attempt("", "x")).argon2_calls).toBe(1);
    // The dummy hash has the configured parameters, so it costs what a real one costs.
    const dummy = verify.mock.calls.at(-1)![1];
    expect(dummy).toContain(`m=${t.config.argon2.memory_kib},t=${t.config.argon2.time_cost}`);
  });

  test("usernames differing only in case are one user, so case does not tell either", async () => {
    const lower = await attempt("alice", "nope");
    const upper = await attempt("ALICE", "nope");
    expect(upper.html).toBe(lower.html);
    expect(upper.argon2_calls).toBe(1);
  });
});

test("the audit event of a failed sign-in for an unknown user names no user and keeps no username", async () => {
  await app_attempt("typed-a-password-here-by-mistake", "x");
  const [event] = await t.store.list_audit_events({ type: "login", limit: 1 });
  expect(event).toMatchObject({ outcome: "failure", user_id: null });
  expect(JSON.stringify(event)).not.toContain("typed-a-password-here-by-mistake");
});
