/**
 * The console's resource servers (/admin/resources, RFC 8707): the list, the add form (the rules
 * of `idp resources add`: the same words when they refuse, the form kept as typed, nothing
 * stored), the removal through its confirmation page (what it does, the applications whose token
 * exchange policy names the resource, the password), and the roles: the auditor reads, the
 * helpdesk gets 403. A resource added in the console gets tokens at /token; a removed one is
 * invalid_target there. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { create_resource_server } from "../../src/oidc/admin/resources.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, confirm, confirm_form, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

/** The HTML escape of the console's templates (Eta's: & < > " '). */
const escape_html = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

const EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

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

/** The page's own content (the footer's language switcher is a form of every page). */
function main(html: string): string {
  return /<main[\s\S]*<\/main>/.exec(html)![0];
}

/** A client_credentials token request naming `resource`: the status and body. */
async function token_for(client_id: string, secret: string, resource: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${client_id}:${secret}`)}` },
    body: new URLSearchParams({ grant_type: "client_credentials", resource }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

async function add(form: Record<string, string>): Promise<Response> {
  const { csrf } = await console_page(browser, `${t.url}/admin/resources`);
  return browser.post(`${t.url}/admin/resources`, { csrf: csrf!, ...form });
}

describe("admin console: resource servers", () => {
  test("the list shows each resource's URI, scopes, token format, lifetime and when it was added", async () => {
    await create_resource_server(t.store, { uri: "https://listed.example.com/", scopes: ["read:a", "write:a"], access_token_format: "jwt", access_token_ttl: 600 }, t.clock.now());
    await create_resource_server(t.store, { uri: "urn:example:plain", scopes: ["x"] }, t.clock.now());
    const html = main((await console_page(browser, `${t.url}/admin/resources`)).html);
    expect(html).toContain('<h1 id="content" tabindex="-1">Resource servers</h1>');
    expect(html).toMatch(
      /<tr><td class="nowrap"><code>https:\/\/listed\.example\.com\/<\/code><\/td><td><code>read:a<\/code> <code>write:a<\/code><\/td><td class="nowrap">JWT \(RFC 9068\)<\/td><td class="nowrap">600 s<\/td><td class="nowrap">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/td>/,
    );
    expect(html).toMatch(/<code>urn:example:plain<\/code><\/td><td><code>x<\/code><\/td><td class="nowrap">opaque<\/td><td class="nowrap">default \(3600 s\)<\/td>/);
    expect(html).toContain(`href="${t.issuer}/admin/resources/confirm?action=remove&amp;uri=${encodeURIComponent("urn:example:plain")}"`);
    // In the navigation of an administrator, after the applications.
    expect(html).toMatch(/Applications<\/a><\/li>\s*<li><a href="[^"]*\/admin\/resources" aria-current="page">Resource servers<\/a>/);
  });

  test("adds one with the add form: stored as typed, audited, and tokens for it are issued at /token", async () => {
    const added = await add({ uri: "  https://docs.example.com/api  ", scopes: "read:docs  write:docs", format: "jwt", ttl: "300" });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe(`${t.issuer}/admin/resources?done=resource_created`);
    expect(await t.store.get_resource_server("https://docs.example.com/api")).toMatchObject({
      scopes: ["read:docs", "write:docs"],
      access_token_format: "jwt",
      access_token_ttl: 300,
    });
    const { html } = await console_page(browser, added.headers.get("location")!);
    expect(html).toContain("The resource server was added: applications may now ask for tokens for it.");
    const [event] = await t.store.list_audit_events({ type: "admin_console", limit: 1 });
    expect(event!.details).toMatchObject({ actor: `user:${root.id}`, action: "resource_created", uri: "https://docs.example.com/api", access_token_format: "jwt" });

    const { client, secret } = await t.add_client({
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      scope: "read:docs",
      token_endpoint_auth_method: "client_secret_basic",
    });
    const issued = await token_for(client.client_id, secret!, "https://docs.example.com/api");
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ scope: "read:docs", expires_in: 300 });
    // An RFC 9068 JWT, audience-restricted to the resource.
    const claims = JSON.parse(Buffer.from((issued.body.access_token as string).split(".")[1]!, "base64url").toString()) as { aud: unknown };
    expect(claims.aud).toEqual("https://docs.example.com/api");
  });

  test("bad input is refused with the words of `idp resources add`, the form kept as typed, nothing stored", async () => {
    const cases: [Record<string, string>, string, number][] = [
      [{ uri: "https://x.example.com/#frag", scopes: "a" }, "uri: must not include a fragment (RFC 8707 §2)", 422],
      [{ uri: "relative/path", scopes: "a" }, "uri: must be an absolute URI (RFC 8707 §2)", 422],
      [{ uri: "https://x.example.com/", scopes: "  " }, "scopes: needs at least one scope the resource accepts", 422],
      [{ uri: "https://x.example.com/", scopes: 'a bad"scope' }, 'scopes: "bad"scope" is not a valid scope name (RFC 6749 §3.3)', 422],
      [{ uri: "https://x.example.com/", scopes: "a", format: "xml" }, 'access_token_format: "xml" is not one of opaque, jwt', 422],
      [{ uri: "https://x.example.com/", scopes: "a", ttl: "10" }, "access_token_ttl: must be a whole number of seconds from 60 to 86400", 422],
      [{ uri: "https://x.example.com/", scopes: "a", ttl: "an hour" }, 'access_token_ttl: "an hour" is not a whole number of seconds', 422],
      [{ uri: "https://docs.example.com/api", scopes: "a" }, "resource https://docs.example.com/api is already registered (uri: is taken)", 409],
    ];
    for (const [form, words, status] of cases) {
      const answer = await add({ format: "opaque", ttl: "", ...form });
      const html = await answer.text();
      expect([form, answer.status]).toEqual([form, status]);
      expect([form, alert_text(html)]).toEqual([form, words]);
      // The form as typed, ready to be corrected.
      expect(html).toContain(`id="resource-uri" name="uri" type="text" value="${escape_html(form.uri!)}"`);
      expect(html).toContain(`id="resource-scopes" name="scopes" type="text" value="${escape_html(form.scopes!)}"`);
      if (form.ttl !== undefined) expect(html).toContain(`value="${form.ttl}" maxlength="6"`);
    }
    expect(await t.store.get_resource_server("https://x.example.com/")).toBeNull();
  });

  test("a form without the console's token is refused and adds nothing", async () => {
    expect((await browser.post(`${t.url}/admin/resources`, { uri: "https://forged.example.com/", scopes: "a" })).status).toBe(403);
    expect(await t.store.get_resource_server("https://forged.example.com/")).toBeNull();
  });

  test("removal: its page says what happens and names the applications whose token exchange names it; the wrong password changes nothing, the right one removes it", async () => {
    const uri = "https://exchange.example.com/";
    await create_resource_server(t.store, { uri, scopes: ["read"] }, t.clock.now());
    const { client, secret } = await t.add_client({
      client_name: "Gateway",
      grant_types: [EXCHANGE, "client_credentials"],
      response_types: [],
      redirect_uris: [],
      scope: "read",
      token_endpoint_auth_method: "client_secret_basic",
      token_exchange: { subject_clients: ["*"], impersonation: true, delegation: false, resources: [uri] },
    });
    expect((await token_for(client.client_id, secret!, uri)).status).toBe(200);
    const url = `${t.url}/admin/resources/confirm?action=remove&uri=${encodeURIComponent(uri)}`;
    const { html } = await console_page(browser, url);
    expect(html).toContain('class="section danger-zone"');
    expect(html).toContain(`<code>${uri}</code>`);
    expect(html).toContain(`a request naming <strong>${uri}</strong> is refused (invalid_target): no new token is issued for it`);
    expect(html).toContain("Tokens issued already stay valid until they expire.");
    expect(html).toContain("The token exchange policy of <strong>Gateway</strong> names it: their exchanges for it are refused until it is registered again.");
    expect(confirm_form(html)).toMatchObject({ action: `${t.issuer}/admin/resources/remove`, fields: { uri } });

    const wrong = await confirm(browser, url, "not my password");
    expect(wrong.status).toBe(403);
    expect(alert_text(wrong.html)).toBe("Your password is not right: nothing was changed.");
    expect(await t.store.get_resource_server(uri)).not.toBeNull();

    const right = await confirm(browser, url, t.password);
    expect(right.status).toBe(303);
    expect(right.location).toBe(`${t.issuer}/admin/resources?done=resource_removed`);
    expect(await t.store.get_resource_server(uri)).toBeNull();
    const refused = await token_for(client.client_id, secret!, uri);
    expect([refused.status, refused.body.error]).toEqual([400, "invalid_target"]);
    const events = await t.store.list_audit_events({ type: "admin_console", limit: 2 });
    expect(events.map((event) => [event.outcome, event.details?.action, event.details?.uri])).toEqual([
      ["success", "resource_deleted", uri],
      ["failure", "resource_deleted", uri],
    ]);
    // Gone: its confirmation page and its removal say so.
    await console_page(browser, url, 404);
  });

  test("a resource no application exchanges for says so; the console's ordinary form token does not remove it", async () => {
    const uri = "https://lonely.example.com/";
    await create_resource_server(t.store, { uri, scopes: ["read"] }, t.clock.now());
    const { html } = await console_page(browser, `${t.url}/admin/resources/confirm?action=remove&uri=${encodeURIComponent(uri)}`);
    expect(html).toContain("No application's token exchange policy names it.");
    const { csrf } = await console_page(browser, `${t.url}/admin/resources`);
    expect((await browser.post(`${t.url}/admin/resources/remove`, { csrf: csrf!, uri, password: t.password })).status).toBe(403);
    expect(await t.store.get_resource_server(uri)).not.toBeNull();
  });

  test("the auditor reads the list with no form or link; every change is refused (403)", async () => {
    const uri = "https://kept.example.com/";
    await create_resource_server(t.store, { uri, scopes: ["read"] }, t.clock.now());
    const { html, csrf } = await console_page(as_auditor, `${t.url}/admin/resources`);
    const content = main(html);
    expect(content).toContain(`<code>${uri}</code>`);
    expect(content).not.toContain('method="post"');
    expect(content).not.toContain("/confirm?");
    await console_page(as_auditor, `${t.url}/admin/resources/confirm?action=remove&uri=${encodeURIComponent(uri)}`, 403);
    expect((await as_auditor.post(`${t.url}/admin/resources`, { csrf: csrf!, uri: "https://auditor.example.com/", scopes: "a" })).status).toBe(403);
    expect((await as_auditor.post(`${t.url}/admin/resources/remove`, { csrf: csrf!, uri, password: t.password })).status).toBe(403);
    expect(await t.store.get_resource_server("https://auditor.example.com/")).toBeNull();
    expect(await t.store.get_resource_server(uri)).not.toBeNull();
  });

  test("the helpdesk sees no resource servers: not in the nav, 403 on every page and form", async () => {
    const uri = "https://kept.example.com/";
    const { html, csrf } = await console_page(as_helpdesk, `${t.url}/admin/users`);
    expect(html).not.toContain(`href="${t.issuer}/admin/resources"`);
    await console_page(as_helpdesk, `${t.url}/admin/resources`, 403);
    await console_page(as_helpdesk, `${t.url}/admin/resources/confirm?action=remove&uri=${encodeURIComponent(uri)}`, 403);
    expect((await as_helpdesk.post(`${t.url}/admin/resources`, { csrf: csrf!, uri: "https://helpdesk.example.com/", scopes: "a" })).status).toBe(403);
    expect((await as_helpdesk.post(`${t.url}/admin/resources/remove`, { csrf: csrf!, uri, password: t.password })).status).toBe(403);
    expect(await t.store.get_resource_server("https://helpdesk.example.com/")).toBeNull();
    expect(await t.store.get_resource_server(uri)).not.toBeNull();
  });
});
