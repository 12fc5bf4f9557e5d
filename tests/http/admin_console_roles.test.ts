/**
 * Delegated console roles (oidc/admin/roles.ts): an auditor (IDP_AUDITOR_GROUP) sees the
 * dashboard, users, groups, applications, the audit log and the keys without a single action
 * form, and every change they post is refused (403) and changes nothing; a helpdesk member
 * (IDP_HELPDESK_GROUP) sees users and the audit log, may reset second factors, send reset links
 * and end sessions of ordinary users, and nothing else: not on an administrator, not on
 * groups, applications, keys or sign-in providers. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { start_session } from "../../src/oidc/signin/sessions.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { confirm, confirm_form, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

let t: TestProvider;
let smtp: TestSmtp;
let root: UserRow;
let auditor: UserRow;
let helper: UserRow;
let carol: UserRow;
let client_id: string;
let as_auditor: Browser;
let as_helpdesk: Browser;

const TOTP = { totp_secret: "JBSWY3DPEHPK3PXP" };

beforeAll(async () => {
  smtp = await start_smtp();
  t = await start_provider({ config: { smtp_url: smtp.url, mail_from: "idp@example.com", admin_console: { auditor_group: "auditors", helpdesk_group: "Helpdesk" } } });
  root = await t.add_user({ username: "root", email: "root@example.com", email_verified: true });
  auditor = await t.add_user({ username: "audrey" });
  helper = await t.add_user({ username: "hal" });
  carol = await t.add_user({ username: "carol", email: "carol@example.com", email_verified: true });
  for (const [group, user] of [
    ["admins", root],
    ["auditors", auditor],
    ["helpdesk", helper],
  ] as const) {
    const row = await t.store.create_group({ name: group, description: null });
    await t.store.add_group_member(row.id, user.id, t.clock.now());
  }
  client_id = t.client.client_id;
  as_auditor = await console_browser(t, auditor);
  as_helpdesk = await console_browser(t, helper);
});

afterAll(async () => {
  await t.stop();
  await smtp.stop();
});

/** The page's own content (the footer's language switcher is a form of every page). */
function main(html: string): string {
  return /<main[\s\S]*<\/main>/.exec(html)![0];
}

/** What a role's refusal must not have touched. */
async function snapshot() {
  return {
    users: (await t.store.search_users({ limit: 100 })).map((user) => [user.username, user.status, user.name, user.totp_secret]),
    groups: await Promise.all([root, auditor, helper, carol].map((user) => t.store.list_user_groups(user.id))),
    all_groups: (await t.store.list_groups()).map((group) => group.name),
    client: (await t.store.get_client(client_id))?.metadata.client_name,
    keys: t.provider.keys.list().map((key) => `${key.kid}:${key.status}`),
    upstreams: (await t.store.list_upstreams()).length,
    sessions: (await t.store.list_sessions_for_user(carol.id)).length,
  };
}

describe("auditor: read-only", () => {
  test("sees the dashboard, users, a user, groups, applications, the audit log and the keys, with no action form or link", async () => {
    for (const path of ["", "/users", `/users/${carol.id}`, `/users/${root.id}`, "/groups", "/clients", `/clients/${client_id}`, "/audit", "/keys"]) {
      const html = main((await console_page(as_auditor, `${t.url}/admin${path}`)).html);
      expect(html).not.toContain('method="post"');
      expect(html).not.toContain("/confirm?");
      expect(html).not.toContain("danger-link");
    }
    const { html } = await console_page(as_auditor, `${t.url}/admin/users/${carol.id}`);
    expect(html).toContain("carol@example.com"); // the profile, shown read-only
    expect(html).not.toContain(`href="${t.url}/admin/upstreams"`); // not in the nav
    await console_page(as_auditor, `${t.url}/admin/upstreams`, 403);
  });

  test("every change is refused (403) on the server and changes nothing", async () => {
    const { csrf } = await console_page(as_auditor, `${t.url}/admin/users/${carol.id}`);
    const before = await snapshot();
    const kid = t.provider.keys.list().find((key) => key.status === "active")!.kid;
    const posts: [string, Record<string, string>][] = [
      ["/users", { username: "mallory", password: "a long enough password 1" }],
      ["/users/invite", { email: "mallory@example.com" }],
      [`/users/${carol.id}`, { name: "Changed", etag: "x" }],
      ...["enable", "send_reset", "end_session", "disable", "delete", "end_sessions", "reset_second_factors", "remove_admin"].map(
        (action) => [`/users/${carol.id}/actions`, { action, session: "a".repeat(43), password: t.password }] as [string, Record<string, string>],
      ),
      ["/groups", { action: "add_member", group: "admins", user: "audrey" }],
      ["/groups", { action: "create", group: "new-group" }],
      ["/groups", { action: "delete", group: "helpdesk", password: t.password }],
      [`/clients/${client_id}`, { action: "update", client_name: "Changed", etag: "x" }],
      [`/clients/${client_id}`, { action: "delete", password: t.password }],
      ["/clients", { client_name: "Evil", redirect_uris: "https://evil.example/cb" }],
      ["/upstreams", { action: "create", upstream: "evil", preset: "google", client_id: "x", client_secret: "y" }],
      ["/keys", { password: t.password }],
      [`/keys/${kid}/revoke`, { password: t.password }],
    ];
    for (const [path, fields] of posts) {
      const answer = await as_auditor.post(`${t.url}/admin${path}`, { csrf: csrf!, ...fields });
      expect([path, fields.action, answer.status]).toEqual([path, fields.action, 403]);
    }
    for (const path of [
      `/users/${carol.id}/confirm?action=disable`,
      `/groups/confirm?action=delete&group=helpdesk`,
      "/keys/confirm?action=rotate",
      `/keys/confirm?action=revoke&kid=${kid}`,
    ]) {
      await console_page(as_auditor, `${t.url}/admin${path}`, 403);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("helpdesk: second factors, reset links and sessions of ordinary users", () => {
  test("sees users, a user and the audit log; the user page has only the helpdesk's actions", async () => {
    for (const path of ["", "/users", `/users/${carol.id}`, "/audit"]) await console_page(as_helpdesk, `${t.url}/admin${path}`);
    for (const path of ["/groups", "/clients", "/keys", "/upstreams"]) await console_page(as_helpdesk, `${t.url}/admin${path}`, 403);
    await start_session(t.provider, carol, ["pwd"]);
    const html = main((await console_page(as_helpdesk, `${t.url}/admin/users/${carol.id}`)).html);
    expect(html).toContain('value="end_session"');
    expect(html).toContain('value="send_reset"');
    expect(html).toContain("confirm?action=reset_second_factors");
    expect(html).toContain("confirm?action=end_sessions");
    for (const hidden of ["confirm?action=disable", "confirm?action=delete", "confirm?action=remove_admin", 'name="etag"', "/admin/groups", 'value="enable"'])
      expect([hidden, html.includes(hidden)]).toEqual([hidden, false]);
    const users = main((await console_page(as_helpdesk, `${t.url}/admin/users`)).html);
    expect(users).not.toContain('method="post"');
    // An administrator's page: no action at all.
    const admin_page = main((await console_page(as_helpdesk, `${t.url}/admin/users/${root.id}`)).html);
    expect(admin_page).not.toContain('method="post"');
    expect(admin_page).not.toContain("/confirm?");
  });

  test("sends a reset link, ends a session, resets second factors, ends every session", async () => {
    const { html, csrf } = await console_page(as_helpdesk, `${t.url}/admin/users/${carol.id}`);
    const reset = await as_helpdesk.post(`${t.url}/admin/users/${carol.id}/actions`, { csrf: csrf!, action: "send_reset" });
    expect(reset.status).toBe(303);
    await smtp.wait_for("carol@example.com");

    const sid = /name="session" value="([^"]+)"/.exec(html)![1]!;
    const before = (await t.store.list_sessions_for_user(carol.id)).length;
    const ended = await as_helpdesk.post(`${t.url}/admin/users/${carol.id}/actions`, { csrf: csrf!, action: "end_session", session: sid });
    expect(ended.status).toBe(303);
    expect((await t.store.list_sessions_for_user(carol.id)).length).toBe(before - 1);

    await t.store.update_user(carol.id, { ...TOTP, totp_enabled_at: t.clock.now() });
    const factors = await confirm(as_helpdesk, `${t.url}/admin/users/${carol.id}/confirm?action=reset_second_factors`, t.password);
    expect(factors.status).toBe(303);
    expect((await t.store.get_user_by_id(carol.id))!.totp_secret).toBeNull();

    await start_session(t.provider, carol, ["pwd"]);
    const all = await confirm(as_helpdesk, `${t.url}/admin/users/${carol.id}/confirm?action=end_sessions`, t.password);
    expect(all.status).toBe(303);
    expect(await t.store.list_sessions_for_user(carol.id)).toEqual([]);
    const events = await t.store.list_audit_events({ type: "admin_console", limit: 20 });
    expect(events.filter((event) => event.details?.actor === `user:${helper.id}`).map((event) => event.details?.action)).toEqual(
      expect.arrayContaining(["password_reset_requested", "session_ended", "two_factor_removed", "sessions_ended"]),
    );
  });

  test("everything else is refused (403) and changes nothing: other user actions, groups, applications, keys, and any action on an administrator", async () => {
    const { csrf } = await console_page(as_helpdesk, `${t.url}/admin/users/${carol.id}`);
    await t.store.update_user(root.id, { ...TOTP, totp_enabled_at: t.clock.now() });
    await start_session(t.provider, root, ["pwd", "otp"]);
    const before = await snapshot();
    const root_sessions = (await t.store.list_sessions_for_user(root.id)).length;
    const kid = t.provider.keys.list().find((key) => key.status === "active")!.kid;
    const posts: [string, Record<string, string>][] = [
      ["/users", { username: "mallory", password: "a long enough password 1" }],
      ["/users/invite", { email: "mallory@example.com" }],
      [`/users/${carol.id}`, { name: "Changed", etag: "x" }],
      ...["enable", "disable", "delete", "remove_admin"].map((action) => [`/users/${carol.id}/actions`, { action, password: t.password }] as [string, Record<string, string>]),
      // The helpdesk's own actions, on an administrator: their second factor is a way into the console.
      ...["send_reset", "end_sessions", "reset_second_factors"].map(
        (action) => [`/users/${root.id}/actions`, { action, password: t.password }] as [string, Record<string, string>],
      ),
      [`/users/${helper.id}/actions`, { action: "send_reset" }],
      ["/groups", { action: "add_member", group: "admins", user: "hal" }],
      [`/clients/${client_id}`, { action: "update", client_name: "Changed", etag: "x" }],
      ["/upstreams", { action: "create", upstream: "evil", preset: "google", client_id: "x", client_secret: "y" }],
      ["/keys", { password: t.password }],
      [`/keys/${kid}/revoke`, { password: t.password }],
    ];
    for (const [path, fields] of posts) {
      const answer = await as_helpdesk.post(`${t.url}/admin${path}`, { csrf: csrf!, ...fields });
      expect([path, fields.action, answer.status]).toEqual([path, fields.action, 403]);
    }
    for (const path of [`/users/${carol.id}/confirm?action=delete`, `/users/${root.id}/confirm?action=reset_second_factors`, `/users/${root.id}/confirm?action=end_sessions`]) {
      const { html } = await console_page(as_helpdesk, `${t.url}/admin${path}`, 403);
      expect(confirm_form(html)).toBeNull();
    }
    expect(await snapshot()).toEqual(before);
    expect((await t.store.get_user_by_id(root.id))!.totp_secret).toBe(TOTP.totp_secret);
    expect((await t.store.list_sessions_for_user(root.id)).length).toBe(root_sessions);
    expect(smtp.messages.filter((mail) => JSON.stringify(mail).includes("root@example.com"))).toEqual([]);
  });
});

describe("roles need their group and a second factor", () => {
  test("unset groups give no role; a role without a second factor in the sign-in is refused", async () => {
    const other = await start_provider();
    try {
      const auditors = await other.store.create_group({ name: "auditors", description: null });
      const someone = await other.add_user({ username: "someone" });
      await other.store.add_group_member(auditors.id, someone.id, other.clock.now());
      await console_page(await console_browser(other, someone), `${other.url}/admin/users`, 403);
    } finally {
      await other.stop();
    }
    const { cookie } = await start_session(t.provider, auditor, ["pwd"]);
    const browser = await console_browser(t, auditor);
    browser.cookies.set(cookie.name, cookie.value);
    await console_page(browser, `${t.url}/admin/users`, 403);
  });
});
