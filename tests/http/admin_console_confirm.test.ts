/**
 * Every destructive or outage-causing console action goes through its confirmation page
 * (http/pages/admin_confirm.ts): the page names the object and what will happen; the action's
 * POST needs that page's own token (bound to the action and the object: the console's ordinary
 * form token, or another confirmation's, does not fit) and the administrator's password, or for
 * one without a password a sign-in fresher than 5 minutes; no edit form carries a password
 * field or a destructive button. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { create_upstream } from "../../src/oidc/admin/upstreams.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, confirm, confirm_form, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let root: UserRow;
let browser: Browser;

beforeAll(async () => {
  t = await start_provider();
  root = await t.add_user({ username: "root" });
  const admins = await t.store.create_group({ name: "admins", description: null });
  await t.store.add_group_member(admins.id, root.id, t.clock.now());
  browser = await console_browser(t, root);
});

afterAll(async () => {
  await t.stop();
});

/** A fresh user to act on. */
let next = 0;
const victim = () => t.add_user({ username: `victim-${++next}`, email: `victim-${next}@example.com` });

describe("admin console: confirmation pages", () => {
  test("each user action's page names the user and what will happen, in a danger zone with a password field", async () => {
    const bob = await victim();
    const admins = (await t.store.get_group_by_name("admins"))!;
    await t.store.add_group_member(admins.id, bob.id, t.clock.now());
    await t.store.update_user(bob.id, { totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: t.clock.now() });
    for (const [action, words] of [
      ["delete", "is deleted with its sessions, grants and tokens"],
      ["disable", "can no longer sign in"],
      ["end_sessions", "is signed out everywhere"],
      ["reset_second_factors", "are removed, and their sessions end"],
      ["remove_admin", "leaves the admin group"],
    ] as const) {
      const { html } = await console_page(browser, `${t.url}/admin/users/${bob.id}/confirm?action=${action}`);
      expect(html).toContain('class="section danger-zone"');
      expect(html).toContain(`<strong>${bob.username}</strong>`);
      expect(html).toContain(words);
      expect(html).toContain('name="password" type="password"');
      expect(confirm_form(html)).toMatchObject({ action: `${t.issuer}/admin/users/${bob.id}/actions`, fields: { action } });
    }
  });

  test("the user page links to the confirmations and has no password field or destructive button", async () => {
    const bob = await victim();
    const { html } = await console_page(browser, `${t.url}/admin/users/${bob.id}`);
    expect(html).not.toContain('autocomplete="current-password"');
    for (const action of ["delete", "disable", "end_sessions", "reset_second_factors"]) {
      expect(html).not.toContain(`value="${action}"`);
      expect(html).toContain(`href="${t.issuer}/admin/users/${bob.id}/confirm?action=${action}"`);
    }
  });

  test("an application's page, the groups, keys and sign-in providers pages have no password field; their destructive actions are links", async () => {
    await t.store.create_group({ name: "staff", description: null });
    const { client } = await t.add_client({ client_name: "Shop" });
    await create_upstream(t.store, t.config, { name: "gitlab", client_id: "gl", preset: "gitlab" });
    const pages: [string, string[]][] = [
      [`/admin/clients/${client.client_id}`, [`/admin/clients/${client.client_id}/confirm?action=rotate_secret`, `/admin/clients/${client.client_id}/confirm?action=delete`]],
      ["/admin/groups", ["/admin/groups/confirm?action=delete&amp;group=staff"]],
      ["/admin/keys", ["/admin/keys/confirm?action=rotate"]],
      ["/admin/upstreams", ["/admin/upstreams/confirm?action=delete&amp;upstream=gitlab"]],
    ];
    for (const [path, links] of pages) {
      const { html } = await console_page(browser, `${t.url}${path}`);
      // The administrator's own password (a client secret for a new sign-in provider is another field).
      expect(html, path).not.toContain('autocomplete="current-password"');
      expect(html, path).not.toMatch(/value="(delete|rotate_secret)"/);
      for (const link of links) expect(html, path).toContain(`href="${t.issuer}${link}"`);
    }
  });

  test("a destructive post with the console's ordinary form token is refused (403) and changes nothing, even with the password", async () => {
    const bob = await victim();
    const { csrf } = await console_page(browser, `${t.url}/admin/users/${bob.id}`);
    const { client } = await t.add_client({ client_name: "Kept" });
    const keys = t.provider.keys
      .list()
      .filter((key) => key.status === "active")
      .map((key) => key.kid);
    for (const [path, form] of [
      [`/admin/users/${bob.id}/actions`, { action: "delete" }],
      [`/admin/users/${bob.id}/actions`, { action: "disable" }],
      [`/admin/clients/${client.client_id}`, { action: "delete" }],
      [`/admin/clients/${client.client_id}`, { action: "rotate_secret" }],
      ["/admin/groups", { action: "delete", group: "staff" }],
      ["/admin/keys", {}],
      ["/admin/upstreams", { action: "delete", upstream: "gitlab" }],
    ] as const) {
      const answer = await browser.post(`${t.url}${path}`, { csrf: csrf!, password: t.password, ...form });
      expect(answer.status, `${path} ${JSON.stringify(form)}`).toBe(403);
    }
    expect((await t.store.get_user_by_id(bob.id))!.status).toBe("active");
    expect((await t.store.get_client(client.client_id))!.client_secret_hash).toBe(client.client_secret_hash);
    expect(await t.store.get_group_by_name("staff")).not.toBeNull();
    expect(await t.store.get_upstream("gitlab")).not.toBeNull();
    expect(
      t.provider.keys
        .list()
        .filter((key) => key.status === "active")
        .map((key) => key.kid),
    ).toEqual(keys);
  });

  test("one confirmation's token fits neither another action nor another object", async () => {
    const bob = await victim();
    const carol = await victim();
    const { html } = await console_page(browser, `${t.url}/admin/users/${bob.id}/confirm?action=end_sessions`);
    const { fields } = confirm_form(html)!;
    expect((await browser.post(`${t.url}/admin/users/${bob.id}/actions`, { ...fields, action: "delete", password: t.password })).status).toBe(403);
    expect((await browser.post(`${t.url}/admin/users/${carol.id}/actions`, { ...fields, password: t.password })).status).toBe(403);
    expect(await t.store.get_user_by_id(bob.id)).not.toBeNull();
  });

  test("without the password, or with a wrong one, the page says so and nothing changes; with it the action runs", async () => {
    const bob = await victim();
    const url = `${t.url}/admin/users/${bob.id}/confirm?action=delete`;
    const none = await confirm(browser, url, undefined);
    expect(none.status).toBe(403);
    expect(alert_text(none.html)).toBe("This action needs your password to confirm it.");
    expect(confirm_form(none.html)).not.toBeNull();
    const wrong = await confirm(browser, url, "not my password");
    expect(wrong.status).toBe(403);
    expect(alert_text(wrong.html)).toBe("Your password is not right: nothing was changed.");
    expect(await t.store.get_user_by_id(bob.id)).not.toBeNull();
    const right = await confirm(browser, url, t.password);
    expect(right.status).toBe(303);
    expect(right.location).toBe(`${t.issuer}/admin/users?done=user_deleted`);
    expect(await t.store.get_user_by_id(bob.id)).toBeNull();
  });

  test("each confirmed action runs: disable, end sessions, group, application, keys, sign-in provider", async () => {
    const bob = await victim();
    expect((await confirm(browser, `${t.url}/admin/users/${bob.id}/confirm?action=disable`, t.password)).status).toBe(303);
    expect((await t.store.get_user_by_id(bob.id))!.status).toBe("disabled");
    expect((await confirm(browser, `${t.url}/admin/users/${bob.id}/confirm?action=end_sessions`, t.password)).location).toContain("done=sessions_ended");
    const temp = await t.store.create_group({ name: "temp", description: null });
    expect((await confirm(browser, `${t.url}/admin/groups/confirm?action=delete&group=temp`, t.password)).location).toContain("done=group_deleted");
    expect(await t.store.get_group_by_name(temp.name)).toBeNull();
    const { client } = await t.add_client({ client_name: "Gone" });
    const rotated = await confirm(browser, `${t.url}/admin/clients/${client.client_id}/confirm?action=rotate_secret`, t.password);
    expect(rotated.status).toBe(200);
    expect(rotated.html).toContain('id="client-secret"');
    expect((await confirm(browser, `${t.url}/admin/clients/${client.client_id}/confirm?action=delete`, t.password)).location).toContain("done=client_deleted");
    expect(await t.store.get_client(client.client_id)).toBeNull();
    const before = t.provider.keys
      .list()
      .filter((key) => key.status === "active")
      .map((key) => key.kid);
    expect((await confirm(browser, `${t.url}/admin/keys/confirm?action=rotate`, t.password)).location).toContain("done=keys_rotated");
    expect(
      t.provider.keys
        .list()
        .filter((key) => key.status === "active")
        .map((key) => key.kid),
    ).not.toEqual(before);
    await create_upstream(t.store, t.config, { name: "gone", client_id: "g", preset: "gitlab" });
    expect((await confirm(browser, `${t.url}/admin/upstreams/confirm?action=delete&upstream=gone`, t.password)).location).toContain("done=upstream_deleted");
    expect(await t.store.get_upstream("gone")).toBeNull();
  });

  test("the admin group has no delete link but a sentence saying why; its confirmation page refuses, with no form", async () => {
    const { html } = await console_page(browser, `${t.url}/admin/groups`);
    expect(html).not.toContain("/admin/groups/confirm?action=delete&amp;group=admins");
    expect(html).toContain("<strong>admins</strong> is the admin group (<code>IDP_ADMIN_GROUP</code>): it cannot be deleted while it is configured.");
    const refused = await console_page(browser, `${t.url}/admin/groups/confirm?action=delete&group=admins`, 409);
    expect(alert_text(refused.html)).toBe('"admins" is the admin group (IDP_ADMIN_GROUP) and cannot be deleted while it is configured');
    expect(confirm_form(refused.html)).toBeNull();
  });

  test("an administrator without a password confirms with a sign-in fresher than 5 minutes", async () => {
    const keyless = await t.store.create_user({ username: "keyless", password_hash: "" });
    await t.store.add_group_member((await t.store.get_group_by_name("admins"))!.id, keyless.id, t.clock.now());
    const own = await console_browser(t, keyless);
    const bob = await victim();
    const url = `${t.url}/admin/users/${bob.id}/confirm?action=end_sessions`;
    const { html } = await console_page(own, url);
    expect(html).not.toContain('type="password"');
    expect(html).toContain("You have no password: sign in again (within 5 minutes)");
    expect((await confirm(own, url, undefined)).status).toBe(303);
    t.clock.advance(5 * 60 + 1);
    const stale = await confirm(own, url, undefined);
    expect(stale.status).toBe(403);
    expect(alert_text(stale.html)).toBe("This action needs your password to confirm it.");
  });
});
