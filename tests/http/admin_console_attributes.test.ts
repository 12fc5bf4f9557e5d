/**
 * The console's custom attributes (/admin/attributes): the list, the declare form (the rules of
 * `idp attributes add`: the same words when they refuse, the form kept, nothing stored), the
 * edit form (with the ETag of what it showed), the removal through its confirmation page (the
 * password; every user's value goes with it), the roles (the auditor reads, the helpdesk gets
 * 403), and the user page showing and setting a user's values, checked by type. Plain HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { add_attribute } from "../../src/oidc/attributes/definitions.ts";
import { read_user_attributes } from "../../src/oidc/attributes/values.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, confirm, confirm_form, console_browser, console_page, form_fields, with_fields } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

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

async function declare(form: Record<string, string>): Promise<Response> {
  const { html } = await console_page(browser, `${t.url}/admin/attributes`);
  return browser.post(`${t.url}/admin/attributes`, with_fields(form_fields(html, "add-attribute-form"), form));
}

describe("admin console: attributes", () => {
  test("declares one with the form: stored, audited, listed; in the navigation after the groups", async () => {
    const added = await declare({ name: "department", type: "string", scope: "org", claim: "dept", user_editable: "on" });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe(`${t.issuer}/admin/attributes?done=attribute_created`);
    expect(await t.store.get_attribute_definition("department")).toMatchObject({
      name: "department",
      type: "string",
      scope: "org",
      claim: "dept",
      user_editable: true,
      required: false,
    });
    const { html } = await console_page(browser, added.headers.get("location")!);
    expect(html).toContain("The attribute was declared: set its values on the users&#39; pages.");
    expect(main(html)).toContain(
      '<td class="nowrap"><code>department</code></td><td class="nowrap"><code>string</code></td><td class="nowrap"><code>org</code></td><td class="nowrap"><code>dept</code></td><td>Yes</td><td>No</td>',
    );
    expect(html).toMatch(/Groups<\/a><\/li>\s*<li><a href="[^"]*\/admin\/attributes" aria-current="page">Attributes<\/a>/);
    const [event] = await t.store.list_audit_events({ type: "admin_console", limit: 1 });
    expect(event!.details).toMatchObject({ actor: `user:${root.id}`, action: "attribute_created", name: "department", claim: "dept" });
  });

  test("bad input is refused with the words of `idp attributes add`, the form kept, nothing stored; a form without the token is refused", async () => {
    const cases: [Record<string, string>, string, number][] = [
      [{ name: "9lives", type: "string" }, 'name: "9lives" is not valid: use 1 to 64 ASCII letters, digits or _, starting with a letter', 422],
      [{ name: "DEPARTMENT", type: "number" }, "attribute DEPARTMENT exists already (name: is taken)", 409],
      [{ name: "mail2", type: "string", claim: "email" }, 'claim: "email" is a registered claim name', 422],
      [{ name: "kind", type: "integer" }, 'type: "integer" is not a type: use one of string, number, boolean, string[]', 422],
    ];
    for (const [form, words, status] of cases) {
      const answer = await declare(form);
      const html = await answer.text();
      expect([form, answer.status]).toEqual([form, status]);
      expect([form, alert_text(html)]).toEqual([form, words]);
      expect(html).toContain(`id="attribute-name" name="name" type="text" value="${form.name}"`);
    }
    expect((await t.store.list_attribute_definitions()).map((d) => d.name)).toEqual(["department"]);
    expect((await browser.post(`${t.url}/admin/attributes`, { name: "forged", type: "string" })).status).toBe(403);
    expect(await t.store.get_attribute_definition("forged")).toBeNull();
  });

  test("edit: the form shows the attribute; saving changes scope, claim and flags; a stale form changes nothing (412)", async () => {
    const page = await console_page(browser, `${t.url}/admin/attributes?edit=DEPARTMENT`);
    const fields = form_fields(page.html, "edit-attribute-form");
    expect(Object.fromEntries(fields)).toMatchObject({ name: "department", scope: "org", claim: "dept", user_editable: "on" });
    const saved = await browser.post(`${t.url}/admin/attributes/update`, with_fields(fields, { scope: "profile", required: true }));
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`${t.issuer}/admin/attributes?done=attribute_updated`);
    expect(await t.store.get_attribute_definition("department")).toMatchObject({ scope: "profile", claim: "dept", required: true });
    // The same (now stale) form again: refused, nothing changed.
    const stale = await browser.post(`${t.url}/admin/attributes/update`, with_fields(fields, { claim: "division" }));
    expect(stale.status).toBe(412);
    expect((await t.store.get_attribute_definition("department"))!.claim).toBe("dept");
  });

  test("the user page shows every attribute's value and sets them by type; a bad value changes nothing and names it", async () => {
    await add_attribute(t.store, { name: "badge", type: "number", scope: "org" }, t.clock.now());
    await add_attribute(t.store, { name: "teams", type: "string[]", scope: "org" }, t.clock.now());
    const pat = await t.add_user({ username: "pat" });
    await t.store.set_user_attribute_values(pat.id, { department: "Ops" }, t.clock.now());
    const url = `${t.url}/admin/users/${pat.id}`;
    const page = await console_page(browser, url);
    const fields = form_fields(page.html, "profile-form");
    expect(Object.fromEntries(fields)).toMatchObject({ "attribute.department": "Ops", "attribute.badge": "", "attribute.teams": "" });

    const bad = await browser.post(url, with_fields(fields, { "attribute.badge": "forty-two", "attribute.teams": "red" }));
    expect(bad.status).toBe(422);
    expect(alert_text(await bad.text())).toContain('badge: "forty-two" is not a number');
    expect(await read_user_attributes(t.store, pat.id)).toEqual({ department: "Ops" });

    const ok = await browser.post(url, with_fields(fields, { "attribute.badge": "42", "attribute.teams": "red, blue", "attribute.department": "Sales" }));
    expect(ok.status).toBe(303);
    expect(await read_user_attributes(t.store, pat.id)).toEqual({ department: "Sales", badge: 42, teams: ["red", "blue"] });
    const [event] = await t.store.list_audit_events({ type: "admin_console", limit: 1 });
    expect(event!.details).toMatchObject({ action: "user_updated", attributes: ["badge", "department", "teams"] });
    expect(JSON.stringify(event!.details)).not.toContain("Sales");

    // A required attribute may not be cleared here either.
    const fresh = form_fields((await console_page(browser, url)).html, "profile-form");
    const cleared = await browser.post(url, with_fields(fresh, { "attribute.department": "" }));
    expect(cleared.status).toBe(422);
    expect(alert_text(await cleared.text())).toContain("department: is required");
    // The auditor sees the values, with no form.
    const seen = main((await console_page(as_auditor, url)).html);
    expect(seen).toContain("<dt><code>teams</code></dt><dd>red, blue</dd>");
    expect(seen).not.toContain('id="profile-form"');
  });

  test("removal: its page says what happens; the wrong password changes nothing, the right one removes it and every user's value", async () => {
    const url = `${t.url}/admin/attributes/confirm?action=remove&name=teams`;
    const { html } = await console_page(browser, url);
    expect(html).toContain('class="section danger-zone"');
    expect(html).toContain("The attribute <strong>teams</strong> is removed with every user's value of it");
    expect(confirm_form(html)).toMatchObject({ action: `${t.issuer}/admin/attributes/remove`, fields: { name: "teams" } });
    const wrong = await confirm(browser, url, "not my password");
    expect(wrong.status).toBe(403);
    expect(await t.store.get_attribute_definition("teams")).not.toBeNull();
    const right = await confirm(browser, url, t.password);
    expect(right.status).toBe(303);
    expect(right.location).toBe(`${t.issuer}/admin/attributes?done=attribute_removed`);
    expect(await t.store.get_attribute_definition("teams")).toBeNull();
    const pat = (await t.store.get_user_by_username("pat"))!;
    expect(Object.keys(await read_user_attributes(t.store, pat.id)).sort()).toEqual(["badge", "department"]);
    await console_page(browser, url, 404);
  });

  test("the auditor reads the list with no form or link; the helpdesk sees no attributes; their changes are refused (403)", async () => {
    const { html, csrf } = await console_page(as_auditor, `${t.url}/admin/attributes`);
    const content = main(html);
    expect(content).toContain("<code>department</code>");
    expect(content).not.toContain('method="post"');
    expect(content).not.toContain("/confirm?");
    expect((await as_auditor.post(`${t.url}/admin/attributes`, { csrf: csrf!, name: "auditor", type: "string" })).status).toBe(403);
    await console_page(as_auditor, `${t.url}/admin/attributes/confirm?action=remove&name=department`, 403);

    const help = await console_page(as_helpdesk, `${t.url}/admin/users`);
    expect(help.html).not.toContain(`href="${t.issuer}/admin/attributes"`);
    await console_page(as_helpdesk, `${t.url}/admin/attributes`, 403);
    expect((await as_helpdesk.post(`${t.url}/admin/attributes/remove`, { csrf: help.csrf!, name: "department", password: t.password })).status).toBe(403);
    expect(await t.store.get_attribute_definition("auditor")).toBeNull();
    expect(await t.store.get_attribute_definition("department")).not.toBeNull();
  });
});
