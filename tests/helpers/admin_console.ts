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
  return found === null
    ? null
    : found[1]!
        .replace(/<[^>]+>/g, "")
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, "&")
        .trim();
}

/** The form of a confirmation page's danger zone: where it posts and its hidden fields; null when the page refuses (no form). */
export function confirm_form(html: string): { action: string; fields: Record<string, string> } | null {
  const zone = /<section class="section danger-zone"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
  const form = /<form method="post" action="([^"]*)"[\s\S]*?<\/form>/.exec(zone);
  if (form === null) return null;
  const fields: Record<string, string> = {};
  for (const input of form[0].matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[input[1]!] = input[2]!.replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  return { action: form[1]!.replace(/&amp;/g, "&"), fields };
}

/**
 * Opens the confirmation page at `url` and posts its form with `password` (none: the field left
 * empty): the answer's status and page.
 */
export async function confirm(browser: Browser, url: string, password: string | undefined): Promise<{ status: number; html: string; location: string | null }> {
  const { html } = await console_page(browser, url);
  const form = confirm_form(html);
  if (form === null) throw new Error(`${url} has no confirmation form: ${alert_text(html)}`);
  const answer = await browser.post(form.action, { ...form.fields, ...(password === undefined ? {} : { password }) });
  return { status: answer.status, html: await answer.text(), location: answer.headers.get("location") };
}

function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/**
 * The fields the form `id` of a page would send, as a browser sends them: hidden and text inputs,
 * checked checkboxes (a name repeated), textareas, the selected option of each select.
 */
export function form_fields(html: string, id: string): [string, string][] {
  const form = new RegExp(`<form [^>]*id="${id}"[\\s\\S]*?</form>`).exec(html)?.[0];
  if (form === undefined) throw new Error(`no form #${id}`);
  const attribute = (tag: string, name: string) => {
    const found = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
    return found === null ? null : decode(found[1]!);
  };
  const fields: [string, string][] = [];
  for (const found of form.matchAll(/<input [^>]*>|<textarea [^>]*>[\s\S]*?<\/textarea>|<select [^>]*>[\s\S]*?<\/select>/g)) {
    const tag = found[0];
    const name = attribute(tag, "name");
    if (name === null) continue;
    if (tag.startsWith("<textarea")) fields.push([name, decode(/>([\s\S]*?)<\/textarea>/.exec(tag)![1]!)]);
    else if (tag.startsWith("<select")) {
      const options = [...tag.matchAll(/<option value="([^"]*)"( selected)?>/g)];
      const chosen = options.find((option) => option[2] !== undefined) ?? options[0];
      if (chosen !== undefined) fields.push([name, decode(chosen[1]!)]);
    } else if (attribute(tag, "type") === "checkbox") {
      if (/\schecked[\s>]/.test(tag)) fields.push([name, attribute(tag, "value") ?? "on"]);
    } else fields.push([name, attribute(tag, "value") ?? ""]);
  }
  return fields;
}

/** `fields` with the fields named in `changes` replaced (a list replaces every field of that name; "" removes a checkbox). */
export function with_fields(fields: [string, string][], changes: Record<string, string | string[] | boolean>): [string, string][] {
  const out = fields.filter(([name]) => !Object.hasOwn(changes, name));
  for (const [name, value] of Object.entries(changes)) {
    if (value === false) continue;
    if (value === true) out.push([name, "on"]);
    else for (const one of Array.isArray(value) ? value : [value]) out.push([name, one]);
  }
  return out;
}
