/**
 * The account page's profile form and "Delete my account" over HTTP (oidc/accounts/profile.ts):
 * names and user-editable attributes saved (CSRF required, problems shown on the page in the
 * user's language and nothing written), attributes the user may not edit left alone, the change
 * reaching /userinfo; deletion only with IDP_ACCOUNT_SELF_DELETE, the password and the box, then
 * sessions, tokens, consents, passkeys and values gone, audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, account_login, account_page } from "../helpers/browser.ts";
import { get_code, redeem, userinfo } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { add_attribute } from "../../src/oidc/attributes/definitions.ts";
import { read_user_attributes, set_user_attributes } from "../../src/oidc/attributes/values.ts";

let t: TestProvider;
let off: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { account_self_delete: true } });
  off = await start_provider();
  const now = Math.floor(Date.now() / 1000);
  for (const store of [t.store, off.store]) {
    await add_attribute(store, { name: "teams", type: "string[]", scope: "org", user_editable: true }, now);
    await add_attribute(store, { name: "age", type: "number", scope: "org", user_editable: true, required: true }, now);
    await add_attribute(store, { name: "remote", type: "boolean", scope: "org", user_editable: true }, now);
    await add_attribute(store, { name: "badge", type: "string", scope: "org" }, now);
  }
});
afterAll(async () => {
  await t.stop();
  await off.stop();
});

async function signed_in(p: TestProvider, username: string, password = "profile password 1") {
  const user = await p.add_user({ username, name: "Old Name", given_name: "Old" }, password);
  const browser = new Browser();
  expect((await account_login(p, browser, username, password)).status).toBe(303);
  return { user, browser };
}

describe("profile form", () => {
  test("saves names and user-editable attributes; the page and /userinfo show them; audited without values", async () => {
    const { user, browser } = await signed_in(t, "prof1");
    await set_user_attributes(t.store, user.id, { badge: "B-7" }, t.clock.now());
    const { html, csrf } = await account_page(t, browser);
    expect(html).toContain('name="attribute.teams"');
    expect(html).toContain('name="attribute.remote"');
    // Not user-editable: not on the form.
    expect(html).not.toContain('name="attribute.badge"');
    const saved = await browser.post(`${t.url}/account/profile`, {
      csrf,
      name: "  Ada Lovelace ",
      given_name: "Ada",
      family_name: "",
      "attribute.teams": "red, blue",
      "attribute.age": "36",
      "attribute.remote": "true",
      "attribute.badge": "forged",
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`${t.issuer}/account?done=profile_saved`);
    const row = await t.store.get_user_by_id(user.id);
    expect({ name: row?.name, given_name: row?.given_name, family_name: row?.family_name }).toEqual({ name: "Ada Lovelace", given_name: "Ada", family_name: null });
    expect(await read_user_attributes(t.store, user.id)).toEqual({ teams: ["red", "blue"], age: 36, remote: true, badge: "B-7" });
    const page = await (await browser.get(`${t.url}/account?done=profile_saved`)).text();
    expect(page).toContain("Your profile was saved.");
    expect(page).toContain('value="red, blue"');
    // The released claims follow.
    const { code, pkce } = await get_code(t, { scope: "openid profile org" }, { browser });
    const tokens = (await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string };
    expect(await (await userinfo(t, tokens.access_token)).json()).toMatchObject({ name: "Ada Lovelace", teams: ["red", "blue"], age: 36, remote: true, badge: "B-7" });
    const events = await t.store.list_audit_events({ user_id: user.id });
    const event = events.find((e) => e.type === "profile_updated");
    // family_name was empty already: not a change.
    expect(event?.details).toEqual({ fields: ["name", "given_name"], attributes: ["age", "remote", "teams"] });
    expect(JSON.stringify(event)).not.toContain("Lovelace");
  });

  test("problems are shown next to their fields, in the user's language, what was typed kept, nothing written", async () => {
    const { user, browser } = await signed_in(t, "prof2");
    const { csrf } = await account_page(t, browser);
    // The language switcher's cookie: the page answers in French.
    await browser.post(`${t.url}/locale`, { locale: "fr" });
    const refused = await browser.post(`${t.url}/account/profile`, { csrf, name: "New", "attribute.age": "old", "attribute.remote": "maybe", "attribute.teams": "x".repeat(300) });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain("Votre profil n&#39;a pas été enregistré");
    expect(html).toContain("« old » n&#39;est pas un nombre");
    expect(html).toContain("« maybe » n&#39;est ni true ni false");
    expect(html).toContain("un élément dépasse 256 caractères");
    expect(html).toContain('value="old"');
    expect(html).toContain('aria-invalid="true"');
    expect((await t.store.get_user_by_id(user.id))?.name).toBe("Old Name");
    expect(await read_user_attributes(t.store, user.id)).toEqual({});
    // A required attribute cannot be cleared; a too long name is refused.
    await set_user_attributes(t.store, user.id, { age: 30 }, t.clock.now());
    const cleared = await browser.post(`${t.url}/account/profile`, { csrf, "attribute.age": "", name: "n".repeat(201) });
    expect(cleared.status).toBe(400);
    const text = await cleared.text();
    expect(text).toContain("est obligatoire");
    expect(text).toContain("plus de 200 caractères");
    expect(await read_user_attributes(t.store, user.id)).toEqual({ age: 30 });
  });

  test("without the account form token the change is refused", async () => {
    const { user, browser } = await signed_in(t, "prof3");
    const forged = await browser.post(`${t.url}/account/profile`, { csrf: "x".repeat(43), name: "Mallory" });
    expect(forged.status).toBe(403);
    const none = await browser.post(`${t.url}/account/profile`, { name: "Mallory" });
    expect(none.status).toBe(403);
    expect((await t.store.get_user_by_id(user.id))?.name).toBe("Old Name");
  });
});

describe("delete my account", () => {
  test("off by default: not offered, and the endpoint refuses", async () => {
    const { user, browser } = await signed_in(off, "keep1");
    const { html, csrf } = await account_page(off, browser);
    expect(html).not.toContain("Delete my account");
    const refused = await browser.post(`${off.url}/account/delete`, { csrf, current_password: "profile password 1", understood: "yes" });
    expect(refused.status).toBe(400);
    expect(await off.store.get_user_by_id(user.id)).not.toBeNull();
  });

  test("needs the box and the password; then the account, its sessions, tokens, consents and values are gone, audited", async () => {
    const { user, browser } = await signed_in(t, "gone1");
    await set_user_attributes(t.store, user.id, { teams: ["x"] }, t.clock.now());
    const { code, pkce } = await get_code(t, { scope: "openid" }, { browser });
    const tokens = (await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string };
    expect((await userinfo(t, tokens.access_token)).status).toBe(200);
    const { html, csrf } = await account_page(t, browser);
    expect(html).toContain("Delete my account");
    const unticked = await browser.post(`${t.url}/account/delete`, { csrf, current_password: "profile password 1" });
    expect(unticked.status).toBe(400);
    expect(await unticked.text()).toContain("Tick the box to confirm");
    const wrong = await browser.post(`${t.url}/account/delete`, { csrf, current_password: "nope", understood: "yes" });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Your password is not right.");
    expect(await t.store.get_user_by_id(user.id)).not.toBeNull();
    const done = await browser.post(`${t.url}/account/delete`, { csrf, current_password: "profile password 1", understood: "yes" });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Account deleted");
    expect(await t.store.get_user_by_id(user.id)).toBeNull();
    expect(await t.store.list_sessions_for_user(user.id)).toEqual([]);
    expect(await t.store.list_grants_for_user(user.id)).toEqual([]);
    expect(await t.store.list_user_attribute_values([user.id])).toEqual([]);
    expect((await userinfo(t, tokens.access_token)).status).toBe(401);
    // The browser is signed out: the account page asks to sign in.
    expect((await browser.get(`${t.url}/account`)).status).toBe(302);
    const events = await t.store.list_audit_events({ type: "account_deleted" });
    expect(events.find((e) => (e.details as { user_id?: string } | null)?.user_id === user.id)?.details).toEqual({ user_id: user.id, username: "gone1" });
  });
});
