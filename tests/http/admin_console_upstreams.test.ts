/**
 * The console's generic OpenID Connect provider form (endpoints/admin_console/upstream_action.ts
 * `check_oidc`, `create_oidc`): the redirect URI shown before creation, creation through the
 * same rules as the CLI and the admin API (issuer and scopes stored, the secret sealed and never
 * echoed), a bad issuer refused with the rule's words and nothing stored, the outbound fence's
 * warnings after creation, and no secret field without IDP_SECRET_KEY. Plain HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import { open_secret } from "../../src/oidc/federation/secret_box.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const KEY = randomBytes(32).toString("base64url");
const SECRET = "generic-secret-value-123";

async function signed_in(t: TestProvider): Promise<Browser> {
  const root = await t.add_user({ username: "root", email: "root@example.com", email_verified: true });
  const group = await t.store.create_group({ name: "admins", description: null });
  await t.store.add_group_member(group.id, root.id, t.clock.now());
  return console_browser(t, root);
}

const FIELDS = {
  upstream: "corp",
  display_name: "Corp SSO",
  issuer: "https://sso.corp.example",
  client_id: "idp-client",
  scopes: "openid email groups",
  policy: "link",
  auto_link: "true",
};

describe("with IDP_SECRET_KEY", () => {
  let t: TestProvider;
  let browser: Browser;

  beforeAll(async () => {
    t = await start_provider({ config: { federation: { secret_key: KEY } } });
    browser = await signed_in(t);
  });
  afterAll(async () => {
    await t.stop();
  });

  test("the form shows the redirect URI's pattern and offers a secret field", async () => {
    const { html } = await console_page(browser, `${t.url}/admin/upstreams`);
    expect(html).toContain(`${t.provider.config.issuer}/federation/&lt;name&gt;/callback`);
    expect(html).toContain('id="oidc-client-secret"');
    expect(html).toContain('value="private_key_jwt"');
  });

  test("the check step shows the typed name's redirect URI, keeps the input, stores nothing", async () => {
    const { csrf } = await console_page(browser, `${t.url}/admin/upstreams`);
    const answer = await browser.post(`${t.url}/admin/upstreams`, { csrf: csrf!, action: "check_oidc", ...FIELDS, client_secret: SECRET });
    const html = await answer.text();
    expect(answer.status).toBe(200);
    expect(html).toContain(`<code id="oidc-redirect-uri">${t.provider.config.issuer}/federation/corp/callback</code>`);
    expect(html).toContain('value="https://sso.corp.example"');
    expect(html).not.toContain(SECRET);
    expect(await t.store.get_upstream("corp")).toBeNull();
  });

  test("a bad issuer gets the rule's message next to the form, the input kept but the secret, nothing stored", async () => {
    const { csrf } = await console_page(browser, `${t.url}/admin/upstreams`);
    const answer = await browser.post(`${t.url}/admin/upstreams`, {
      csrf: csrf!,
      action: "create_oidc",
      ...FIELDS,
      upstream: "bad",
      issuer: "ftp://sso.corp.example",
      client_secret: SECRET,
    });
    const html = await answer.text();
    expect(answer.status).toBe(422);
    expect(alert_text(html)).toContain("issuer: must be an https URL");
    expect(html).toContain('id="oidc-error"');
    expect(html).toContain('value="ftp://sso.corp.example"');
    expect(html).toContain('value="idp-client"');
    expect(html).not.toContain(SECRET);
    expect(await t.store.get_upstream("bad")).toBeNull();
  });

  test("creates a generic provider: issuer, scopes, policy stored, the secret sealed and never echoed", async () => {
    const { csrf } = await console_page(browser, `${t.url}/admin/upstreams`);
    const answer = await browser.post(`${t.url}/admin/upstreams`, { csrf: csrf!, action: "create_oidc", ...FIELDS, auth_method: "client_secret_post", client_secret: SECRET });
    const html = answer.status === 303 ? (await console_page(browser, answer.headers.get("location")!)).html : await answer.text();
    expect([200, 303]).toContain(answer.status);
    const row = (await t.store.get_upstream("corp"))!;
    expect(row.kind).toBe("oidc");
    expect(row.issuer).toBe("https://sso.corp.example");
    expect(row.scopes).toEqual(["openid", "email", "groups"]);
    expect(row.policy).toBe("link");
    expect(row.auto_link).toBe(true);
    expect(row.display_name).toBe("Corp SSO");
    expect(row.token_endpoint_auth_method).toBeNull();
    expect(row.client_secret_enc).not.toContain(SECRET);
    expect(open_secret(KEY, "corp", row.client_secret_enc!)).toBe(SECRET);
    expect(html).toContain(`${t.provider.config.issuer}/federation/corp/callback`);
    expect(html).not.toContain(SECRET);
  });

  test("the outbound fence's warnings are shown after creation; private_key_jwt stores no secret", async () => {
    const { csrf } = await console_page(browser, `${t.url}/admin/upstreams`);
    const answer = await browser.post(`${t.url}/admin/upstreams`, {
      csrf: csrf!,
      action: "create_oidc",
      ...FIELDS,
      upstream: "lan",
      issuer: "http://10.0.0.7/realm",
      auth_method: "private_key_jwt",
    });
    const html = await answer.text();
    expect(answer.status).toBe(200);
    expect(html).toContain('id="outbound-warnings"');
    expect(html).toContain("IDP_OUTBOUND_ALLOW_HTTP");
    const row = (await t.store.get_upstream("lan"))!;
    expect(row.issuer).toBe("http://10.0.0.7/realm");
    expect(row.token_endpoint_auth_method).toBe("private_key_jwt");
    expect(row.client_secret_enc).toBeNull();
  });

  test("a secret with private_key_jwt is refused by the rules", async () => {
    const { csrf } = await console_page(browser, `${t.url}/admin/upstreams`);
    const answer = await browser.post(`${t.url}/admin/upstreams`, {
      csrf: csrf!,
      action: "create_oidc",
      ...FIELDS,
      upstream: "both",
      auth_method: "private_key_jwt",
      client_secret: SECRET,
    });
    expect(answer.status).toBe(422);
    expect(alert_text(await answer.text())).toContain("client_secret: is not used with private_key_jwt");
    expect(await t.store.get_upstream("both")).toBeNull();
  });

  test("without the console's form token nothing is stored", async () => {
    const answer = await browser.post(`${t.url}/admin/upstreams`, { csrf: "wrong", action: "create_oidc", ...FIELDS, upstream: "forged" });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(await t.store.get_upstream("forged")).toBeNull();
  });
});

describe("without IDP_SECRET_KEY", () => {
  let t: TestProvider;
  let browser: Browser;

  beforeAll(async () => {
    t = await start_provider({ config: { federation: { secret_key: undefined } } });
    browser = await signed_in(t);
  });
  afterAll(async () => {
    await t.stop();
  });

  test("no secret field anywhere: it says so and offers private_key_jwt only", async () => {
    const { html, csrf } = await console_page(browser, `${t.url}/admin/upstreams`);
    expect(html).not.toContain('name="client_secret"');
    expect(html).toContain('<input type="hidden" name="auth_method" value="private_key_jwt">');
    expect(html).toContain("IDP_SECRET_KEY is not set");
    const answer = await browser.post(`${t.url}/admin/upstreams`, { csrf: csrf!, action: "create_oidc", ...FIELDS, auth_method: "client_secret_post" });
    expect([200, 303]).toContain(answer.status);
    const row = (await t.store.get_upstream("corp"))!;
    expect(row.token_endpoint_auth_method).toBe("private_key_jwt");
    expect(row.client_secret_enc).toBeNull();
  });
});
