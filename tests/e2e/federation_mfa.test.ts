/**
 * The local second factor after a sign-in through an upstream, and the upstream's acr: panva's
 * oidc-provider as the upstream, whose sign-in step ends with the `amr` and `acr` each test
 * chooses (its interaction result, so its ID Token carries them), in Chromium. Two upstreams
 * point at it: "trusted" (trust_upstream_mfa; its acr "urn:up:mfa" counts as mfa) and "strict"
 * (the default: the upstream's MFA is not trusted). Covered: a TOTP user asked for the code after an
 * upstream password, not after a trusted upstream second factor, always behind the strict
 * upstream; the account page's own sign-in; acr_values=mfa for a user without a second factor
 * (refused unless the upstream's mapped acr or amr says mfa); the ID Token's acr and amr; a third
 * upstream, "keyed", where we authenticate with private_key_jwt (oidc-provider reads our JWKS).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
// @ts-expect-error oidc-provider ships no type declarations (and @types/oidc-provider is not installed)
import Provider from "oidc-provider";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { authorization_request, start_landing_app, type LandingApp } from "../helpers/landing_app.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";
import { new_totp_secret, totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import type { UserRow } from "../../src/store/types.ts";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";

/** What the upstream's next sign-in asserts: the account, its amr and acr. */
let next_login: { account: string; amr: string[]; acr?: string } = { account: "x", amr: ["pwd"] };

let t: TestProvider;
let upstream: Server;
let upstream_issuer: string;
let browser: Browser;
let landing: LandingApp;
const UPSTREAM_SECRET = randomBytes(24).toString("base64url");

async function start_upstream(port: number, redirect_uris: string[], jwks_uri: string): Promise<Server> {
  upstream_issuer = `http://127.0.0.1:${port}`;
  const op = new Provider(upstream_issuer, {
    clients: [
      { client_id: "our-idp", client_secret: UPSTREAM_SECRET, redirect_uris, grant_types: ["authorization_code"], response_types: ["code"] },
      // private_key_jwt: oidc-provider checks our assertion with the keys of our JWKS.
      { client_id: "our-idp-keyed", token_endpoint_auth_method: "private_key_jwt", jwks_uri, redirect_uris, grant_types: ["authorization_code"], response_types: ["code"] },
    ],
    async findAccount(_ctx: unknown, id: string) {
      return { accountId: id, claims: async () => ({ sub: id, email: `${id}@upstream.example`, email_verified: true, name: id }) };
    },
    // acr and amr in the ID Token (oidc-provider puts only the requested scopes' claims there).
    claims: { openid: ["sub", "acr", "amr"], email: ["email", "email_verified"], profile: ["name"] },
    acrValues: ["urn:up:mfa", "urn:up:silver"],
    scopes: ["openid", "email", "profile"],
    cookies: { keys: [randomBytes(32).toString("hex")] },
    pkce: { required: () => true },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/i/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
  });
  op.on("server_error", () => {});
  const handler = op.callback();
  // The upstream's sign-in and consent, answered at once with the test's choice of amr and acr.
  const interact = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await op.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      const { account, amr, acr } = next_login;
      return op.interactionFinished(req, res, { login: { accountId: account, amr, ...(acr === undefined ? {} : { acr }) } }, { mergeWithLastSubmission: false });
    }
    const grant = new op.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    grant.addOIDCScope(String(details.params.scope));
    return op.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  };
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/i/")) {
      interact(req, res).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    handler(req, res);
  });
  return await new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider({
    config: { outbound: { allow_http: true, allow: ["127.0.0.1"] }, federation: { secret_key: randomBytes(32).toString("base64url") } },
  });
  upstream = await start_upstream(
    await free_port(),
    ["trusted", "strict", "keyed"].map((name) => `${t.issuer}/federation/${name}/callback`),
    `${t.issuer}/.well-known/jwks.json`,
  );
  const common = { issuer: upstream_issuer, client_id: "our-idp", client_secret: UPSTREAM_SECRET, policy: "jit" as const };
  await t.store.create_upstream(new_upstream(t.config, { ...common, name: "trusted", display_name: "Trusted SSO", trust_upstream_mfa: true, mfa_acr_values: ["urn:up:mfa"] }));
  await t.store.create_upstream(new_upstream(t.config, { ...common, name: "strict", display_name: "Strict SSO", mfa_acr_values: ["urn:up:mfa"] }));
  await t.store.create_upstream(
    new_upstream(t.config, { name: "keyed", display_name: "Keyed SSO", issuer: upstream_issuer, client_id: "our-idp-keyed", token_endpoint_auth_method: "private_key_jwt" }),
  );
  landing = await start_landing_app(t, "Fed App");
  browser = await launch();
}, 60_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  landing.stop();
  await new Promise((resolve) => upstream.close(resolve));
  await t.stop();
});

/** A local user linked to upstream account `subject` at both upstreams; with TOTP when `totp`. */
async function linked_user(subject: string, totp: boolean): Promise<{ user: UserRow; secret: string }> {
  const secret = new_totp_secret();
  const user = await t.add_user({ username: subject, email: `${subject}@example.com`, email_verified: true });
  if (totp) await t.store.update_user(user.id, { totp_secret: secret, totp_enabled_at: t.clock.now() });
  for (const upstream_name of ["trusted", "strict", "keyed"])
    await t.store.link_identity({ upstream: upstream_name, subject, user_id: user.id, email: null, ...identity_source((await t.store.get_upstream(upstream_name))!) });
  return { user, secret };
}

async function fresh(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

/** The application's request through upstream `name` (login_hint=idp:NAME), up to our next page. */
async function through(page: Page, name: string, extra: Record<string, string> = {}, refused = false) {
  const request = await authorization_request(landing, "openid profile", { login_hint: `idp:${name}`, ...extra });
  await page.goto(request.url);
  // A refusal is the callback's own page.
  if (refused) await page.waitForURL((u) => u.href.startsWith(`${t.issuer}/federation/${name}/callback`), { timeout: 15_000 });
  // The callback's page navigates on by itself (meta refresh): wait until it left it.
  else await page.waitForURL((u) => !u.href.startsWith(upstream_issuer) && !u.pathname.includes("/federation/") && !u.pathname.startsWith("/authorize"), { timeout: 15_000 });
  return { finish: () => request.finish(page) };
}

async function enter_code(page: Page, secret: string): Promise<void> {
  expect(new URL(page.url()).pathname).toMatch(/\/two-factor$/);
  await page.getByLabel("6-digit code").fill(totp_code(secret, totp_step(t.clock.now())));
  await page.getByRole("button", { name: "Verify" }).click();
}

async function last_login_amr(user_id: string): Promise<unknown> {
  const events = await t.store.list_audit_events({ limit: 50 });
  return events.find((e) => e.type === "login" && e.outcome === "success" && e.user_id === user_id)?.details?.amr;
}

describe.skipIf(!chromium_available)("second factor and acr after an upstream sign-in", () => {
  test("a TOTP user signing in with an upstream password is asked for the code; amr fed + otp + mfa", async () => {
    const { user, secret } = await linked_user("tia", true);
    next_login = { account: "tia", amr: ["pwd"] };
    const { context, page } = await fresh();
    const request = await through(page, "trusted", { acr_values: "mfa pwd" });
    // No session yet: the code comes first.
    expect(await t.store.list_audit_events({ limit: 50 }).then((e) => e.some((x) => x.type === "login" && x.user_id === user.id))).toBe(false);
    await enter_code(page, secret);
    const claims = await request.finish();
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toEqual(["fed", "pwd", "otp", "mfa"]);
    expect(claims.acr).toBe("mfa");
    await context.close();
  }, 30_000);

  test("a trusted upstream's second factor stands in for the local one", async () => {
    const { user } = await linked_user("tom", true);
    next_login = { account: "tom", amr: ["pwd", "otp"] };
    const { context, page } = await fresh();
    const request = await through(page, "trusted", { acr_values: "mfa pwd" });
    const claims = await request.finish();
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toEqual(["fed", "pwd", "otp", "mfa"]);
    expect(claims.acr).toBe("mfa");
    await context.close();
  }, 30_000);

  test("behind an upstream whose MFA is not trusted, the local code is asked for anyway", async () => {
    const { user, secret } = await linked_user("sam", true);
    next_login = { account: "sam", amr: ["pwd", "otp", "mfa"], acr: "urn:up:mfa" };
    const { context, page } = await fresh();
    const request = await through(page, "strict");
    await enter_code(page, secret);
    const claims = await request.finish();
    expect(claims.sub).toBe(user.id);
    // The untrusted upstream's otp/mfa are dropped; "mfa" here is the local code's.
    expect(claims.amr).toEqual(["fed", "pwd", "otp", "mfa"]);
    await context.close();
  }, 30_000);

  test("the account page's own sign-in through an upstream asks for the code too", async () => {
    const { user, secret } = await linked_user("ada", true);
    next_login = { account: "ada", amr: ["pwd"] };
    const { context, page } = await fresh();
    await page.goto(`${t.issuer}/federation/trusted/start`);
    await page.waitForURL((u) => u.pathname.endsWith("/two-factor"), { timeout: 15_000 });
    await enter_code(page, secret);
    await page.waitForURL(`${t.issuer}/account`);
    expect(await last_login_amr(user.id)).toEqual(["fed", "pwd", "otp", "mfa"]);
    await context.close();
  }, 30_000);

  test("the upstream's acr the operator maps as mfa is kept (acr mfa), an unknown one is not", async () => {
    const { user } = await linked_user("ann", false);
    // Unknown acr, password only: acr_values=mfa cannot be met by a user without a second factor.
    next_login = { account: "ann", amr: ["pwd"], acr: "urn:up:silver" };
    const first = await fresh();
    await through(first.page, "trusted", { acr_values: "mfa" }, true);
    expect(await first.page.locator("h1").innerText()).toContain("requires two-step verification");
    await first.context.close();

    // Without acr_values: signed in with acr pwd (the strongest reached) when asked with "mfa pwd".
    const weak = await fresh();
    const plain = await (await through(weak.page, "trusted", { acr_values: "mfa pwd" })).finish();
    expect(plain.acr).toBe("pwd");
    expect(plain.amr).toEqual(["fed", "pwd"]);
    await weak.context.close();

    // The mapped acr: stronger than the password, kept as our class mfa.
    next_login = { account: "ann", amr: ["pwd"], acr: "urn:up:mfa" };
    const strong = await fresh();
    const claims = await (await through(strong.page, "trusted", { acr_values: "mfa" })).finish();
    expect(claims.sub).toBe(user.id);
    expect(claims.acr).toBe("mfa");
    expect(claims.amr).toEqual(["fed", "pwd", "mfa"]);
    const audit = await t.store.list_audit_events({ limit: 50 });
    expect(audit.some((e) => e.type === "federation_login" && e.outcome === "success" && e.details?.upstream_acr === "urn:up:mfa")).toBe(true);
    await strong.context.close();
  }, 40_000);

  test("private_key_jwt: we authenticate at the upstream with an assertion signed by our key, found in our JWKS", async () => {
    const { user } = await linked_user("kim", false);
    next_login = { account: "kim", amr: ["pwd"] };
    const { context, page } = await fresh();
    const claims = await (await through(page, "keyed")).finish();
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toEqual(["fed", "pwd"]);
    await context.close();
    // A secret is refused with this method, naming the field.
    expect(() => new_upstream(t.config, { name: "bad", issuer: upstream_issuer, client_id: "x", client_secret: "s", token_endpoint_auth_method: "private_key_jwt" })).toThrow(
      "client_secret: is not used with private_key_jwt",
    );
    expect(() => new_upstream(t.config, { name: "bad", issuer: upstream_issuer, client_id: "x", token_endpoint_auth_method: "client_secret_jwt" })).toThrow(
      "token_endpoint_auth_method",
    );
  }, 30_000);
});
