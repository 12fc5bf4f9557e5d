/**
 * The console's audit log over plain HTTP: who did each thing (the administrator, the admin
 * API's client, the command line, the user), readable type names grouped by area, the period
 * links, and the exports (/admin/audit.csv, /admin/audit.json): the page's filters, a header
 * row and RFC 4180 quoting, never a secret, only for administrators, each export audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { named_events } from "../../src/oidc/admin/audit.ts";
import type { UserRow } from "../../src/store/types.ts";
import { console_browser, console_page } from "../helpers/admin_console.ts";
import { Browser } from "../helpers/browser.ts";
import { PASSWORD, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let root: UserRow;
let browser: Browser;
let secret: string;

beforeAll(async () => {
  t = await start_provider();
  root = await t.add_user({ username: "root" });
  const admins = await t.store.create_group({ name: "admins", description: null });
  await t.store.add_group_member(admins.id, root.id, t.clock.now());
  browser = await console_browser(t, root);
  const bob = await t.add_user({ username: "bob", name: 'Bob "the, builder"' });
  const app = await t.add_client({ client_name: "Provisioner", token_endpoint_auth_method: "client_secret_basic" }, { client_id: "provisioner" });
  secret = app.secret!;
  const now = t.clock.now();
  // One event of each kind of actor; an old one outside the last hour.
  await t.store.add_audit_event({
    type: "admin_console",
    outcome: "success",
    at: now - 60,
    user_id: bob.id,
    details: { actor: `user:${root.id}`, actor_username: "root", action: "user_created" },
  });
  await t.store.add_audit_event({
    type: "admin_api",
    outcome: "success",
    at: now - 50,
    user_id: bob.id,
    client_id: "provisioner",
    details: { method: "PATCH", action: "user_updated" },
  });
  await t.store.add_audit_event({ type: "user_disabled", outcome: "success", at: now - 40, user_id: bob.id, details: { via: "cli", username: "bob" } });
  await t.store.add_audit_event({ type: "password_change", outcome: "success", at: now - 30, user_id: bob.id, ip: "203.0.113.9" });
  await t.store.add_audit_event({ type: "login", outcome: "failure", at: now - 2 * 3600, user_id: bob.id, details: { reason: "=cmd|' /C calc'!A0" } });
});

afterAll(async () => {
  await t.stop();
});

const rows = (html: string) =>
  [...html.matchAll(/<tr><td class="nowrap">[\s\S]*?<\/tr>/g)].map((m) =>
    m[0]
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .trim(),
  );

describe("admin console: audit log", () => {
  test("each event says who did it, with the type's readable name; the types are grouped by area", async () => {
    const { html } = await console_page(browser, `${t.url}/admin/audit?user=bob`);
    const all = rows(html);
    expect(all.find((row) => row.includes("Change in the admin console"))).toContain("root (administrator)");
    expect(all.find((row) => row.includes("Admin API call"))).toContain("Provisioner (admin API)");
    expect(all.find((row) => row.includes("User disabled"))).toContain("The command line");
    expect(all.find((row) => row.includes("Password changed"))).toContain("bob (the user)");
    expect(html).toContain('<optgroup label="Suspicious activity">');
    expect(html).toContain('<option value="refresh_token_reuse">Refresh token used twice</option>');
    expect(html).toContain('<th scope="col">Who</th>');
  });

  test("in another language the names come from its catalog", async () => {
    const german = await console_browser(t, root);
    const answer = await german.get(`${t.url}/admin/audit?user=bob`, { "accept-language": "de" });
    const html = await answer.text();
    expect(html).toContain("Passwort geändert");
    expect(html).toContain("root (Administrator)");
    expect(html).toContain("Letzte Stunde");
  });

  test("the period links keep the other filters; the last hour leaves the older sign-in out", async () => {
    const { html } = await console_page(browser, `${t.url}/admin/audit?user=bob`);
    expect(html).toContain(`href="${t.issuer}/admin/audit?user=bob&amp;period=1h"`);
    expect(html).toContain(`href="${t.issuer}/admin/audit?user=bob&amp;period=7d"`);
    const hour = await console_page(browser, `${t.url}/admin/audit?user=bob&period=1h`);
    expect(hour.html).toContain('period=1h" aria-current="true"');
    expect(rows(hour.html).some((row) => row.includes("Sign-in "))).toBe(false);
    expect(rows(hour.html).length).toBe(4);
    const week = await console_page(browser, `${t.url}/admin/audit?user=bob&period=7d`);
    expect(rows(week.html).some((row) => row.includes("Sign-in "))).toBe(true);
    // The export links carry the same filters.
    expect(hour.html).toContain(`href="${t.issuer}/admin/audit.csv?user=bob&amp;period=1h"`);
    expect(hour.html).toContain(`href="${t.issuer}/admin/audit.json?user=bob&amp;period=1h"`);
    expect((await browser.get(`${t.url}/admin/audit?period=2h`)).status).toBe(400);
  });

  test("CSV: a header row, quoted fields, the page's filters, a download; never the client's secret", async () => {
    const answer = await browser.get(`${t.url}/admin/audit.csv?user=bob&period=1h`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toStartWith("text/csv");
    expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-\d{8}-\d{6}\.csv"/);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const csv = await answer.text();
    expect(csv).not.toContain(secret);
    expect(csv).not.toContain(PASSWORD);
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe("id,at,type,area,outcome,actor_kind,actor,user_id,username,client_id,client_name,ip,details");
    expect(lines.length).toBe(1 + 4 + 1);
    expect(lines[1]).toContain(",password_change,account,success,user,bob,");
    expect(lines[1]).toContain(",203.0.113.9,");
    expect(lines.find((line) => line.includes(",admin_api,"))).toContain(",api_client,Provisioner,");
    expect(lines.find((line) => line.includes(",user_disabled,"))).toContain(",cli,,");
    expect(lines.find((line) => line.includes(",admin_console,"))).toContain('"{""actor"":""user:');
  });

  test("JSON: the same events and fields, details as objects; a formula stays a plain string", async () => {
    const answer = await browser.get(`${t.url}/admin/audit.json?user=bob`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toStartWith("application/json");
    expect(answer.headers.get("content-disposition")).toContain(".json");
    const body = (await answer.json()) as { events: Record<string, unknown>[]; truncated: boolean };
    expect(body.truncated).toBe(false);
    expect(body.events.map((e) => e.type)).toEqual(["password_change", "user_disabled", "admin_api", "admin_console", "login"]);
    expect(body.events[2]).toMatchObject({ actor_kind: "api_client", actor: "Provisioner", client_id: "provisioner", area: "administration" });
    expect(body.events[4]!.details).toEqual({ reason: "=cmd|' /C calc'!A0" });
    expect(JSON.stringify(body)).not.toContain(secret);
    const csv = await (await browser.get(`${t.url}/admin/audit.csv?user=bob&type=login`)).text();
    expect(csv.split("\r\n")[1]).toContain(`"{""reason"":""=cmd|' /C calc'!A0""}"`);
    const filtered = (await (await browser.get(`${t.url}/admin/audit.json?type=admin_api`)).json()) as { events: unknown[] };
    expect(filtered.events.length).toBe(1);
  });

  test("only for administrators; each export is itself an audit event", async () => {
    const anonymous = new Browser();
    const answer = await anonymous.get(`${t.url}/admin/audit.csv`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`${t.issuer}/account/login`);
    const dave = await t.add_user({ username: "dave" });
    expect((await (await console_browser(t, dave)).get(`${t.url}/admin/audit.json`)).status).toBe(403);
    const exports = await named_events(t.store, await t.store.list_audit_events({ type: "admin_console", user_id: undefined }));
    const audited = exports.filter((e) => e.details?.action === "audit_exported");
    expect(audited.length).toBeGreaterThanOrEqual(4);
    expect(audited.map((e) => e.details?.format)).toEqual(expect.arrayContaining(["csv", "json"]));
    expect(audited.every((e) => e.details?.actor_username === "root")).toBe(true);
  });
});
