/**
 * The console's users page (endpoints/admin_console/users.ts) and its bulk actions
 * (users_bulk_confirm.ts, users_bulk_action.ts): search by any part, filters, sort and pages as
 * links; one confirmation page for the selected users, each going through the single action's
 * rules (never oneself, never the last administrator, the helpdesk's limits), audited per user.
 * Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { confirm, confirm_form, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let root: UserRow;
let browser: Browser;
let as_helpdesk: Browser;

/** The usernames listed in the users table, in order. */
function listed(html: string): string[] {
  return [...html.matchAll(/<td class="nowrap"><a href="[^"]*\/users\/[^"]*">([^<]*)<\/a><\/td>/g)].map((found) => found[1]!);
}

/** The text of the page's range line ("1–50 of 1,234"). */
function range(html: string): string {
  return /<p id="users-range">([^<]*)<\/p>/.exec(html)![1]!;
}

/** A bulk confirmation page's address. */
function bulk_url(action: string, users: UserRow[], extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ action, ...extra });
  for (const user of users) params.append("id", user.id);
  return `${t.url}/admin/users/bulk?${params}`;
}

beforeAll(async () => {
  t = await start_provider({ config: { admin_console: { helpdesk_group: "helpdesk" } } });
  root = await t.add_user({ username: "root" });
  const admins = await t.store.create_group({ name: "admins", description: null });
  await t.store.add_group_member(admins.id, root.id, t.clock.now());
  const helpdesk = await t.store.create_group({ name: "helpdesk", description: null });
  const helper = await t.add_user({ username: "helper" });
  await t.store.add_group_member(helpdesk.id, helper.id, t.clock.now());
  browser = await console_browser(t, root);
  as_helpdesk = await console_browser(t, helper);
});

afterAll(async () => {
  await t.stop();
});

describe("admin console: the new-user page", () => {
  test("has the create form (and no list); a refusal shows it again with what was typed, never the password", async () => {
    const { html, csrf } = await console_page(browser, `${t.url}/admin/users/new`);
    expect(html).toContain(`action="${t.url}/admin/users"`);
    expect(html).not.toContain('id="users-range"');
    const refused = await browser.post(`${t.url}/admin/users`, {
      csrf: csrf!,
      username: "root",
      email: "kept@example.com",
      name: "Kept Name",
      password: "a long enough passphrase 42",
    });
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toContain('<p class="alert" role="alert"');
    expect(page).toContain('value="kept@example.com"');
    expect(page).toContain('value="Kept Name"');
    expect(page).not.toContain("a long enough passphrase 42");
    expect(await t.store.find_users_by_email("kept@example.com")).toHaveLength(0);
  });

  test("the users page links to it for those who may create users; the helpdesk gets neither link nor page", async () => {
    expect((await console_page(browser, `${t.url}/admin/users`)).html).toContain(`href="${t.url}/admin/users/new"`);
    expect((await console_page(as_helpdesk, `${t.url}/admin/users`)).html).not.toContain(`href="${t.url}/admin/users/new"`);
    await console_page(as_helpdesk, `${t.url}/admin/users/new`, 403);
  });
});

describe("admin console: the users page", () => {
  test("finds any part of the username, e-mail or name; filters and sorts are links", async () => {
    await t.store.create_user({ username: "zelda", password_hash: "h", email: "zelda@hyrule.example", name: "Princess Zelda", created_at: t.clock.now() - 10 });
    await t.store.create_user({ username: "link", password_hash: "h", email: "hero@HYRULE.example", status: "disabled", created_at: t.clock.now() - 5 });
    await t.store.create_user({ username: "ganon", password_hash: "h", totp_enabled_at: t.clock.now(), created_at: t.clock.now() - 1 });
    expect(listed((await console_page(browser, `${t.url}/admin/users?q=RULE`)).html)).toEqual(["link", "zelda"]);
    expect(listed((await console_page(browser, `${t.url}/admin/users?q=cess`)).html)).toEqual(["zelda"]);
    expect(listed((await console_page(browser, `${t.url}/admin/users?q=elp`)).html)).toEqual(["helper"]);
    expect(listed((await console_page(browser, `${t.url}/admin/users?q=hyrule&status=disabled`)).html)).toEqual(["link"]);
    expect(listed((await console_page(browser, `${t.url}/admin/users?group=helpdesk`)).html)).toEqual(["helper"]);
    expect(listed((await console_page(browser, `${t.url}/admin/users?group=no-such-group`)).html)).toEqual([]);
    expect(listed((await console_page(browser, `${t.url}/admin/users?mfa=yes`)).html)).toEqual(["ganon"]);
    const newest = (await console_page(browser, `${t.url}/admin/users?q=e&sort=created`)).html;
    expect(listed(newest).slice(-2)).toEqual(["link", "zelda"]);
    // The form shows the filters it was opened with.
    expect(newest).toContain('<option value="created" selected>');
    await console_page(browser, `${t.url}/admin/users?status=gone`, 400);
  });

  test("pages of 50 with the total, and the filters kept in the page links", async () => {
    for (let i = 0; i < 60; i++) await t.store.create_user({ username: `bulk${String(i).padStart(2, "0")}`, password_hash: "h", email: `b${i}@many.example` });
    const first = (await console_page(browser, `${t.url}/admin/users?q=many.example`)).html;
    expect(range(first)).toBe("1–50 of 60");
    expect(listed(first)).toHaveLength(50);
    const next = /<a href="([^"]*)" rel="next">/.exec(first)![1]!.replace(/&amp;/g, "&");
    expect(next).toBe(`${t.url}/admin/users?q=many.example&sort=username&page=2`);
    const second = (await console_page(browser, next)).html;
    expect(range(second)).toBe("51–60 of 60");
    expect(listed(second)).toEqual(Array.from({ length: 10 }, (_, i) => `bulk${50 + i}`));
    expect(second).not.toContain('rel="next"');
    expect(second).toContain('rel="prev"');
  });
});

describe("admin console: bulk actions on the selected users", () => {
  test("a bulk disable that includes oneself skips them and says why; the others are disabled, each audited", async () => {
    const ann = await t.add_user({ username: "ann" });
    const ben = await t.add_user({ username: "ben" });
    const { html } = await console_page(browser, bulk_url("disable", [ann, root, ben]));
    expect(html).toContain("You cannot disable your own account: another administrator must do it.");
    const done = await confirm(browser, bulk_url("disable", [ann, root, ben]), t.password);
    expect(done.status).toBe(200);
    expect(done.html).toContain("Done for 2; skipped 1.");
    expect(done.html).toContain("You cannot disable your own account: another administrator must do it.");
    expect((await t.store.get_user_by_id(ann.id))!.status).toBe("disabled");
    expect((await t.store.get_user_by_id(ben.id))!.status).toBe("disabled");
    expect((await t.store.get_user_by_id(root.id))!.status).toBe("active");
    for (const user of [ann, ben]) {
      const events = await t.store.list_audit_events({ user_id: user.id, type: "admin_console" });
      expect(events.some((event) => event.outcome === "success" && event.details?.action === "user_disabled")).toBe(true);
    }
    const refused = await t.store.list_audit_events({ user_id: root.id, type: "admin_console" });
    expect(refused.some((event) => event.outcome === "failure" && event.details?.action === "disable")).toBe(true);
  });

  test("a forged bulk post without the confirmation token, or with another page's, is refused and changes nothing", async () => {
    const cid = await t.add_user({ username: "cid" });
    const dot = await t.add_user({ username: "dot" });
    const { csrf } = await console_page(browser, `${t.url}/admin/users`);
    const without = await browser.post(`${t.url}/admin/users/bulk`, { action: "disable", ids: `${cid.id},${dot.id}`, password: t.password });
    expect(without.status).toBe(403);
    const console_token = await browser.post(`${t.url}/admin/users/bulk`, { csrf: csrf!, action: "disable", ids: `${cid.id},${dot.id}`, password: t.password });
    expect(console_token.status).toBe(403);
    // The token of a confirmation for cid alone does not fit a post that adds dot.
    const form = confirm_form((await console_page(browser, bulk_url("disable", [cid]))).html)!;
    const widened = await browser.post(form.action, { ...form.fields, ids: `${cid.id},${dot.id}`, password: t.password });
    expect(widened.status).toBe(403);
    // The right token without the password.
    const unconfirmed = await browser.post(form.action, { ...form.fields, password: "wrong password" });
    expect(unconfirmed.status).toBe(403);
    expect((await t.store.get_user_by_id(cid.id))!.status).toBe("active");
    expect((await t.store.get_user_by_id(dot.id))!.status).toBe("active");
  });

  test("enable, add to group and end sessions go through their rules", async () => {
    const eve = await t.add_user({ username: "eve" });
    const fay = await t.add_user({ username: "fay" });
    await t.store.update_user(eve.id, { status: "disabled" });
    const enabled = await confirm(browser, bulk_url("enable", [eve, fay]), t.password);
    expect(enabled.html).toContain("fay is not disabled.");
    expect((await t.store.get_user_by_id(eve.id))!.status).toBe("active");
    const staff = await t.store.create_group({ name: "staff", description: null });
    await t.store.add_group_member(staff.id, fay.id, t.clock.now());
    const added = await confirm(browser, bulk_url("add_to_group", [eve, fay], { group: "staff" }), t.password);
    expect(added.html).toContain("fay is already in the group staff.");
    expect(await t.store.list_user_groups(eve.id)).toEqual(["staff"]);
    await console_page(browser, bulk_url("add_to_group", [eve], { group: "nope" }), 422);
    const ended = await confirm(browser, bulk_url("end_sessions", [eve, root]), t.password);
    expect(ended.html).toContain("This is you: end your own sessions on your account page.");
    expect((await t.store.list_audit_events({ user_id: eve.id, type: "admin_console" })).some((event) => event.details?.action === "sessions_ended")).toBe(true);
  });

  test("the helpdesk may end sessions in bulk, never of an administrator, and may not disable", async () => {
    const gil = await t.add_user({ username: "gil" });
    const page = (await console_page(as_helpdesk, `${t.url}/admin/users`)).html;
    expect(page).toContain('<option value="end_sessions">');
    expect(page).not.toContain('<option value="disable">');
    await console_page(as_helpdesk, bulk_url("disable", [gil]), 403);
    const ended = await confirm(as_helpdesk, bulk_url("end_sessions", [gil, root]), t.password);
    expect(ended.status).toBe(200);
    expect(ended.html).toContain("This person holds a role in the admin console: only an administrator may change their account.");
    expect(ended.html).toContain("Done for 1; skipped 1.");
  });
});
