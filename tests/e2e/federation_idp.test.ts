/**
 * A second instance of this provider as the upstream identity provider, in Chromium. The provider
 * under test runs on PostgreSQL when it is available (SQLite otherwise), the upstream on SQLite.
 * The application's relying party (openid-client) ends each sign-in with our ID Token for a local
 * account: auto-linked by the upstream's verified e-mail, or created just in time.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { authorization_request, start_landing_app, type LandingApp } from "../helpers/landing_app.ts";
import { PASSWORD, start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres, type TempDatabase } from "../store/pg.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";

let t: TestProvider;
let up: TestProvider;
let db: TempDatabase | null = null;
let browser: Browser;
let landing: LandingApp;

beforeAll(async () => {
  if (!chromium_available) return;
  if (await use_postgres()) db = await create_temp_database();
  t = await start_provider({
    ...(db === null ? {} : { database_url: db.url }),
    config: { outbound: { allow_http: true, allow: ["127.0.0.1"] }, federation: { secret_key: randomBytes(32).toString("base64url") } },
  });
  up = await start_provider();
  const { client, secret } = await up.add_client({
    client_name: "Downstream IdP",
    redirect_uris: [`${t.issuer}/federation/corp/callback`],
    token_endpoint_auth_method: "client_secret_post",
    skip_consent: true,
  });
  await t.store.create_upstream(
    new_upstream(t.config, {
      name: "corp",
      display_name: "Corp IdP",
      issuer: up.issuer,
      client_id: client.client_id,
      client_secret: secret!,
      scopes: ["openid", "email", "profile", "groups"],
      auto_link: true,
    }),
  );
  landing = await start_landing_app(t, "App");
  browser = await launch();
}, 60_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  landing.stop();
  await up.stop();
  await t.stop();
  await db?.drop();
});

async function sign_in_through_upstream(page: Page, username: string): Promise<Record<string, unknown>> {
  const request = await authorization_request(landing, "openid profile email");
  await page.goto(request.url);
  await page.getByRole("link", { name: "Sign in with Corp IdP" }).click();
  await page.waitForURL((u) => u.href.startsWith(up.issuer));
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  return request.finish(page);
}

describe.skipIf(!chromium_available)("sign-in through a second instance of this provider", () => {
  test("a verified e-mail auto-links to the existing local account", async () => {
    const context = await browser.newContext();
    const claims = await sign_in_through_upstream(await context.newPage(), "alice");
    expect(claims.sub).toBe(t.user.id);
    // The upstream's password is kept next to "fed" (RFC 8176).
    expect(claims.amr).toEqual(["fed", "pwd"]);
    const identity = await t.store.get_identity("corp", up.user.id);
    expect(identity?.user_id).toBe(t.user.id);
    await context.close();
  }, 20_000);

  test("an unknown upstream account gets a local account just in time", async () => {
    await up.add_user({ username: "carol", name: "Carol Upstream", email: "carol@upstream.example", email_verified: true });
    const context = await browser.newContext();
    const claims = await sign_in_through_upstream(await context.newPage(), "carol");
    const local = (await t.store.find_users_by_email("carol@upstream.example"))[0]!;
    expect(claims.sub).toBe(local.id);
    expect(claims.email).toBe("carol@upstream.example");
    expect(local.name).toBe("Carol Upstream");
    expect(local.username).toBe("carol");
    expect(local.password_hash).toBe("");
    await context.close();
  }, 20_000);
});
