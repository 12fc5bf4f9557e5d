/**
 * No one-click lockout in the admin console (oidc/admin/lockout.ts): an administrator cannot
 * disable, delete or remove from the admin group their own account: the confirmation page says
 * why and has no form, and a post made anyway with a valid confirmation is refused the same way;
 * another administrator's account they can. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
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

const SELF: Record<string, string> = {
  disable: "You cannot disable your own account: another administrator must do it.",
  delete: "You cannot delete your own account: another administrator must do it.",
  remove_admin: "You cannot remove yourself from the admin group: another administrator must do it.",
};

describe("admin console: no one-click lockout", () => {
  test("an administrator cannot disable, delete or remove from the admin group their own account; the page says why", async () => {
    for (const [action, words] of Object.entries(SELF)) {
      const { html } = await console_page(browser, `${t.url}/admin/users/${root.id}/confirm?action=${action}`, 409);
      expect(alert_text(html)).toBe(words);
      expect(confirm_form(html)).toBeNull();
    }
    expect((await t.store.get_user_by_id(root.id))!.status).toBe("active");
    expect(await t.store.list_user_groups(root.id)).toEqual(["admins"]);
  });

  test("another user's confirmation aimed at oneself does not fit (403) and changes nothing", async () => {
    const other = await t.add_user({ username: "helper" });
    const { html } = await console_page(browser, `${t.url}/admin/users/${other.id}/confirm?action=disable`);
    const form = confirm_form(html)!;
    const forged = await browser.post(`${t.url}/admin/users/${root.id}/actions`, { ...form.fields, password: t.password });
    expect(forged.status).toBe(403);
    expect((await t.store.get_user_by_id(root.id))!.status).toBe("active");
  });

  test("removing oneself from the admin group on the groups page leads to the refusal", async () => {
    const { csrf } = await console_page(browser, `${t.url}/admin/groups`);
    const answer = await browser.post(`${t.url}/admin/groups`, { csrf: csrf!, action: "remove_member", group: "admins", user: "root" });
    expect(answer.status).toBe(303);
    const { html } = await console_page(browser, answer.headers.get("location")!, 409);
    expect(alert_text(html)).toBe(SELF.remove_admin!);
    expect(await t.store.list_user_groups(root.id)).toEqual(["admins"]);
  });

  test("another administrator's account can be disabled", async () => {
    const other = await t.add_user({ username: "other-admin" });
    await t.store.add_group_member((await t.store.get_group_by_name("admins"))!.id, other.id, t.clock.now());
    const disabled = await confirm(browser, `${t.url}/admin/users/${other.id}/confirm?action=disable`, t.password);
    expect(disabled.status).toBe(303);
    expect((await t.store.get_user_by_id(other.id))!.status).toBe("disabled");
  });
});
