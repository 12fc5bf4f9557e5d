/**
 * The account page's list of sessions in Chromium: each browser with its address and times,
 * this one marked, axe clean (light and dark); signing out another session really ends it (its
 * cookie no longer opens the account), and "everywhere else" ends the rest but not this one.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Browser as FetchBrowser, account_login } from "../helpers/browser.ts";
import { PHONE, axe, chromium_available, launch, overflow, screenshots, serious } from "../helpers/chromium.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { describe_user_agent } from "../../src/http/pages/sessions.ts";

const IPHONE_SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

let t: TestProvider;
let browser: Browser;

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider();
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await t.stop();
});

async function signed_in(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${t.url}/account`);
  await page.getByLabel("Username").fill("alice");
  await page.getByLabel("Password").fill(t.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${t.url}/account`);
  return page;
}

describe("describe_user_agent", () => {
  test("names common browsers and systems, and says so when it cannot", () => {
    expect(describe_user_agent(IPHONE_SAFARI)).toBe("Safari on iOS");
    expect(describe_user_agent("Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0")).toBe("Firefox on Linux");
    expect(describe_user_agent("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36 Edg/129.0.0.0")).toBe(
      "Edge on Windows",
    );
    expect(describe_user_agent("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36")).toBe("Chrome on macOS");
    expect(describe_user_agent("curl/8.5.0")).toBe("curl");
    expect(describe_user_agent(null)).toBe("Unknown browser");
  });
});

describe.skipIf(!chromium_available)("account page: where you are signed in", () => {
  test("lists every session, this one first and marked; signing out one and all others ends them", async () => {
    // bypassCSP: only so axe can be injected (chromium.ts).
    const here = await browser.newContext({ bypassCSP: true, reducedMotion: "reduce" });
    const phone = await browser.newContext({ userAgent: IPHONE_SAFARI });
    const phone_page = await signed_in(phone);
    const script = new FetchBrowser();
    expect((await account_login(t, script, "alice", t.password)).status).toBe(303);
    const page = await signed_in(here);

    const items = page.locator("ul.sessions > li");
    expect(await items.count()).toBe(3);
    const first = items.nth(0);
    expect(await first.getByRole("heading").innerText()).toContain("This browser");
    expect(await first.getByRole("button").count()).toBe(0);
    const phone_item = items.filter({ hasText: "Safari on iOS" });
    expect(await phone_item.count()).toBe(1);
    expect(await phone_item.locator("dd").first().innerText()).toBe("127.0.0.1");
    expect(await phone_item.innerText()).toMatch(/Last seen\s+\d{1,2} \w+ \d{4}, \d\d:\d\d UTC/);
    // The fetch browser sent Bun's own User-Agent.
    expect(await items.filter({ hasText: "Bun" }).count()).toBe(1);

    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      expect({ scheme, problems: serious(await axe(page)) }).toEqual({ scheme, problems: [] });
    }
    await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
    await page.setViewportSize(PHONE);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.locator("#sessions-heading").scrollIntoViewIfNeeded();
    await screenshots(page, "account-sessions");

    // Sign out the phone: its cookie no longer opens the account.
    await phone_item.getByRole("button", { name: /^Sign out Safari on iOS, last seen/ }).click();
    await page.waitForURL(`${t.url}/account?done=session_ended`);
    expect(await page.locator("p.notice").innerText()).toBe("That session was signed out.");
    expect(await page.locator("ul.sessions > li").count()).toBe(2);
    await phone_page.goto(`${t.url}/account`);
    expect(phone_page.url()).toBe(`${t.url}/account/login`);

    // Everywhere else: the script's session ends, this one stays.
    await page.getByRole("button", { name: "Sign out everywhere else" }).click();
    await page.waitForURL(`${t.url}/account?done=sessions_ended`);
    expect(await page.locator("ul.sessions > li").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Sign out everywhere else" }).count()).toBe(0);
    const answer = await script.get(`${t.url}/account`);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(`${t.url}/account/login`);
    expect((await t.store.list_sessions_for_user(t.user.id)).length).toBe(1);
    const logouts = await t.store.list_audit_events({ type: "logout", user_id: t.user.id });
    expect(logouts.filter((e) => (e.details as { initiator?: string }).initiator === "account").length).toBe(2);

    await here.close();
    await phone.close();
  }, 60_000);

  test("a forged or foreign request ends nothing", async () => {
    const other = await t.add_user({ username: "mallory" });
    const victim = new FetchBrowser();
    await account_login(t, victim, "alice", t.password);
    const attacker = new FetchBrowser();
    await account_login(t, attacker, other.username, t.password);
    const [alice_session] = (await t.store.list_sessions_for_user(t.user.id)).slice(-1);
    const { session_sid } = await import("../../src/oidc/logout/sid.ts");
    const page = await attacker.get(`${t.url}/account`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    // Mallory names Alice's session: it is not one of hers, so nothing happens.
    const answer = await attacker.post(`${t.url}/account/sessions`, { csrf, session: session_sid(alice_session!.id_hash) });
    expect(answer.status).toBe(303);
    expect(await t.store.get_session(alice_session!.id_hash)).not.toBeNull();
    // Without the form token: refused.
    const forged = await victim.post(`${t.url}/account/sessions`, { others: "1" });
    expect(forged.status).toBe(403);
    const bad = await victim.post(`${t.url}/account/sessions`, { csrf: "x", session: "not-a-sid" });
    expect(bad.status).toBe(400);
  });

  test("last seen moves when the session is used, at most every five minutes", async () => {
    const before = new Set((await t.store.list_sessions_for_user(t.user.id)).map((s) => s.id_hash));
    const script = new FetchBrowser();
    await account_login(t, script, "alice", t.password);
    const mine = (await t.store.list_sessions_for_user(t.user.id)).find((s) => !before.has(s.id_hash))!;
    t.clock.advance(60);
    await script.get(`${t.url}/account`);
    expect((await t.store.get_session(mine.id_hash))!.last_seen_at).toBe(mine.last_seen_at);
    t.clock.advance(300);
    await script.get(`${t.url}/account`);
    expect((await t.store.get_session(mine.id_hash))!.last_seen_at).toBe(t.clock.now());
  });
});
