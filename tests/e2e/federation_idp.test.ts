/**
 * A second instance of this provider as the upstream identity provider, in Chromium. The provider
 * under test runs on PostgreSQL when it is available (SQLite otherwise), the upstream on SQLite.
 * The application's relying party (openid-client) ends each sign-in with our ID Token for a local
 * account: auto-linked by the upstream's verified e-mail, or created just in time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import * as oidc from "openid-client";
import type { Browser, Page } from "playwright-core";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { PASSWORD, free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres, type TempDatabase } from "../store/pg.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";

let t: TestProvider;
let up: TestProvider;
let db: TempDatabase | null = null;
let browser: Browser;
let rp_server: ReturnType<typeof Bun.serve>;
let callback: string;
let app: oidc.Configuration;

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
    new_upstream(t.config, { name: "corp", display_name: "Corp IdP", issuer: up.issuer, client_id: client.client_id, client_secret: secret!, scopes: ["openid", "email", "profile", "groups"], auto_link: true }),
  );
  const port = free_port();
  rp_server = Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response("<!doctype html><title>RP</title><p>back</p>", { headers: { "content-type": "text/html" } }) });
  callback = `http://127.0.0.1:${port}/callback`;
  const rp = await t.add_client({ client_name: "App", redirect_uris: [callback], token_endpoint_auth_method: "client_secret_basic", skip_consent: true });
  app = await oidc.discovery(new URL(t.issuer), rp.client.client_id, undefined, oidc.ClientSecretBasic(rp.secret!), { execute: [oidc.allowInsecureRequests] });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  rp_server.stop(true);
  await up.stop();
  await t.stop();
  await db?.drop();
});

async function sign_in_through_upstream(page: Page, username: string): Promise<Record<string, unknown>> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(app, {
    redirect_uri: callback,
    scope: "openid profile email",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  await page.goto(url.href);
  await page.getByRole("link", { name: "Sign in with Corp IdP" }).click();
  await page.waitForURL((u) => u.href.startsWith(up.issuer));
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((u) => u.href.startsWith(callback));
  const tokens = await oidc.authorizationCodeGrant(app, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
  return tokens.claims()!;
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
