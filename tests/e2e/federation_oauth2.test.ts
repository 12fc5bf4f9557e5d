/**
 * Sign-in through a plain OAuth 2.0 upstream without OpenID Connect (GitHub-style: authorize,
 * access_token and user endpoints, no ID Token), in Chromium. The upstream is a small fake built
 * on Koa: a consent form, a token endpoint that checks the client secret and PKCE S256 (RFC 7636
 * §4.6), and a user endpoint behind the access token. The application's relying party
 * (openid-client) ends the sign-in with our ID Token for the just-in-time local account. The
 * provider runs on PostgreSQL when it is available (SQLite otherwise).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
// @ts-expect-error koa ships no type declarations (and @types/koa is not installed)
import Koa from "koa";
import type { Browser } from "playwright-core";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { authorization_request, start_landing_app, type LandingApp } from "../helpers/landing_app.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";
import { create_temp_database, use_postgres, type TempDatabase } from "../store/pg.ts";

const CLIENT_SECRET = randomBytes(24).toString("base64url");
// GitHub's /user shows the public address (here none); /user/emails lists them all.
const USER = { id: 4242, login: "octo", name: "Octo Cat", email: null, avatar_url: "https://hub.example/octo.png" };

let t: TestProvider;
let db: TempDatabase | null = null;
let hub: Server;
let hub_url: string;
let garbage = false;
let browser: Browser;
let landing: LandingApp;

/** The part of Koa's context this fake uses. */
type KoaContext = {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  type: string;
  body: unknown;
  req: IncomingMessage;
  redirect(url: string): void;
  get(name: string): string;
};

function read_body(ctx: KoaContext): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = "";
    ctx.req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    ctx.req.on("end", () => resolve(new URLSearchParams(body)));
    ctx.req.on("error", reject);
  });
}

/** The fake upstream: codes and tokens in memory, as a GitHub OAuth App would answer. */
function start_hub(port: number): Promise<Server> {
  const codes = new Map<string, { redirect_uri: string; challenge: string }>();
  const tokens = new Set<string>();
  const koa = new Koa();
  koa.use(async (ctx: KoaContext) => {
    if (ctx.method === "GET" && ctx.path === "/login/oauth/authorize") {
      const q = ctx.query;
      if (q.client_id !== "hub-client" || q.code_challenge_method !== "S256" || !q.state) {
        ctx.status = 400;
        ctx.body = "bad request";
        return;
      }
      ctx.type = "html";
      const hidden = ["redirect_uri", "state", "code_challenge"].map((k) => `<input type="hidden" name="${k}" value="${q[k]}">`).join("");
      ctx.body = `<!doctype html><html lang="en"><title>Authorize</title><form method="post" action="/login/oauth/authorize">${hidden}<button type="submit">Authorize</button></form></html>`;
      return;
    }
    if (ctx.method === "POST" && ctx.path === "/login/oauth/authorize") {
      const form = await read_body(ctx);
      const code = randomBytes(16).toString("hex");
      codes.set(code, { redirect_uri: form.get("redirect_uri")!, challenge: form.get("code_challenge")! });
      const to = new URL(form.get("redirect_uri")!);
      to.searchParams.set("code", code);
      to.searchParams.set("state", form.get("state")!);
      ctx.redirect(to.href);
      return;
    }
    if (ctx.method === "POST" && ctx.path === "/login/oauth/access_token") {
      const form = await read_body(ctx);
      const issued = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const ok =
        issued !== undefined &&
        form.get("client_id") === "hub-client" &&
        form.get("client_secret") === CLIENT_SECRET &&
        form.get("redirect_uri") === issued.redirect_uri &&
        createHash("sha256").update(verifier).digest("base64url") === issued.challenge;
      ctx.type = "json";
      if (!ok) {
        ctx.status = 400;
        ctx.body = { error: "invalid_grant" };
        return;
      }
      const token = randomBytes(16).toString("hex");
      tokens.add(token);
      ctx.body = { access_token: token, token_type: "bearer", scope: "read:user user:email" };
      return;
    }
    if (ctx.method === "GET" && ctx.path === "/user/emails") {
      const token = (ctx.get("authorization") ?? "").replace(/^Bearer /i, "");
      if (!tokens.has(token)) {
        ctx.status = 401;
        return;
      }
      ctx.type = "json";
      ctx.body = [
        { email: "octo-old@hub.example", primary: false, verified: true },
        { email: "octo@hub.example", primary: true, verified: true },
      ];
      return;
    }
    if (ctx.method === "GET" && ctx.path === "/user") {
      const token = (ctx.get("authorization") ?? "").replace(/^Bearer /i, "");
      if (!tokens.has(token)) {
        ctx.status = 401;
        return;
      }
      if (garbage) {
        ctx.type = "html";
        ctx.body = "<html>oops</html>";
        return;
      }
      ctx.type = "json";
      ctx.body = USER;
      return;
    }
    ctx.status = 404;
  });
  return new Promise((resolve) => {
    const server = koa.listen(port, "127.0.0.1", () => resolve(server));
  });
}

beforeAll(async () => {
  if (!chromium_available) return;
  if (await use_postgres()) db = await create_temp_database();
  t = await start_provider({
    ...(db === null ? {} : { database_url: db.url }),
    config: { outbound: { allow_http: true, allow: ["127.0.0.1"] }, federation: { secret_key: randomBytes(32).toString("base64url") } },
  });
  const port = await free_port();
  hub_url = `http://127.0.0.1:${port}`;
  hub = await start_hub(port);
  await t.store.create_upstream(
    new_upstream(t.config, {
      name: "hub",
      kind: "oauth2",
      display_name: "Hub",
      authorization_endpoint: `${hub_url}/login/oauth/authorize`,
      token_endpoint: `${hub_url}/login/oauth/access_token`,
      userinfo_endpoint: `${hub_url}/user`,
      emails_endpoint: `${hub_url}/user/emails`,
      client_id: "hub-client",
      client_secret: CLIENT_SECRET,
      scopes: ["read:user", "user:email"],
      claim_mapping: { subject: "id", preferred_username: "login", picture: "avatar_url" },
    }),
  );
  landing = await start_landing_app(t, "App");
  browser = await launch();
}, 60_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  landing.stop();
  await new Promise((resolve) => hub.close(resolve));
  await t.stop();
  await db?.drop();
});

describe.skipIf(!chromium_available)("sign-in through a plain OAuth 2.0 upstream", () => {
  test("the user endpoint's id becomes a linked, just-in-time local account; our ID Token follows", async () => {
    const request = await authorization_request(landing, "openid profile email", { login_hint: "idp:hub" });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(request.url);
    await page.getByRole("button", { name: "Authorize" }).click();
    const claims = await request.finish(page);
    const identity = await t.store.get_identity("hub", "4242");
    expect(identity).not.toBeNull();
    expect(claims.sub).toBe(identity!.user_id);
    expect(claims.amr).toEqual(["fed"]);
    expect(claims.preferred_username).toBe("octo");
    // The primary address of the e-mail list, verified as the upstream says.
    expect(claims.email).toBe("octo@hub.example");
    expect(claims.email_verified).toBe(true);
    expect(claims.picture).toBe("https://hub.example/octo.png");
    await context.close();
  }, 20_000);

  test("a user endpoint answering garbage gets a clear page and an audit entry", async () => {
    garbage = true;
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${t.issuer}/account/login`);
      await page.getByRole("link", { name: "Sign in with Hub" }).click();
      await page.getByRole("button", { name: "Authorize" }).click();
      await page.waitForURL((u) => u.href.startsWith(`${t.issuer}/federation/hub/callback`));
      expect(await page.locator("h1").innerText()).toMatch(/Sign-in with Hub failed|Hub is not available/);
      const events = await t.store.list_audit_events({ type: "federation_login" });
      expect(events.some((e) => e.outcome === "failure" && (e.details as { upstream?: string }).upstream === "hub")).toBe(true);
      await context.close();
    } finally {
      garbage = false;
    }
  }, 20_000);
});
