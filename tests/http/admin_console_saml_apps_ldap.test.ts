/**
 * The console's SAML applications, protected applications and LDAP service accounts
 * (/admin/saml, /admin/apps, /admin/ldap-accounts): the lists and pages, the add and edit forms
 * (the rules of `idp saml`, `idp apps`, `idp ldap service-accounts`: the same words when they
 * refuse, nothing stored), removal and password rotation through their confirmation pages
 * (password), a password shown once, forms without the console's token refused, and the roles:
 * the auditor reads, the helpdesk gets 403. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { create_app } from "../../src/oidc/admin/apps.ts";
import { add_service_account } from "../../src/oidc/admin/ldap_service_accounts.ts";
import { create_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, confirm, confirm_form, console_browser, console_page, form_fields, with_fields } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { sp_key, sp_metadata } from "../helpers/saml.ts";
import { serve_fetch } from "../helpers/serve_fetch.ts";

let t: TestProvider;
let root: UserRow;
let browser: Browser;
let as_auditor: Browser;
let as_helpdesk: Browser;

beforeAll(async () => {
  t = await start_provider({
    config: { admin_console: { auditor_group: "auditors", helpdesk_group: "helpdesk" }, outbound: { allow_http: true, allow: ["127.0.0.1"] } },
  });
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
  await t.store.create_group({ name: "Staff", description: null });
  await t.store.create_group({ name: "Ops", description: null });
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

const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

describe("admin console: SAML applications", () => {
  const entity = "https://wiki.example.com/saml";
  const metadata = sp_metadata({ entity_id: entity, acs: ["https://wiki.example.com/saml/acs"] });

  test("add from pasted metadata: its page shows the entityID, ACS URL and our metadata URL; edit the options; remove with the password", async () => {
    const list = await console_page(browser, `${t.url}/admin/saml`);
    // In the navigation, after the sign-in providers.
    expect(list.html).toMatch(
      /Sign-in providers<\/a><\/li>\s*<li><a href="[^"]*\/admin\/saml" aria-current="page">SAML applications<\/a><\/li>\s*<li><a href="[^"]*\/admin\/apps">Protected applications<\/a><\/li>\s*<li><a href="[^"]*\/admin\/ldap-accounts">LDAP service accounts<\/a>/,
    );
    expect(main(list.html)).toContain("No SAML application is registered yet.");
    const added = await browser.post(`${t.url}/admin/saml`, { csrf: list.csrf!, name: "Team wiki", metadata_xml: metadata, metadata_url: "" });
    expect(added.status).toBe(303);
    const location = added.headers.get("location")!;
    expect(location).toBe(`${t.issuer}/admin/saml/sp?entity_id=${encodeURIComponent(entity)}&done=saml_sp_created`);
    const { html } = await console_page(browser, location);
    const content = main(html);
    expect(content).toContain("The SAML application was added. Give it our metadata URL.");
    expect(content).toContain(`<code id="saml-entity-id">${entity}</code>`);
    expect(content).toContain("<code>https://wiki.example.com/saml/acs</code>");
    expect(content).toContain(`id="idp-metadata-url" type="text" value="${t.issuer}/saml/metadata" readonly`);
    expect(content).toContain('<dd id="saml-sp-name">Team wiki</dd>');
    const [event] = await t.store.list_audit_events({ type: "admin_console", limit: 1 });
    expect(event!.details).toMatchObject({ actor: `user:${root.id}`, action: "saml_sp_created", entity_id: entity });

    // The list links to it.
    expect(main((await console_page(browser, `${t.url}/admin/saml`)).html)).toContain(`href="${t.issuer}/admin/saml/sp?entity_id=${encodeURIComponent(entity)}">Team wiki</a>`);

    // Edit: NameID, attributes, groups (as the group spells itself), IdP-initiated, signing.
    const fields = form_fields(html, "edit-form");
    const saved = await browser.post(
      `${t.url}/admin/saml/sp`,
      with_fields(fields, { nameid_format: "email", attributes: "employeeType=groups\r\nurn:oid:2.5.4.12=nickname", groups: "staff, ops", idp_initiated: true, sign: "both" }),
    );
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toContain("&done=saml_sp_updated");
    expect(await t.store.get_saml_service_provider(entity)).toMatchObject({
      name: "Team wiki",
      nameid_format: "email",
      attributes: { employeeType: "groups", "urn:oid:2.5.4.12": "nickname" },
      allowed_groups: ["Staff", "Ops"],
      idp_initiated: true,
      sign: "both",
    });
    // The form read before the change is stale now: refused, nothing overwritten.
    const stale = await browser.post(`${t.url}/admin/saml/sp`, with_fields(fields, { nameid_format: "transient" }));
    expect(stale.status).toBe(409);
    expect(alert_text(await stale.text())).toContain("changed by someone else");
    expect((await t.store.get_saml_service_provider(entity))!.nameid_format).toBe("email");

    const fresh = form_fields((await console_page(browser, `${t.url}/admin/saml/sp?entity_id=${encodeURIComponent(entity)}`)).html, "edit-form");
    for (const [change, words] of [
      [{ attributes: "no-equals-sign" }, 'attributes: each line must be NAME=CLAIM (employeeType=groups), not "no-equals-sign"'],
      [{ groups: "nobody-has-this" }, 'allowed_groups: no group "nobody-has-this" (create it first)'],
      [{ name: "" }, "name: must be 1 to 100 characters without control characters"],
      [
        { metadata_xml: sp_metadata({ entity_id: "https://other.example.com/sp", acs: ["https://other.example.com/acs"] }) },
        `metadata: the metadata describes https://other.example.com/sp, not ${entity}`,
      ],
    ] as const) {
      const refused = await browser.post(`${t.url}/admin/saml/sp`, with_fields(fresh, change));
      expect([change, refused.status]).toEqual([change, 422]);
      expect([change, alert_text(await refused.text())]).toEqual([change, words]);
    }
    expect((await t.store.get_saml_service_provider(entity))!.name).toBe("Team wiki");

    // Encrypted assertions: refused while the metadata has no encryption certificate, then on with one.
    const no_key = await browser.post(`${t.url}/admin/saml/sp`, with_fields(fresh, { encrypt: true }));
    expect(no_key.status).toBe(422);
    expect(alert_text(await no_key.text())).toContain("encrypt: the service provider's metadata has no RSA encryption certificate");
    expect((await t.store.get_saml_service_provider(entity))!.encrypt).toBe(false);
    const key = await sp_key("wiki.example.com");
    const keyed = sp_metadata({ entity_id: entity, acs: ["https://wiki.example.com/saml/acs"], encryption_certificate: key.certificate });
    const on = await browser.post(`${t.url}/admin/saml/sp`, with_fields(fresh, { encrypt: true, metadata_xml: keyed }));
    expect(on.status).toBe(303);
    expect((await t.store.get_saml_service_provider(entity))!.encrypt).toBe(true);
    const shown = main((await console_page(browser, `${t.url}/admin/saml/sp?entity_id=${encodeURIComponent(entity)}`)).html);
    expect(shown).toMatch(/<input id="saml-encrypt" name="encrypt" type="checkbox" value="on" checked>/);

    const confirm_url = `${t.url}/admin/saml/confirm?action=remove&entity_id=${encodeURIComponent(entity)}`;
    const zone = await console_page(browser, confirm_url);
    expect(zone.html).toContain("Nobody signs in to <strong>Team wiki</strong> from now on.");
    expect(confirm_form(zone.html)).toMatchObject({ action: `${t.issuer}/admin/saml/remove`, fields: { entity_id: entity } });
    // The console's ordinary form token does not remove it.
    expect((await browser.post(`${t.url}/admin/saml/remove`, { csrf: list.csrf!, entity_id: entity, password: t.password })).status).toBe(403);
    const wrong = await confirm(browser, confirm_url, "not my password");
    expect(wrong.status).toBe(403);
    expect(await t.store.get_saml_service_provider(entity)).not.toBeNull();
    const right = await confirm(browser, confirm_url, t.password);
    expect([right.status, right.location]).toEqual([303, `${t.issuer}/admin/saml?done=saml_sp_removed`]);
    expect(await t.store.get_saml_service_provider(entity)).toBeNull();
    await console_page(browser, confirm_url, 404);
  });

  test("add from a metadata URL through the outbound fence; bad metadata and a private address are refused with the form kept", async () => {
    const fetched = "https://fetched.example.com/sp";
    const server = await serve_fetch(() => new Response(sp_metadata({ entity_id: fetched, acs: ["https://fetched.example.com/acs"] })));
    try {
      const { csrf } = await console_page(browser, `${t.url}/admin/saml`);
      const url = `http://127.0.0.1:${server.port}/metadata`;
      const added = await browser.post(`${t.url}/admin/saml`, { csrf: csrf!, name: "", metadata_xml: "", metadata_url: url });
      expect(added.status).toBe(303);
      expect(await t.store.get_saml_service_provider(fetched)).toMatchObject({ metadata_url: url, name: fetched });
      for (const [form, field] of [
        [{ metadata_xml: "", metadata_url: "" }, "metadata: paste the service provider's metadata or give its URL"],
        [{ metadata_xml: "<not-metadata/>", metadata_url: "" }, "metadata:"],
        [{ metadata_xml: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`, metadata_url: "" }, "metadata:"],
        [{ metadata_xml: "", metadata_url: "http://192.168.0.1/metadata" }, "metadata_url: http://192.168.0.1/metadata could not be fetched"],
        [{ metadata_xml: metadata, metadata_url: url }, "metadata: paste the metadata or give its URL, not both"],
      ] as const) {
        const refused = await browser.post(`${t.url}/admin/saml`, { csrf: csrf!, name: "Kept", ...form });
        const html = await refused.text();
        expect([form, refused.status]).toEqual([form, 422]);
        expect(alert_text(html)).toStartWith(field);
        expect(html).toContain('id="saml-name" name="name" type="text" value="Kept"');
      }
      // Registered twice: a conflict.
      expect((await browser.post(`${t.url}/admin/saml`, { csrf: csrf!, name: "", metadata_xml: "", metadata_url: url })).status).toBe(409);
      expect((await t.store.list_saml_service_providers()).map((sp) => sp.entity_id)).toEqual([fetched]);
    } finally {
      await server.stop();
      await t.store.delete_saml_service_provider(fetched);
    }
  });

  test("a form without the console's token is refused; the auditor reads without forms; the helpdesk gets 403", async () => {
    expect((await browser.post(`${t.url}/admin/saml`, { metadata_xml: metadata })).status).toBe(403);
    expect(await t.store.get_saml_service_provider(entity)).toBeNull();
    await create_saml_service_provider(t.store, { metadata_xml: metadata, name: "Audited" }, t.clock.now());
    const sp_url = `${t.url}/admin/saml/sp?entity_id=${encodeURIComponent(entity)}`;
    const seen = await console_page(as_auditor, sp_url);
    expect(main(seen.html)).toContain(`<code id="saml-entity-id">${entity}</code>`);
    expect(main(seen.html)).not.toContain('method="post"');
    expect(main((await console_page(as_auditor, `${t.url}/admin/saml`)).html)).not.toContain('method="post"');
    await console_page(as_auditor, `${t.url}/admin/saml/confirm?action=remove&entity_id=${encodeURIComponent(entity)}`, 403);
    expect((await as_auditor.post(`${t.url}/admin/saml/sp`, { csrf: seen.csrf!, entity_id: entity, name: "Changed" })).status).toBe(403);
    const helpdesk = await console_page(as_helpdesk, `${t.url}/admin/users`);
    expect(helpdesk.html).not.toContain(`href="${t.issuer}/admin/saml"`);
    await console_page(as_helpdesk, `${t.url}/admin/saml`, 403);
    await console_page(as_helpdesk, sp_url, 403);
    expect((await as_helpdesk.post(`${t.url}/admin/saml`, { csrf: helpdesk.csrf!, metadata_xml: metadata })).status).toBe(403);
    expect((await t.store.get_saml_service_provider(entity))!.name).toBe("Audited");
    await t.store.delete_saml_service_provider(entity);
  });
});

describe("admin console: protected applications", () => {
  test("add with rules, its page lists them; edit; a stale form and bad rules are refused; remove with the password", async () => {
    const list = await console_page(browser, `${t.url}/admin/apps`);
    expect(main(list.html)).toContain("No protected application is registered yet.");
    // IDP_FORWARD_AUTH_COOKIE_DOMAIN is not set here: the page says forward authentication is off.
    expect(main(list.html)).toContain('id="forward-auth-off"');
    const added = await browser.post(`${t.url}/admin/apps`, {
      csrf: list.csrf!,
      name: "grafana",
      url: "https://grafana.example.com",
      groups: "staff",
      rules: "/admin=ops+2fa\n\n/public=*",
    });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe(`${t.issuer}/admin/apps/grafana?done=app_created`);
    expect(await t.store.get_protected_app("grafana")).toMatchObject({
      url: "https://grafana.example.com",
      allowed_groups: ["Staff"],
      require_2fa: false,
      rules: [
        { prefix: "/admin", groups: ["Ops"], require_2fa: true },
        { prefix: "/public", groups: [], require_2fa: false },
      ],
    });
    const { html } = await console_page(browser, added.headers.get("location")!);
    expect(main(html)).toContain("The protected application was added: the reverse proxy now asks before each request.");
    expect(main(html)).toContain('<tr><td class="nowrap"><code>/admin</code></td><td>Ops</td><td class="nowrap">Yes</td></tr>');
    expect(main(html)).toContain('id="cookie-warning"');
    expect(main((await console_page(browser, `${t.url}/admin/apps`)).html)).toContain(`<a href="${t.issuer}/admin/apps/grafana">grafana</a>`);

    const fields = form_fields(html, "edit-form");
    expect(fields).toContainEqual(["rules", "/admin=Ops+2fa\n/public=*"]);
    const saved = await browser.post(`${t.url}/admin/apps/grafana`, with_fields(fields, { require_2fa: true, rules: "/admin=ops" }));
    expect(saved.status).toBe(303);
    expect(await t.store.get_protected_app("grafana")).toMatchObject({ require_2fa: true, rules: [{ prefix: "/admin", groups: ["Ops"], require_2fa: false }] });
    const stale = await browser.post(`${t.url}/admin/apps/grafana`, with_fields(fields, { require_2fa: false }));
    expect(stale.status).toBe(409);
    expect((await t.store.get_protected_app("grafana"))!.require_2fa).toBe(true);

    const fresh = form_fields((await console_page(browser, `${t.url}/admin/apps/grafana`)).html, "edit-form");
    for (const change of [{ url: "ftp://grafana.example.com" }, { rules: "admin" }, { groups: "nobody-has-this" }] as Record<string, string>[]) {
      const refused = await browser.post(`${t.url}/admin/apps/grafana`, with_fields(fresh, change));
      const body = await refused.text();
      expect([change, refused.status]).toEqual([change, 422]);
      expect(alert_text(body)).not.toBeNull();
    }
    // Taken name and place: conflicts, the form kept.
    const taken = await browser.post(`${t.url}/admin/apps`, { csrf: list.csrf!, name: "grafana", url: "https://other.example.com" });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('id="app-url" name="url" type="url" value="https://other.example.com"');
    expect((await browser.post(`${t.url}/admin/apps`, { name: "forged", url: "https://forged.example.com" })).status).toBe(403);
    expect(await t.store.get_protected_app("forged")).toBeNull();

    const confirm_url = `${t.url}/admin/apps/grafana/confirm?action=remove`;
    const zone = await console_page(browser, confirm_url);
    expect(zone.html).toContain("the reverse proxy's checks for <strong>https://grafana.example.com</strong> are refused");
    expect((await confirm(browser, confirm_url, "not my password")).status).toBe(403);
    expect(await t.store.get_protected_app("grafana")).not.toBeNull();
    const right = await confirm(browser, confirm_url, t.password);
    expect([right.status, right.location]).toEqual([303, `${t.issuer}/admin/apps?done=app_removed`]);
    expect(await t.store.get_protected_app("grafana")).toBeNull();
    const events = await t.store.list_audit_events({ type: "admin_console", limit: 20 });
    const actions = events.map((event) => [event.outcome, event.details?.action]);
    for (const action of ["protected_app_created", "protected_app_updated", "protected_app_deleted"]) expect(actions).toContainEqual(["success", action]);
    await console_page(browser, `${t.url}/admin/apps/grafana`, 404);
  });

  test("the auditor reads without forms; the helpdesk gets 403", async () => {
    await create_app(t.store, "wiki", { url: "https://wiki.example.com" }, t.clock.now());
    const seen = await console_page(as_auditor, `${t.url}/admin/apps/wiki`);
    expect(main(seen.html)).toContain('<code id="app-url-value">https://wiki.example.com</code>');
    expect(main(seen.html)).not.toContain('method="post"');
    await console_page(as_auditor, `${t.url}/admin/apps/wiki/confirm?action=remove`, 403);
    expect((await as_auditor.post(`${t.url}/admin/apps/wiki`, { csrf: seen.csrf!, url: "https://changed.example.com" })).status).toBe(403);
    await console_page(as_helpdesk, `${t.url}/admin/apps`, 403);
    await console_page(as_helpdesk, `${t.url}/admin/apps/wiki`, 403);
    expect((await t.store.get_protected_app("wiki"))!.url).toBe("https://wiki.example.com");
    await t.store.delete_protected_app("wiki");
  });
});

describe("admin console: LDAP service accounts", () => {
  test("add: the password shown once (its SHA-256 stored), never on the list; rotate with the password shows a new one; remove", async () => {
    const list = await console_page(browser, `${t.url}/admin/ldap-accounts`);
    expect(main(list.html)).toContain("No service account exists yet.");
    expect(main(list.html)).toContain('id="ldap-off"');
    const added = await browser.post(`${t.url}/admin/ldap-accounts`, { csrf: list.csrf!, name: "nextcloud", group: "Staff" });
    expect(added.status).toBe(201);
    const shown = await added.text();
    expect(added.headers.get("cache-control")).toContain("no-store");
    const password = decode(/<code id="ldap-password" class="secret">([^<]*)<\/code>/.exec(shown)![1]!);
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(shown).toContain('<code id="bind-dn">cn=nextcloud,ou=services,');
    expect(shown).toContain("Copy the password now: it is shown only this once");
    const row = (await t.store.get_ldap_service_account("nextcloud"))!;
    expect(row).toMatchObject({ group_name: "Staff", secret_hash: sha256(password) });

    const listed = main((await console_page(browser, `${t.url}/admin/ldap-accounts`)).html);
    expect(listed).toContain("<code>nextcloud</code>");
    expect(listed).not.toContain(password);
    expect(listed).not.toContain(row.secret_hash);

    for (const [form, status, words] of [
      [{ name: "nextcloud", group: "" }, 409, "service account nextcloud exists already (name: is taken)"],
      [{ name: "bad,name", group: "" }, 422, 'name: "bad,name" is not valid: use 1 to 64 ASCII letters, digits or . _ - (starting with a letter or digit)'],
    ] as const) {
      const refused = await browser.post(`${t.url}/admin/ldap-accounts`, { csrf: list.csrf!, ...form });
      const html = await refused.text();
      expect([form, refused.status]).toEqual([form, status]);
      expect(alert_text(html)).toBe(words);
      expect(html).toContain(`id="ldap-account-name" name="name" type="text" value="${form.name}"`);
    }
    expect((await browser.post(`${t.url}/admin/ldap-accounts`, { name: "forged" })).status).toBe(403);
    expect(await t.store.get_ldap_service_account("forged")).toBeNull();

    const rotate_url = `${t.url}/admin/ldap-accounts/confirm?action=rotate&name=nextcloud`;
    const zone = await console_page(browser, rotate_url);
    expect(zone.html).toContain("stops working at once");
    expect(confirm_form(zone.html)).toMatchObject({ action: `${t.issuer}/admin/ldap-accounts/rotate`, fields: { name: "nextcloud" } });
    // The console's ordinary token does not rotate it.
    expect((await browser.post(`${t.url}/admin/ldap-accounts/rotate`, { csrf: list.csrf!, name: "nextcloud", password: t.password })).status).toBe(403);
    expect((await confirm(browser, rotate_url, "not my password")).status).toBe(403);
    expect((await t.store.get_ldap_service_account("nextcloud"))!.secret_hash).toBe(sha256(password));
    const rotated = await confirm(browser, rotate_url, t.password);
    expect(rotated.status).toBe(200);
    const fresh = decode(/<code id="ldap-password" class="secret">([^<]*)<\/code>/.exec(rotated.html)![1]!);
    expect(fresh).not.toBe(password);
    expect(rotated.html).toContain("Copy the new password now: it is shown only this once.");
    expect((await t.store.get_ldap_service_account("nextcloud"))!.secret_hash).toBe(sha256(fresh));
    expect(main((await console_page(browser, `${t.url}/admin/ldap-accounts`)).html)).not.toContain(fresh);

    const remove_url = `${t.url}/admin/ldap-accounts/confirm?action=remove&name=nextcloud`;
    const removed = await confirm(browser, remove_url, t.password);
    expect([removed.status, removed.location]).toEqual([303, `${t.issuer}/admin/ldap-accounts?done=ldap_account_removed`]);
    expect(await t.store.get_ldap_service_account("nextcloud")).toBeNull();
    await console_page(browser, remove_url, 404);

    // The audit log names the account, never a password or its hash.
    const log = JSON.stringify(await t.store.list_audit_events({ limit: 10_000 }));
    for (const secret of [password, fresh, row.secret_hash]) expect(log).not.toContain(secret);
    const actions = (await t.store.list_audit_events({ type: "admin_console", limit: 30 })).map((event) => [event.outcome, event.details?.action]);
    for (const action of ["ldap_service_account_created", "ldap_service_account_rotated", "ldap_service_account_removed"]) expect(actions).toContainEqual(["success", action]);
  });

  test("the auditor reads the list without forms or links; the helpdesk gets 403", async () => {
    await add_service_account(t.store, { name: "gitea" }, t.clock.now());
    const seen = await console_page(as_auditor, `${t.url}/admin/ldap-accounts`);
    expect(main(seen.html)).toContain("<code>gitea</code>");
    expect(main(seen.html)).not.toContain('method="post"');
    expect(main(seen.html)).not.toContain("/confirm?");
    await console_page(as_auditor, `${t.url}/admin/ldap-accounts/confirm?action=rotate&name=gitea`, 403);
    expect((await as_auditor.post(`${t.url}/admin/ldap-accounts`, { csrf: seen.csrf!, name: "auditor" })).status).toBe(403);
    await console_page(as_helpdesk, `${t.url}/admin/ldap-accounts`, 403);
    expect(await t.store.get_ldap_service_account("auditor")).toBeNull();
    await t.store.delete_ldap_service_account("gitea");
  });
});
