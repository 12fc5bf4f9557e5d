/**
 * The admin console over plain HTTP (no Chromium): a browser signed in as an administrator
 * whose session used a second factor (a session started in the store, as the sign-in would),
 * and the pieces of a console page the tests read.
 */
import { start_session } from "../../src/oidc/signin/sessions.ts";
import type { UserRow } from "../../src/store/types.ts";
import { Browser, hidden_field } from "./browser.ts";
import type { TestProvider } from "./provider.ts";

/** A browser with a console session of `user` (password and TOTP in its amr). */
export async function console_browser(t: TestProvider, user: UserRow): Promise<Browser> {
  const browser = new Browser();
  const { cookie } = await start_session(t.provider, user, ["pwd", "otp"]);
  browser.cookies.set(cookie.name, cookie.value);
  return browser;
}

/** A console page's HTML (expecting `status`) and the form token of its first form. */
export async function console_page(browser: Browser, url: string, status = 200): Promise<{ html: string; csrf: string | null }> {
  const answer = await browser.get(url);
  const html = await answer.text();
  if (answer.status !== status) throw new Error(`${url} answered ${answer.status}, not ${status}: ${html.slice(0, 400)}`);
  return { html, csrf: hidden_field(html, "csrf") };
}

/** The text of a page's alert (role="alert"), tags removed; null when there is none. */
export function alert_text(html: string): string | null {
  const found = /<p class="alert" role="alert"[^>]*>([\s\S]*?)<\/p>/.exec(html);
  return found === null ? null : found[1]!.replace(/<[^>]+>/g, "").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&").trim();
}
