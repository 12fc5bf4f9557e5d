/**
 * The console's registration tokens (/admin/registration-tokens, RFC 7591 §3 initial access
 * tokens): the list (id, dates, uses left, status; never the token or its hash), the create form
 * (expiry presets, uses or no limit; the rules of `idp registration-token create`), the token
 * shown once and working at POST /register, the revocation through its confirmation page, the
 * roles (the auditor reads, the helpdesk gets 403), and the page's word when IDP_REGISTRATION is
 * not `token`. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, confirm, confirm_form, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, register } from "./register_helpers.ts";

let t: TestProvider;
let root: UserRow;
let browser: Browser;
let as_auditor: Browser;
let as_helpdesk: Browser;

beforeAll(async () => {
  t = await start_provider({ config: { admin_console: { auditor_group: "auditors", helpdesk_group: "helpdesk" } } });
  root = await t.add_user({ username: "root" });
  const auditor = await t.add_user({ username: "audrey" });
  const helper = await t.add_user({ username: "hal" });
  for (const [group, user] of [
    ["admins", root],
    ["auditors", auditor],
    ["helpdesk", helper],
  ] as const) {
    const row = await t.store.create_group({ name: group, description: null });
    await t.store.add_group_member(row.id, user.id, t.clock.now());
  }
  browser = await console_browser(t, root);
  as_auditor = await console_browser(t, auditor);
  as_helpdesk = await console_browser(t, helper);
});

afterAll(async () => {
  await t.stop();
});

function main(html: string): string {
  return /<main[\s\S]*<\/main>/.exec(html)![0];
}

async function create(form: Record<string, string>): Promise<{ status: number; html: string }> {
  const { csrf } = await console_page(browser, `${t.url}/admin/registration-tokens`);
  const answer = await browser.post(`${t.url}/admin/registration-tokens`, { csrf: csrf!, ...form });
  return { status: answer.status, html: await answer.text() };
}

/** The token and its id on the page that shows it once. */
function shown(html: string): { token: string; id: string } {
  return { token: /<code id="registration-token" class="secret">([^<]+)<\/code>/.exec(html)![1]!, id: /<code id="token-id">([^<]+)<\/code>/.exec(html)![1]! };
}

/** The list's row of the token `id`, tags removed. */
async function row_of(id: string, as: Browser = browser): Promise<string | null> {
  const { html } = await console_page(as, `${t.url}/admin/registration-tokens`);
  const row = new RegExp(`<tr><td class="nowrap"><code>${id}</code>[\\s\\S]*?</tr>`).exec(html)?.[0];
  return row === undefined
    ? null
    : row
        .replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ")
        .trim();
}

describe("admin console: registration tokens", () => {
  test("creates a token: shown once with how to use it, registers clients at POST /register until its uses run out; the list never shows it", async () => {
    const { status, html } = await create({ expires_in: "86400", uses: "2" });
    expect(status).toBe(201);
    const { token, id } = shown(html);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(html).toContain("Copy the token now: it is shown only this once and stored only as a hash.");
    expect(html).toContain(`<code>Authorization: Bearer</code> followed by the token, with the registration request to <code>${t.issuer}/register</code>`);
    expect(html).not.toContain('id="registration-mode"');
    expect(await t.store.find_initial_access_token(sha256(token))).toMatchObject({ id, uses_left: 2 });
    expect((await t.store.find_initial_access_token(sha256(token)))!.expires_at! - (await t.store.find_initial_access_token(sha256(token)))!.created_at).toBe(86_400);

    const listed = await console_page(browser, `${t.url}/admin/registration-tokens`);
    expect(listed.html).not.toContain(token);
    expect(listed.html).not.toContain(sha256(token));
    expect(await row_of(id)).toMatch(new RegExp(`^${id} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC 2 active Revoke$`));

    expect((await register(t, WEB_CLIENT, { token })).status).toBe(201);
    expect(await row_of(id)).toContain(" 1 active ");
    expect((await register(t, WEB_CLIENT, { token })).status).toBe(201);
    expect(await row_of(id)).toContain(" 0 used up ");
    expect((await register(t, WEB_CLIENT, { token })).status).toBe(401);

    const events = await t.store.list_audit_events({ type: "admin_console", limit: 20 });
    const created = events.find((event) => event.details?.action === "registration_token_created")!;
    expect(created.details).toMatchObject({ actor: `user:${root.id}`, id, uses_left: 2 });
    expect(JSON.stringify(events)).not.toContain(token);
  });

  test("the presets: 1 hour, 24 hours (the default), 7 days, never; no number of uses is no limit", async () => {
    const { html } = await console_page(browser, `${t.url}/admin/registration-tokens`);
    expect([...html.matchAll(/name="expires_in" value="(\d+)"( checked)?/g)].map((m) => `${m[1]}${m[2] ?? ""}`)).toEqual(["3600", "86400 checked", "604800", "0"]);
    for (const [expires_in, lifetime] of [
      ["3600", 3600],
      ["604800", 604_800],
      ["0", null],
    ] as const) {
      const { status, html: page } = await create({ expires_in, uses: "" });
      expect(status).toBe(201);
      const row = (await t.store.find_initial_access_token(sha256(shown(page).token)))!;
      expect([row.expires_at === null ? null : row.expires_at - row.created_at, row.uses_left]).toEqual([lifetime, null]);
    }
    const { html: never } = await create({ expires_in: "0", uses: "" });
    expect(never).toMatch(/<dt>Expires<\/dt><dd>never<\/dd>/);
    expect(never).toMatch(/<dt>Uses left<\/dt><dd>no limit<\/dd>/);
    expect(await row_of(shown(never).id)).toMatch(/ UTC never no limit active Revoke$/);
  });

  test("bad input is refused with the rule's words, the form kept as typed, and no token made", async () => {
    const before = (await t.store.list_initial_access_tokens()).length;
    for (const [form, words] of [
      [{ expires_in: "86400", uses: "0" }, "uses: must be a whole number from 1 to 1000000, or no limit"],
      [{ expires_in: "86400", uses: "many" }, "uses: must be a whole number from 1 to 1000000, or no limit"],
      [{ expires_in: "86400", uses: "1000001" }, "uses: must be a whole number from 1 to 1000000, or no limit"],
      [{ expires_in: "soon", uses: "3" }, "expires_in: must be a whole number of seconds from 0 (never) to 315360000"],
      [{ expires_in: "999999999", uses: "3" }, "expires_in: must be a whole number of seconds from 0 (never) to 315360000"],
    ] as const) {
      const { status, html } = await create(form);
      expect([form, status]).toEqual([form, 422]);
      expect([form, alert_text(html)]).toEqual([form, words]);
      expect(html).toContain(`name="uses" type="text" inputmode="numeric" value="${form.uses}"`);
      expect(html).not.toContain('id="registration-token"');
    }
    // The preset typed stays chosen.
    const { html } = await create({ expires_in: "604800", uses: "x" });
    expect(html).toContain('name="expires_in" value="604800" checked');
    expect((await t.store.list_initial_access_tokens()).length).toBe(before);
  });

  test("a form without the console's token is refused and makes nothing", async () => {
    const before = (await t.store.list_initial_access_tokens()).length;
    expect((await browser.post(`${t.url}/admin/registration-tokens`, { expires_in: "3600" })).status).toBe(403);
    expect((await t.store.list_initial_access_tokens()).length).toBe(before);
  });

  test("revoke through the confirmation page: refused with a wrong password, then POST /register refuses the token", async () => {
    const { token, id } = shown((await create({ expires_in: "86400", uses: "" })).html);
    const registered = (await (await register(t, WEB_CLIENT, { token })).json()) as { client_id: string };
    const url = `${t.url}/admin/registration-tokens/confirm?action=revoke&id=${id}`;
    const { html } = await console_page(browser, url);
    expect(html).toContain('class="section danger-zone"');
    expect(html).toContain(`<code>${id}</code>`);
    expect(html).toContain(`The token <strong>${id}</strong> stops working at once`);
    expect(html).not.toContain(token);
    expect(confirm_form(html)).toMatchObject({ action: `${t.issuer}/admin/registration-tokens/revoke`, fields: { id } });
    // The list links to it.
    expect((await console_page(browser, `${t.url}/admin/registration-tokens`)).html).toContain(`href="${t.issuer}/admin/registration-tokens/confirm?action=revoke&amp;id=${id}"`);

    const wrong = await confirm(browser, url, "not my password");
    expect(wrong.status).toBe(403);
    expect(alert_text(wrong.html)).toBe("Your password is not right: nothing was changed.");
    expect(await t.store.find_initial_access_token(sha256(token))).not.toBeNull();

    const right = await confirm(browser, url, t.password);
    expect([right.status, right.location]).toEqual([303, `${t.issuer}/admin/registration-tokens?done=registration_token_revoked`]);
    expect((await console_page(browser, right.location!)).html).toContain("The registration token was revoked: POST /register no longer accepts it.");
    expect(await row_of(id)).toBeNull();
    const refused = await register(t, WEB_CLIENT, { token });
    expect(refused.status).toBe(401);
    // What it registered stays.
    expect(await t.store.get_client(registered.client_id)).not.toBeNull();
    const events = await t.store.list_audit_events({ type: "admin_console", limit: 2 });
    expect(events.map((event) => [event.outcome, event.details?.action, event.details?.id])).toEqual([
      ["success", "registration_token_revoked", id],
      ["failure", "registration_token_revoked", id],
    ]);
    await console_page(browser, url, 404);
  });

  test("the console's ordinary form token does not revoke", async () => {
    const { token, id } = shown((await create({ expires_in: "86400", uses: "" })).html);
    const { csrf } = await console_page(browser, `${t.url}/admin/registration-tokens`);
    expect((await browser.post(`${t.url}/admin/registration-tokens/revoke`, { csrf: csrf!, id, password: t.password })).status).toBe(403);
    expect(await t.store.find_initial_access_token(sha256(token))).not.toBeNull();
  });

  test("the auditor reads the list with no form or link; every change is refused (403)", async () => {
    const { token, id } = shown((await create({ expires_in: "86400", uses: "" })).html);
    const { html, csrf } = await console_page(as_auditor, `${t.url}/admin/registration-tokens`);
    const content = main(html);
    expect(content).toContain(`<code>${id}</code>`);
    expect(content).not.toContain('method="post"');
    expect(content).not.toContain("/confirm?");
    const before = (await t.store.list_initial_access_tokens()).length;
    await console_page(as_auditor, `${t.url}/admin/registration-tokens/confirm?action=revoke&id=${id}`, 403);
    expect((await as_auditor.post(`${t.url}/admin/registration-tokens`, { csrf: csrf!, expires_in: "3600" })).status).toBe(403);
    expect((await as_auditor.post(`${t.url}/admin/registration-tokens/revoke`, { csrf: csrf!, id, password: t.password })).status).toBe(403);
    expect((await t.store.list_initial_access_tokens()).length).toBe(before);
    expect(await t.store.find_initial_access_token(sha256(token))).not.toBeNull();
  });

  test("the helpdesk gets 403 on the page and its forms, and has no link to it", async () => {
    const { token, id } = shown((await create({ expires_in: "86400", uses: "" })).html);
    const { html, csrf } = await console_page(as_helpdesk, `${t.url}/admin/users`);
    expect(html).not.toContain(`href="${t.issuer}/admin/registration-tokens"`);
    const before = (await t.store.list_initial_access_tokens()).length;
    await console_page(as_helpdesk, `${t.url}/admin/registration-tokens`, 403);
    await console_page(as_helpdesk, `${t.url}/admin/registration-tokens/confirm?action=revoke&id=${id}`, 403);
    expect((await as_helpdesk.post(`${t.url}/admin/registration-tokens`, { csrf: csrf!, expires_in: "3600" })).status).toBe(403);
    expect((await as_helpdesk.post(`${t.url}/admin/registration-tokens/revoke`, { csrf: csrf!, id, password: t.password })).status).toBe(403);
    expect((await t.store.list_initial_access_tokens()).length).toBe(before);
    expect(await t.store.find_initial_access_token(sha256(token))).not.toBeNull();
  });
});

describe("admin console: registration tokens when IDP_REGISTRATION is not token", () => {
  for (const mode of ["open", "off"] as const) {
    test(`${mode}: the page says the tokens are not used`, async () => {
      const other = await start_provider({ config: { registration: mode } });
      try {
        const admin = await other.add_user({ username: "root" });
        const admins = await other.store.create_group({ name: "admins", description: null });
        await other.store.add_group_member(admins.id, admin.id, other.clock.now());
        const { html } = await console_page(await console_browser(other, admin), `${other.url}/admin/registration-tokens`);
        const words =
          mode === "open"
            ? "<code>IDP_REGISTRATION</code> is <code>open</code>: anyone may register without a token, so these tokens are not asked for."
            : "<code>IDP_REGISTRATION</code> is <code>off</code>: there is no registration endpoint, so these tokens are not used.";
        expect(html).toContain(`<p class="notice warning" id="registration-mode">${words}</p>`);
      } finally {
        await other.stop();
      }
    });
  }

  test("token: no such word", async () => {
    expect((await console_page(browser, `${t.url}/admin/registration-tokens`)).html).not.toContain('id="registration-mode"');
  });
});
