/**
 * No one-click lockout in the admin console (oidc/admin/lockout.ts): an administrator cannot
 * disable, delete or remove from the admin group their own account, and the page says why;
 * another administrator's account they can. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, console_browser, console_page } from "../helpers/admin_console.ts";
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

/** Posts a user action the way its page does: with the page's form token and the administrator's password. */
async function user_action(user: UserRow, action: string): Promise<{ status: number; html: string }> {
  const { csrf } = await console_page(browser, `${t.url}/admin/users/${user.id}`);
  const answer = await browser.post(`${t.url}/admin/users/${user.id}/actions`, { csrf: csrf!, action, password: t.password });
  return { status: answer.status, html: await answer.text() };
}

describe("admin console: no one-click lockout", () => {
  test("an administrator cannot disable or delete their own account; the page says why", async () => {
    const disabled = await user_action(root, "disable");
    expect(disabled.status).toBe(409);
    expect(alert_text(disabled.html)).toBe("You cannot disable your own account: another administrator must do it.");
    const deleted = await user_action(root, "delete");
    expect(deleted.status).toBe(409);
    expect(alert_text(deleted.html)).toBe("You cannot delete your own account: another administrator must do it.");
    expect((await t.store.get_user_by_id(root.id))!.status).toBe("active");
  });

  test("an administrator cannot remove themselves from the admin group; the page says why", async () => {
    const { csrf } = await console_page(browser, `${t.url}/admin/groups`);
    const answer = await browser.post(`${t.url}/admin/groups`, { csrf: csrf!, action: "remove_member", group: "admins", user: "root" });
    expect(answer.status).toBe(409);
    expect(alert_text(await answer.text())).toBe("You cannot remove yourself from the admin group: another administrator must do it.");
    expect(await t.store.list_user_groups(root.id)).toEqual(["admins"]);
  });

  test("another administrator's account can be disabled", async () => {
    const other = await t.add_user({ username: "other-admin" });
    await t.store.add_group_member((await t.store.get_group_by_name("admins"))!.id, other.id, t.clock.now());
    const disabled = await user_action(other, "disable");
    expect(disabled.status).toBe(303);
    expect((await t.store.get_user_by_id(other.id))!.status).toBe("disabled");
  });
});
