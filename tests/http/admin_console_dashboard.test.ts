/**
 * The console's dashboard (oidc/admin/overview.ts) over plain HTTP: the counts match the store
 * and link to their pages; the version is package.json's and the issuer the configured one; the
 * health shows the database, mail with its outbox counts and each algorithm's signing keys; the
 * warnings are those `idp config check` prints (check_warnings), and none when it has none;
 * failed sign-ins of the last 24 hours by application and by address, and the week's trend.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import pkg from "../../package.json" with { type: "json" };
import { check_warnings } from "../../src/app/config_warnings.ts";
import type { UserRow } from "../../src/store/types.ts";
import { console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

/** What the page's templates (Eta) make of a text: `& < > " '` escaped. */
const escape_html = (text: string) => text.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "#39" }[c]};`);

const DAY = 86_400;

async function admin_of(t: TestProvider, username: string): Promise<UserRow> {
  const user = await t.add_user({ username, email: `${username}@example.com`, email_verified: true });
  const group = (await t.store.list_groups()).find((row) => row.name === "admins") ?? (await t.store.create_group({ name: "admins", description: null }));
  await t.store.add_group_member(group.id, user.id, t.clock.now());
  return user;
}

/** The text of a stat's figure, by its label. */
function stat(html: string, label: string): { href: string | null; value: number } {
  const found = new RegExp(`<dt>${label}</dt><dd>(?:<a href="([^"]*)">)?(\\d+)`).exec(html);
  if (found === null) throw new Error(`no stat ${label}`);
  return { href: found[1] ?? null, value: Number(found[2]) };
}

/** A table's body rows as cell texts (tags removed). */
function rows(html: string, id: string): string[][] {
  const table = new RegExp(`<table[^>]*id="${id}"[\\s\\S]*?</table>`).exec(html)?.[0];
  if (table === undefined) throw new Error(`no table ${id}`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table)![1]!;
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, "").trim()));
}

describe("dashboard", () => {
  let t: TestProvider;
  let root: UserRow;

  beforeAll(async () => {
    // 127.0.0.1: passkeys cannot work at an IP address, a warning of `idp config check`.
    t = await start_provider();
    root = await admin_of(t, "root");
    await t.store.create_group({ name: "editors", description: null });
    await t.add_client({ client_name: "Second App", token_endpoint_auth_method: "client_secret_basic" }, { client_id: "second-app" });
    const now = t.clock.now();
    const login = (at: number, outcome: string, client_id: string | null, ip: string | null) => t.store.add_audit_event({ at, type: "login", outcome, client_id, ip });
    await login(now - 60, "failure", "test-app", "192.0.2.7");
    await login(now - 50, "failure", "test-app", "192.0.2.7");
    await login(now - 40, "failure", "second-app", "192.0.2.8");
    await login(now - 30, "success", "test-app", "192.0.2.7");
    await login(now - 2 * DAY, "failure", "old-app", "192.0.2.99");
    await login(now - 2 * DAY, "success", "test-app", "192.0.2.99");
  });

  afterAll(() => t.stop());

  test("counts match the store and link to their pages; version, issuer, health", async () => {
    const browser = await console_browser(t, root);
    const { html } = await console_page(browser, `${t.url}/admin`);
    const overview = await t.store.count_overview(t.clock.now(), t.clock.now() - DAY);
    expect(overview.clients).toBe(2);
    expect(overview.groups).toBe((await t.store.list_groups()).length);
    expect(stat(html, "Users")).toEqual({ href: `${t.issuer}/admin/users`, value: overview.users });
    expect(stat(html, "Applications")).toEqual({ href: `${t.issuer}/admin/clients`, value: 2 });
    expect(stat(html, "Groups")).toEqual({ href: `${t.issuer}/admin/groups`, value: overview.groups });
    expect(stat(html, "Active sessions").value).toBe(overview.active_sessions);
    expect(overview.active_sessions).toBeGreaterThan(0);
    expect(stat(html, "Failed sign-ins, last 24 h").value).toBe(3);

    expect(html).toContain(`<dd id="version">${pkg.version}</dd>`);
    expect(html).toContain(`<code>${t.issuer}</code>`);
    expect(html).toContain('<dd id="database">reachable</dd>');
    const mail = await t.store.count_mail();
    expect(html).toContain(`<dd id="mail">on (written to the log) · ${mail.queued + mail.sending} waiting, ${mail.failed} failed</dd>`);
    const keys = rows(html, "signing-keys");
    expect(keys.map((row) => row[0])).toEqual(t.config.signing_algs);
    for (const [alg, active, next] of keys) {
      expect(active).toBe(t.provider.keys.active_kid(alg as "RS256"));
      const published = t.provider.keys.list().find((key) => key.alg === alg && key.status === "next");
      expect(next).toBe(published?.kid ?? "(none)");
    }
  });

  test("the warnings are those of `idp config check`", async () => {
    const warnings = check_warnings(t.config);
    expect(warnings.some((warning) => warning.startsWith("passkeys need an https issuer"))).toBe(true);
    const { html } = await console_page(await console_browser(t, root), `${t.url}/admin`);
    const shown = [.../<ul class="warnings" id="config-warnings">([\s\S]*?)<\/ul>/.exec(html)![1]!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((item) => item[1]!);
    expect(shown).toEqual(warnings.map(escape_html));
  });

  test("failed sign-ins of the last 24 h by application and by address; the week's trend", async () => {
    const { html } = await console_page(await console_browser(t, root), `${t.url}/admin`);
    expect(rows(html, "failed-by-client")).toEqual([
      ["test-app", "2"],
      ["second-app", "1"],
    ]);
    expect(rows(html, "failed-by-ip")).toEqual([
      ["192.0.2.7", "2"],
      ["192.0.2.8", "1"],
    ]);
    const trend = rows(html, "trend");
    expect(trend).toHaveLength(7);
    const date = (at: number) => new Date(at * 1000).toISOString().slice(0, 10);
    const now = t.clock.now();
    expect(trend[6]!.slice(0, 3)).toEqual([date(now), "1", "3"]);
    expect(trend[4]!.slice(0, 3)).toEqual([date(now - 2 * DAY), "1", "1"]);
    expect(trend[0]![0]).toBe(date(now - 6 * DAY));
    expect(trend.filter((_, i) => i !== 4 && i !== 6).every((row) => row[1] === "0" && row[2] === "0")).toBe(true);
  });
});

describe("dashboard without warnings", () => {
  let t: TestProvider;

  beforeAll(async () => {
    t = await start_provider({ issuer_host: "localhost" });
  });

  afterAll(() => t.stop());

  test("says the configuration check has none", async () => {
    expect(check_warnings(t.config)).toEqual([]);
    const root = await admin_of(t, "root");
    const { html } = await console_page(await console_browser(t, root), `${t.url}/admin`);
    expect(html).not.toContain('id="config-warnings"');
    expect(html).toContain("The configuration check reports no warnings.");
  });
});
