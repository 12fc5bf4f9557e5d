/**
 * The console's applications (endpoints/admin_console/clients.ts, client.ts, client_action.ts):
 * a list searched by any part of the name or client ID; a page per application that shows and
 * edits every setting `idp clients add|update` knows, saved by the admin API's PATCH rules (the
 * same words for the same bad value, next to the field, with what was typed kept), the ETag of
 * what it showed (a stale form is 412), the secret following the authentication method, the
 * outbound fence's warnings after a save, a password for an admin client's credentials, and
 * nothing but the settings as text for an auditor. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { exportJWK, generateKeyPair } from "jose";
import type { ClientMetadata, ClientRow, UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, console_browser, console_page, form_fields, with_fields } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const API = "/admin/api/v1";
const EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

let t: TestProvider;
let root: UserRow;
let browser: Browser;
let as_auditor: Browser;
let ops: { client_id: string; secret: string };

beforeAll(async () => {
  t = await start_provider({ config: { admin_console: { auditor_group: "auditors" } } });
  root = await t.add_user({ username: "root" });
  const auditor = await t.add_user({ username: "audrey" });
  for (const [group, user] of [
    ["admins", root],
    ["auditors", auditor],
    ["staff", null],
  ] as const) {
    const row = await t.store.create_group({ name: group, description: null });
    if (user !== null) await t.store.add_group_member(row.id, user.id, t.clock.now());
  }
  await t.store.create_resource_server({ uri: "https://api.example.com", scopes: [] });
  browser = await console_browser(t, root);
  as_auditor = await console_browser(t, auditor);
  const { client, secret } = await t.add_client({ client_name: "ops", grant_types: ["client_credentials"], response_types: [], admin: true, scope: "admin" });
  ops = { client_id: client.client_id, secret: secret! };
});

afterAll(async () => {
  await t.stop();
});

/** The page's own content (the footer's language switcher is a form of every page). */
function main(html: string): string {
  return /<main[\s\S]*<\/main>/.exec(html)![0];
}

/** The names of the applications the list shows, in order. */
function listed(html: string): string[] {
  return [...main(html).matchAll(/<tr><td><a href="[^"]*\/admin\/clients\/[^"]*">([^<]*)<\/a><\/td>/g)].map((found) => found[1]!);
}

/** The words next to a field (its `<name>-error` paragraph), or null. */
function field_error(html: string, name: string): string | null {
  const found = new RegExp(`<p class="field-error" id="${name}-error">([^<]*)</p>`).exec(html);
  return found === null
    ? null
    : found[1]!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, "&");
}

/** The value of one field of the settings form. */
function value(html: string, name: string): string | string[] | undefined {
  const values = form_fields(html, "settings")
    .filter(([field]) => field === name)
    .map(([, v]) => v);
  return values.length > 1 || name === "grant_types" ? values : values[0];
}

/** A web client with a secret, for one test. */
async function web_client(metadata: ClientMetadata = {}): Promise<ClientRow> {
  return (await t.add_client({ client_name: "Web", token_endpoint_auth_method: "client_secret_basic", ...metadata })).client;
}

/** Posts the application page's settings form with `changes`; the answer. */
async function save(client_id: string, changes: Record<string, string | string[] | boolean>): Promise<{ status: number; html: string; location: string | null }> {
  const { html } = await console_page(browser, `${t.url}/admin/clients/${client_id}`);
  const answer = await browser.post(`${t.url}/admin/clients/${client_id}`, with_fields(form_fields(html, "settings"), changes));
  return { status: answer.status, html: await answer.text(), location: answer.headers.get("location") };
}

/** An admin API token (a new one each time: the test clock may move past their lifetime). */
async function admin_token(): Promise<string> {
  const answer = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${ops.client_id}:${ops.secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&scope=admin",
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

/** The admin API's PATCH of `client_id` with `body`: its status and its problem's or client's body. */
async function api_patch(client_id: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers = { authorization: `Bearer ${await admin_token()}`, accept: "application/json" };
  const etag = (await fetch(`${t.url}${API}/clients/${client_id}`, { headers })).headers.get("etag")!;
  const answer = await fetch(`${t.url}${API}/clients/${client_id}`, {
    method: "PATCH",
    headers: { ...headers, "content-type": "application/json", "if-match": etag },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** client_credentials at /token with client_secret_basic: the status. */
async function token_status(client_id: string, secret: string): Promise<number> {
  const answer = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  return answer.status;
}

describe("admin console: the applications list", () => {
  test("finds any part of the name or client ID without regard to case; each row links to the application's page", async () => {
    await t.add_client({ client_name: "Grafana Dashboards" }, { client_id: "grafana-1" });
    await t.add_client({ client_name: "Billing Portal", token_endpoint_auth_method: "none" }, { client_id: "billing-XYZ" });
    await t.add_client({ client_name: "Wiki" }, { client_id: "wiki-abc" });
    expect(listed((await console_page(browser, `${t.url}/admin/clients?q=DASH`)).html)).toEqual(["Grafana Dashboards"]);
    expect(listed((await console_page(browser, `${t.url}/admin/clients?q=xyz`)).html)).toEqual(["Billing Portal"]);
    expect(listed((await console_page(browser, `${t.url}/admin/clients?q=ABC`)).html)).toEqual(["Wiki"]);
    expect(listed((await console_page(browser, `${t.url}/admin/clients?q=%20grafana%20`)).html)).toEqual(["Grafana Dashboards"]);
    const none = (await console_page(browser, `${t.url}/admin/clients?q=no-such-app`)).html;
    expect(listed(none)).toEqual([]);
    expect(main(none)).toContain("No applications found.");
    // The search box shows what was searched.
    expect(main(none)).toContain('name="q" type="search" value="no-such-app"');

    const all = main((await console_page(browser, `${t.url}/admin/clients`)).html);
    expect(all).toContain(`<a href="${t.issuer}/admin/clients/grafana-1">Grafana Dashboards</a>`);
    // Type and authentication method; never used yet.
    const billing = /<tr><td><a [^>]*>Billing Portal<\/a>[\s\S]*?<\/tr>/.exec(all)![0];
    expect(billing).toContain("public <code>none</code>");
    expect(billing).toContain('<td class="nowrap">never</td>');
    expect(all).toMatch(/>Wiki<\/a>[\s\S]*?confidential <code>client_secret_basic<\/code>/);
    // The last use of a secret is the last use shown.
    await t.store.update_client("wiki-abc", { client_secret_used_at: 1_700_000_000 });
    expect(main((await console_page(browser, `${t.url}/admin/clients`)).html)).toMatch(/>Wiki<\/a>[\s\S]*?2023-11-14 22:13 UTC/);
    // New applications on their own page, for those who may make them.
    expect(all).toContain(`href="${t.issuer}/admin/clients/new"`);
    expect(main((await console_page(as_auditor, `${t.url}/admin/clients`)).html)).not.toContain("/admin/clients/new");
  });

  test("a new application on its own page: a refusal keeps what was typed; the secret page leads to its settings", async () => {
    const { html, csrf } = await console_page(browser, `${t.url}/admin/clients/new`);
    expect(main(html)).toContain(`action="${t.issuer}/admin/clients"`);
    const refused = await browser.post(`${t.url}/admin/clients`, [
      ["csrf", csrf!],
      ["client_name", "Fragment App"],
      ["redirect_uris", "https://app.example.com/cb#frag"],
      ["grant_types", "authorization_code"],
      ["kind", "confidential"],
    ]);
    expect(refused.status).toBe(422);
    const again = await refused.text();
    expect(alert_text(again)).toContain("fragment");
    expect(again).toContain('value="Fragment App"');
    expect(again).toContain("https://app.example.com/cb#frag</textarea>");
    expect((await t.store.list_clients()).some((c) => c.metadata.client_name === "Fragment App")).toBe(false);

    const made = await browser.post(`${t.url}/admin/clients`, [
      ["csrf", csrf!],
      ["client_name", "Fresh App"],
      ["redirect_uris", "https://app.example.com/cb"],
      ["grant_types", "authorization_code"],
      ["grant_types", "client_credentials"],
      ["kind", "confidential"],
    ]);
    expect(made.status).toBe(201);
    const shown = await made.text();
    const client_id = /<code id="client-id">([^<]+)<\/code>/.exec(shown)![1]!;
    const secret = /<code id="client-secret" class="secret">([^<]+)<\/code>/.exec(shown)![1]!;
    expect(await token_status(client_id, secret)).toBe(200);
    expect(shown).toContain(`href="${t.issuer}/admin/clients/${client_id}">Open the application&#39;s settings`);
    await console_page(as_auditor, `${t.url}/admin/clients/new`, 403);
  });
});

describe("admin console: the application page", () => {
  test("shows every setting, the admin flag read-only, the secret's dates and the links to its confirmations", async () => {
    const client = await web_client({
      client_name: "Everything",
      client_uri: "https://everything.example.com/",
      logo_uri: "https://everything.example.com/logo.png",
      policy_uri: "https://everything.example.com/privacy",
      tos_uri: "https://everything.example.com/terms",
      application_type: "web",
      redirect_uris: ["https://everything.example.com/cb", "https://everything.example.com/cb2"],
      post_logout_redirect_uris: ["https://everything.example.com/bye"],
      backchannel_logout_uri: "https://everything.example.com/bc",
      backchannel_logout_session_required: true,
      grant_types: ["authorization_code", "refresh_token", EXCHANGE],
      scope: "openid profile",
      skip_consent: true,
      require_2fa: true,
      resource_server: true,
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
      allowed_groups: ["staff"],
      groups_claim: "teams",
      groups_prefix: "app-",
      groups_prefix_strip: true,
      roles: { staff: "editor" },
      token_exchange: { subject_clients: ["*"], resources: ["https://api.example.com"], impersonation: false, delegation: true },
    });
    const { html } = await console_page(browser, `${t.url}/admin/clients/${client.client_id}`);
    const fields = Object.fromEntries(form_fields(html, "settings").filter(([name]) => name !== "grant_types"));
    expect(fields).toMatchObject({
      client_name: "Everything",
      client_uri: "https://everything.example.com/",
      logo_uri: "https://everything.example.com/logo.png",
      policy_uri: "https://everything.example.com/privacy",
      tos_uri: "https://everything.example.com/terms",
      application_type: "web",
      redirect_uris: "https://everything.example.com/cb\nhttps://everything.example.com/cb2",
      post_logout_redirect_uris: "https://everything.example.com/bye",
      backchannel_logout_uri: "https://everything.example.com/bc",
      backchannel_logout_session_required: "on",
      token_endpoint_auth_method: "client_secret_basic",
      jwks_uri: "",
      jwks: "",
      scope: "openid profile",
      skip_consent: "on",
      require_2fa: "on",
      resource_server: "on",
      require_pushed_authorization_requests: "on",
      dpop_bound_access_tokens: "on",
      allowed_groups: "staff",
      groups_claim: "teams",
      groups_prefix: "app-",
      groups_prefix_strip: "on",
      roles: "staff=editor",
      token_exchange: "delegation",
      token_exchange_subject_clients: "*",
      token_exchange_resources: "https://api.example.com",
    });
    expect(fields).not.toHaveProperty("fapi_profile");
    expect(value(html, "grant_types")).toEqual(["authorization_code", "refresh_token", EXCHANGE]);
    // Every grant type the provider offers is a choice, token exchange included.
    for (const grant of ["authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code", EXCHANGE])
      expect(html).toContain(`name="grant_types" value="${grant}"`);
    expect(html).toContain(`<dd id="admin-flag">no.`);
    expect(html).toContain("<code>idp clients update CLIENT_ID --admin on|off</code>");
    expect(html).not.toContain('name="admin"');
    expect(main(html)).toMatch(/<dt>Client secret<\/dt><dd>made \d{4}-\d\d-\d\d \d\d:\d\d UTC, last used —/);
    expect(html).toContain(`href="${t.issuer}/admin/clients/${client.client_id}/confirm?action=rotate_secret"`);
    expect(html).toContain(`href="${t.issuer}/admin/clients/${client.client_id}/confirm?action=delete"`);
    // An admin client says so; the password its credentials need is asked on its form.
    const admin_page = (await console_page(browser, `${t.url}/admin/clients/${ops.client_id}`)).html;
    expect(admin_page).toContain(`<dd id="admin-flag">yes: it may get the scope admin.`);
    expect(admin_page).toContain('name="password" type="password" autocomplete="current-password"');
    await console_page(browser, `${t.url}/admin/clients/no-such-client`, 404);
  });

  test("each group of settings round-trips to the store and back to the page; the audit names what changed", async () => {
    const client = await web_client({ grant_types: ["authorization_code"] });
    const { publicKey } = await generateKeyPair("PS256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "PS256", use: "sig" };
    const changes = {
      client_name: "Round Trip",
      client_uri: "https://rt.example.com/",
      logo_uri: "https://rt.example.com/logo.png",
      policy_uri: "https://rt.example.com/privacy",
      tos_uri: "https://rt.example.com/terms",
      application_type: "native",
      redirect_uris: "https://rt.example.com/cb\nhttp://127.0.0.1/cb",
      post_logout_redirect_uris: "https://rt.example.com/bye",
      // A public address: no warning (a name would be looked up, and might not resolve here).
      backchannel_logout_uri: "https://93.184.215.14/bc",
      backchannel_logout_session_required: true,
      grant_types: ["authorization_code", "refresh_token", "client_credentials", EXCHANGE],
      scope: "openid email",
      skip_consent: true,
      require_2fa: true,
      resource_server: true,
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
      allowed_groups: "STAFF",
      groups_claim: "teams",
      groups_prefix: "rt-",
      groups_prefix_strip: true,
      roles: "staff=viewer",
      token_exchange: "both",
      token_exchange_subject_clients: "grafana-1, wiki-abc",
      token_exchange_resources: "https://api.example.com",
    };
    const saved = await save(client.client_id, changes);
    expect([saved.status, alert_text(saved.html)]).toEqual([303, null]);
    expect(saved.location).toBe(`${t.issuer}/admin/clients/${client.client_id}?done=client_updated`);
    const stored = (await t.store.get_client(client.client_id))!;
    expect(stored.metadata).toMatchObject({
      client_name: "Round Trip",
      client_uri: "https://rt.example.com/",
      logo_uri: "https://rt.example.com/logo.png",
      policy_uri: "https://rt.example.com/privacy",
      tos_uri: "https://rt.example.com/terms",
      application_type: "native",
      redirect_uris: ["https://rt.example.com/cb", "http://127.0.0.1/cb"],
      post_logout_redirect_uris: ["https://rt.example.com/bye"],
      backchannel_logout_uri: "https://93.184.215.14/bc",
      backchannel_logout_session_required: true,
      grant_types: ["authorization_code", "refresh_token", "client_credentials", EXCHANGE],
      response_types: ["code"],
      scope: "openid email",
      skip_consent: true,
      require_2fa: true,
      resource_server: true,
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
      // Stored as the group spells it (oidc/admin/clients.ts with_group_settings).
      allowed_groups: ["staff"],
      groups_claim: "teams",
      groups_prefix: "rt-",
      groups_prefix_strip: true,
      roles: { staff: "viewer" },
      token_exchange: { subject_clients: ["grafana-1", "wiki-abc"], resources: ["https://api.example.com"], impersonation: true, delegation: true },
    });
    const page = (await console_page(browser, `${t.url}/admin/clients/${client.client_id}?done=client_updated`)).html;
    expect(page).toContain('<p class="notice" role="status">The application was saved.</p>');
    expect(value(page, "client_name")).toBe("Round Trip");
    expect(value(page, "token_exchange_subject_clients")).toBe("grafana-1 wiki-abc");
    expect(value(page, "allowed_groups")).toBe("staff");
    const event = (await t.store.list_audit_events({ type: "admin_console" })).find(
      (e) => e.details?.action === "client_updated" && e.details?.target_client_id === client.client_id,
    )!;
    expect(event.details?.changed).toEqual(expect.arrayContaining(["client_name", "redirect_uris", "require_2fa", "token_exchange", "allowed_groups", "application_type"]));
    expect(event.details?.changed).not.toContain("client_id");

    // Keys for private_key_jwt, then the FAPI 2.0 profile with its defaults (the key ring's ES256, PAR, DPoP);
    // emptied fields remove their member, unchecked boxes their flag.
    const keyed = await save(client.client_id, {
      token_endpoint_auth_method: "private_key_jwt",
      jwks: JSON.stringify({ keys: [jwk] }),
      grant_types: ["authorization_code", "refresh_token"],
      token_exchange: "off",
      redirect_uris: "https://rt.example.com/cb",
      application_type: "web",
      id_token_signed_response_alg: "",
      fapi_profile: true,
      require_pushed_authorization_requests: false,
      dpop_bound_access_tokens: false,
      skip_consent: false,
      resource_server: false,
      require_2fa: false,
      post_logout_redirect_uris: "",
      backchannel_logout_uri: "",
      backchannel_logout_session_required: false,
      logo_uri: "",
      roles: "",
      allowed_groups: "",
      groups_prefix: "",
      groups_prefix_strip: false,
    });
    expect([keyed.status, alert_text(keyed.html)]).toEqual([303, null]);
    const after = (await t.store.get_client(client.client_id))!;
    expect(after.metadata).toMatchObject({
      token_endpoint_auth_method: "private_key_jwt",
      jwks: { keys: [jwk] },
      fapi_profile: "2.0",
      id_token_signed_response_alg: "ES256",
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
    });
    for (const gone of [
      "token_exchange",
      "skip_consent",
      "resource_server",
      "require_2fa",
      "post_logout_redirect_uris",
      "backchannel_logout_uri",
      "logo_uri",
      "roles",
      "allowed_groups",
      "groups_prefix",
    ])
      expect([gone, after.metadata[gone]]).toEqual([gone, undefined]);
    // Away from secrets: the secret goes with them (oidc/clients/method_secret.ts).
    expect(after.client_secret_hash).toBeNull();
  });

  test("bad values are refused with the API's words, at the top and next to the field; what was typed stays; nothing is saved", async () => {
    const client = await web_client({ grant_types: ["authorization_code"] });
    const cases: { form: Record<string, string | string[] | boolean>; api: Record<string, unknown>; field: string; words: string }[] = [
      {
        form: { redirect_uris: "https://rp.example.com/cb#section" },
        api: { redirect_uris: ["https://rp.example.com/cb#section"] },
        field: "redirect_uris",
        words: "fragment",
      },
      {
        form: { token_endpoint_auth_method: "none", grant_types: ["authorization_code", "client_credentials"] },
        api: { token_endpoint_auth_method: "none", grant_types: ["authorization_code", "client_credentials"] },
        field: "grant_types",
        words: "client_credentials needs a confidential client",
      },
      {
        form: {
          grant_types: ["authorization_code", EXCHANGE],
          token_exchange: "impersonation",
          token_exchange_subject_clients: "*",
          token_exchange_resources: "https://nope.example.com",
        },
        api: {
          grant_types: ["authorization_code", EXCHANGE],
          token_exchange: { subject_clients: ["*"], resources: ["https://nope.example.com"], impersonation: true, delegation: false },
        },
        field: "token_exchange_resources",
        words: 'no resource "https://nope.example.com" (register it first)',
      },
      {
        form: { allowed_groups: "staff, no-such-group" },
        api: { allowed_groups: ["staff", "no-such-group"] },
        field: "allowed_groups",
        words: 'no group "no-such-group" (create it first)',
      },
      // The rule `idp clients add` had alone, now the API's and the console's too (oidc/admin/clients.ts).
      {
        form: { grant_types: ["refresh_token"] },
        api: { grant_types: ["refresh_token"], response_types: [] },
        field: "grant_types",
        words: "refresh_token needs authorization_code",
      },
      { form: { logo_uri: "http://rp.example.com/logo.png" }, api: { logo_uri: "http://rp.example.com/logo.png" }, field: "logo_uri", words: "must be an https URL" },
    ];
    for (const { form, api, field, words } of cases) {
      const before = (await t.store.get_client(client.client_id))!;
      const answer = await save(client.client_id, form);
      const where = JSON.stringify(form);
      expect([where, answer.status]).toEqual([where, 422]);
      const alert = alert_text(answer.html)!;
      expect(alert, where).toContain(words);
      expect(field_error(answer.html, field), where).toContain(words);
      expect(answer.html, where).toMatch(
        new RegExp(`id="f-${field}"[^>]*aria-describedby="[^"]*${field}-error"[^>]*aria-invalid="true"|<fieldset class="field" aria-describedby="${field}-error">`),
      );
      // What was typed is in the form again.
      for (const [name, typed] of Object.entries(form)) if (typeof typed === "string") expect(value(answer.html, name), where).toBe(typed);
      expect((await t.store.get_client(client.client_id))!.version).toBe(before.version);
      // The API refuses the same change with the same words.
      const through_api = await api_patch(client.client_id, api);
      expect([where, through_api.status]).toEqual([where, 422]);
      expect(alert, where).toContain(String(through_api.body.detail));
    }
    // A JWK Set that is not JSON: the field says so, the text stays.
    const bad_json = await save(client.client_id, { token_endpoint_auth_method: "private_key_jwt", jwks: "{not json" });
    expect(bad_json.status).toBe(422);
    expect(field_error(bad_json.html, "jwks")).toContain("is not valid JSON");
    expect(value(bad_json.html, "jwks")).toBe("{not json");
    expect(value(bad_json.html, "token_endpoint_auth_method")).toBe("private_key_jwt");
  });

  test("a stale form answers 412, changes nothing and keeps what was typed", async () => {
    const client = await web_client({ client_name: "Stale" });
    const { html } = await console_page(browser, `${t.url}/admin/clients/${client.client_id}`);
    await t.store.update_client(client.client_id, { metadata: { ...client.metadata, client_name: "Changed elsewhere" }, updated_at: t.clock.now() + 1 });
    const answer = await browser.post(`${t.url}/admin/clients/${client.client_id}`, with_fields(form_fields(html, "settings"), { client_name: "Mine" }));
    expect(answer.status).toBe(412);
    const page = await answer.text();
    expect(alert_text(page)).toContain("changed by someone else");
    expect(value(page, "client_name")).toBe("Mine");
    expect((await t.store.get_client(client.client_id))!.metadata.client_name).toBe("Changed elsewhere");
    // Sent again as it is, it is refused again: only a reloaded page saves over the other change.
    expect((await browser.post(`${t.url}/admin/clients/${client.client_id}`, form_fields(page, "settings"))).status).toBe(412);
    // A form without the token of the console is refused before anything is read.
    const forged = with_fields(form_fields(html, "settings"), { csrf: "forged" });
    expect((await browser.post(`${t.url}/admin/clients/${client.client_id}`, forged)).status).toBe(403);
  });

  test("after a save, the URLs the outbound fence would refuse are said on the page", async () => {
    const client = await web_client();
    const answer = await save(client.client_id, { backchannel_logout_uri: "http://localhost:9000/bc" });
    expect(answer.status).toBe(200);
    expect(answer.html).toContain('<p class="notice" role="status">The application was saved.</p>');
    const warnings = /<div class="section" role="status" id="outbound-warnings">([\s\S]*?)<\/div>/.exec(answer.html)![1]!;
    expect(warnings).toContain("backchannel_logout_uri &quot;http://localhost:9000/bc&quot;: the provider will not call it");
    expect(warnings).toContain("IDP_OUTBOUND_ALLOW_HTTP");
    expect((await t.store.get_client(client.client_id))!.metadata.backchannel_logout_uri).toBe("http://localhost:9000/bc");
  });

  test("moving to a secret-based method makes a secret, shown once, that works; moving to none removes it", async () => {
    const { client } = await t.add_client({ client_name: "Public", token_endpoint_auth_method: "none" });
    const moved = await save(client.client_id, { token_endpoint_auth_method: "client_secret_basic", grant_types: ["authorization_code", "client_credentials"] });
    expect(moved.status).toBe(200);
    const secret = /<code id="client-secret" class="secret">([^<]+)<\/code>/.exec(moved.html)![1]!;
    expect(moved.html).toContain("it is shown only this once");
    expect(await token_status(client.client_id, secret)).toBe(200);
    expect((await console_page(browser, `${t.url}/admin/clients/${client.client_id}`)).html).not.toContain(secret);
    const back = await save(client.client_id, { token_endpoint_auth_method: "none", grant_types: ["authorization_code"] });
    expect(back.status).toBe(303);
    expect((await t.store.get_client(client.client_id))!.client_secret_hash).toBeNull();
    expect(await token_status(client.client_id, secret)).toBe(401);
    // The admin API's PATCH follows the same rule: the new secret is in its answer.
    const through_api = await api_patch(client.client_id, { token_endpoint_auth_method: "client_secret_post", grant_types: ["authorization_code", "client_credentials"] });
    expect(through_api.status).toBe(200);
    expect(typeof through_api.body.client_secret).toBe("string");
    expect(through_api.body.has_secret).toBe(true);
  });

  test("an admin client's credentials change only with the administrator's password; its flag stays", async () => {
    const refused = await save(ops.client_id, { token_endpoint_auth_method: "client_secret_post" });
    expect(refused.status).toBe(403);
    expect(field_error(refused.html, "password")).toBe("This action needs your password to confirm it.");
    expect((await t.store.get_client(ops.client_id))!.metadata.token_endpoint_auth_method).not.toBe("client_secret_post");
    const wrong = await save(ops.client_id, { token_endpoint_auth_method: "client_secret_post", password: "not my password" });
    expect(wrong.status).toBe(403);
    expect(alert_text(wrong.html)).toContain("Your password is not right");
    // Other settings need no password; a posted admin field is not read.
    expect((await save(ops.client_id, { client_name: "ops renamed", admin: "false" })).status).toBe(303);
    expect((await t.store.get_client(ops.client_id))!.metadata).toMatchObject({ client_name: "ops renamed", admin: true });
    const saved = await save(ops.client_id, { token_endpoint_auth_method: "client_secret_post", password: t.password });
    expect(saved.status).toBe(303);
    const stored = (await t.store.get_client(ops.client_id))!;
    expect(stored.metadata).toMatchObject({ token_endpoint_auth_method: "client_secret_post", admin: true });
    // Between the secret-based methods the secret stays.
    expect(stored.client_secret_hash).not.toBeNull();
    await save(ops.client_id, { token_endpoint_auth_method: "client_secret_basic", password: t.password });
  });

  test("an auditor sees every setting as text, with no form; a change posted by one is refused and changes nothing", async () => {
    const client = await web_client({ client_name: "Audited", require_2fa: true, allowed_groups: ["staff"] });
    const html = main((await console_page(as_auditor, `${t.url}/admin/clients/${client.client_id}`)).html);
    expect(html).not.toContain("<form");
    expect(html).not.toContain("/confirm?");
    expect(html).toContain("<dt>Every sign-in to it needs a second factor</dt><dd>on</dd>");
    expect(html).toContain("<dt>Only members of these groups may sign in (comma-separated; empty: everyone)</dt><dd>staff</dd>");
    expect(html).toContain(`<dt>Token endpoint authentication method</dt><dd>client_secret_basic</dd>`);
    const { html: mine } = await console_page(browser, `${t.url}/admin/clients/${client.client_id}`);
    const { csrf } = await console_page(as_auditor, `${t.url}/admin/clients/${client.client_id}`);
    const answer = await as_auditor.post(`${t.url}/admin/clients/${client.client_id}`, with_fields(form_fields(mine, "settings"), { csrf: csrf ?? "", client_name: "Changed" }));
    expect(answer.status).toBe(403);
    expect((await t.store.get_client(client.client_id))!.metadata.client_name).toBe("Audited");
  });
});
