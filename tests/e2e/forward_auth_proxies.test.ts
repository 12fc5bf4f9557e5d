/**
 * Forward authentication through real reverse proxies from Debian: nginx (`auth_request`) and
 * Caddy (`forward_auth`), each a child process on loopback with the configuration of
 * deploy/forward-auth/ (changed only where a test must differ: ports, names, no TLS), in front of
 * a small application that answers with the headers it received. Chromium (every *.idp.test name
 * resolved to loopback) walks: protected page → our sign-in → back at the page with the Remote-*
 * headers; the same for an application outside the cookie domain (app.outside.test), through its
 * callback and a host-only cookie; a sign-in through an upstream identity provider (oidc-provider)
 * comes back to the page too; a user outside the group gets 403; sign-out ends access. Then,
 * without a browser: a
 * spoofed Host or X-Forwarded-Host never leads anywhere but the provider, a client's own Remote-*
 * headers never reach the application, and a peer that is not a trusted proxy is refused.
 * Skipped, saying why, where nginx, Caddy or Chromium is missing (CI installs them: .ci/run).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as http_request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { create_app } from "../../src/oidc/admin/apps.ts";
import { Browser as FetchBrowser, account_login } from "../helpers/browser.ts";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { start_oidc_upstream, upstream_sign_in, type OidcUpstream } from "../helpers/oidc_upstream.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";

const DEPLOY = join(import.meta.dirname, "../../deploy/forward-auth");
const NGINX = "/usr/sbin/nginx";
const CADDY = "/usr/bin/caddy";
const have_nginx = existsSync(NGINX);
const have_caddy = existsSync(CADDY);
if (!have_nginx) console.warn(`forward-auth tests through nginx skipped: ${NGINX} is missing (apt-get install nginx-light)`);
if (!have_caddy) console.warn(`forward-auth tests through Caddy skipped: ${CADDY} is missing (apt-get install caddy)`);

const temp_dirs: string[] = [];
function temp_dir(): string {
  const dir = mkdtempSync(join(tmpdir(), "idp-forward-auth-"));
  // nginx run as root hands the requests to workers running as nobody: they must reach it.
  chmodSync(dir, 0o755);
  temp_dirs.push(dir);
  return dir;
}

/** The application behind the proxy: answers every request with its method, URL and headers, as JSON text. */
async function echo_app(): Promise<{ port: number; server: Server }> {
  const server = createServer((request, response) => {
    const body = JSON.stringify({ method: request.method, url: request.url, headers: request.headers });
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/** deploy/forward-auth/nginx-site.conf with the test's ports and name, no TLS, the snippets from deploy/; the rest as it is. */
function nginx_site(deploy: string, port: number, app_port: number): string {
  const replace = (text: string, from: RegExp, to: string) => {
    if (!from.test(text)) throw new Error(`nginx-site.conf no longer has ${from}`);
    return text.replace(from, to);
  };
  let site = replace(deploy, /^ {4}server 127\.0\.0\.1:8080;$/m, `    server 127.0.0.1:${app_port};`);
  site = replace(site, /^ {4}listen 443 [^;]*;$/m, `    listen 127.0.0.1:${port};`);
  site = replace(site, /^ {4}listen \[::\]:443 [^;]*;\n/m, "");
  // Two names: one inside the cookie domain (idp.test), one outside it (the callback's host-only cookie).
  site = replace(site, /^ {4}server_name grafana\.example\.com;$/m, "    server_name app.idp.test app.outside.test;");
  site = site.replace(/^ {4}ssl_[a-z_]+ [^;]*;\n/gm, "");
  site = replace(site, /\/etc\/nginx\/snippets\/idp-forward-auth-location\.conf/, join(DEPLOY, "nginx-location.conf"));
  site = replace(site, /\/etc\/nginx\/snippets\/idp-forward-auth\.conf/, join(DEPLOY, "nginx-auth.conf"));
  return site;
}

/** deploy/forward-auth/Caddyfile with the test's ports and name (plain HTTP); the snippet as it is. */
function caddy_site(deploy: string, port: number, idp_port: number, app_port: number): string {
  const replace = (text: string, from: string, to: string) => {
    if (!text.includes(from)) throw new Error(`Caddyfile no longer has ${from}`);
    return text.replace(from, to);
  };
  let site = replace(deploy, "forward_auth 127.0.0.1:3000 {", `forward_auth 127.0.0.1:${idp_port} {`);
  site = replace(site, "reverse_proxy /.idp/callback 127.0.0.1:3000 {", `reverse_proxy /.idp/callback 127.0.0.1:${idp_port} {`);
  site = replace(site, "grafana.example.com {", `http://app.idp.test:${port}, http://app.outside.test:${port} {`);
  return replace(site, "reverse_proxy 127.0.0.1:8080", `reverse_proxy 127.0.0.1:${app_port}`);
}

/** `url`: the application inside the cookie domain; `outside`: the same proxy under a name outside it. */
type Proxy = { name: string; port: number; url: string; outside: string; process: ChildProcess; stderr: () => string };

async function until_up(proxy: Proxy): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proxy.process.exitCode !== null) throw new Error(`${proxy.name} exited ${proxy.process.exitCode}: ${proxy.stderr()}`);
    const up = await raw_get(`http://127.0.0.1:${proxy.port}/`, { host: `app.idp.test:${proxy.port}` }).then(
      () => true,
      () => false,
    );
    if (up) return;
    if (Date.now() > deadline) throw new Error(`${proxy.name} did not answer on ${proxy.port}: ${proxy.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function run(name: string, command: string, args: string[], env: Record<string, string>, port: number): Proxy {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  return { name, port, url: `http://app.idp.test:${port}`, outside: `http://app.outside.test:${port}`, process: child, stderr: () => stderr };
}

async function start_nginx(idp_port: number, app_port: number): Promise<Proxy> {
  const dir = temp_dir();
  const port = await free_port();
  writeFileSync(join(dir, "site.conf"), nginx_site(readFileSync(join(DEPLOY, "nginx-site.conf"), "utf8"), port, app_port));
  const temp_paths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `  ${name}_temp_path ${join(dir, name)};`);
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      "worker_processes 1;",
      `pid ${join(dir, "nginx.pid")};`,
      `error_log ${join(dir, "error.log")} warn;`,
      "events {}",
      "http {",
      "  access_log off;",
      ...temp_paths,
      // deploy/nginx.conf's upstream, on the test provider's port.
      `  upstream idp { server 127.0.0.1:${idp_port}; keepalive 16; }`,
      `  include ${join(dir, "site.conf")};`,
      "}",
      "",
    ].join("\n"),
  );
  const proxy = run("nginx", NGINX, ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], {}, port);
  await until_up(proxy);
  return proxy;
}

async function start_caddy(idp_port: number, app_port: number): Promise<Proxy> {
  const dir = temp_dir();
  const port = await free_port();
  const global = `{\n\tadmin off\n\tauto_https off\n\tdefault_bind 127.0.0.1\n\tstorage file_system ${join(dir, "data")}\n}\n\n`;
  writeFileSync(join(dir, "Caddyfile"), global + caddy_site(readFileSync(join(DEPLOY, "Caddyfile"), "utf8"), port, idp_port, app_port));
  const env = { HOME: dir, XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
  const proxy = run("caddy", CADDY, ["run", "--config", join(dir, "Caddyfile"), "--adapter", "caddyfile"], env, port);
  await until_up(proxy);
  return proxy;
}

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; text: string };

/** A GET through node:http (the Host header is ours to choose), from `local`. */
function raw_get(url: string, headers: Record<string, string>, local = "127.0.0.1"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const request = http_request(url, { headers, localAddress: local }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => void (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    request.on("error", reject);
    request.setTimeout(10_000, () => request.destroy(new Error(`no answer from ${url}`)));
    request.end();
  });
}

const enabled = chromium_available && (have_nginx || have_caddy);
let t: TestProvider;
let app: { port: number; server: Server };
let browser: Browser;
let op: OidcUpstream;
const proxies: Record<string, Proxy> = {};

beforeAll(async () => {
  if (!enabled) return;
  t = await start_provider({
    issuer_host: "id.idp.test",
    config: {
      trust_proxy: true,
      trusted_proxies: ["127.0.0.1"],
      forward_auth: { cookie_domain: "idp.test" },
      // An upstream identity provider on loopback, for the sign-in through it.
      outbound: { allow_http: true, allow: ["127.0.0.1"] },
      federation: { secret_key: randomBytes(32).toString("base64url") },
    },
  });
  op = await start_oidc_upstream({ "alice-up": { sub: "alice-up", email: "alice@example.com", email_verified: true, name: "Alice Upstream" } }, [
    `${t.issuer}/federation/op/callback`,
  ]);
  await t.store.create_upstream(
    new_upstream(t.config, { name: "op", display_name: "Upstream OP", issuer: op.issuer, client_id: op.client_id, client_secret: op.client_secret, auto_link: true }),
  );
  const staff = await t.store.create_group({ name: "staff" });
  await t.store.add_group_member(staff.id, t.user.id);
  await t.add_user({ username: "bob", name: "Bob" });
  const carol = await t.add_user({ username: "carol", name: "Carol", email: "carol@example.com", email_verified: false });
  await t.store.add_group_member(staff.id, carol.id);
  app = await echo_app();
  const port = Number(new URL(t.url).port);
  if (have_nginx) proxies.nginx = await start_nginx(port, app.port);
  if (have_caddy) proxies.caddy = await start_caddy(port, app.port);
  for (const proxy of Object.values(proxies)) {
    await create_app(t.store, proxy.name, { url: proxy.url, allowed_groups: ["staff"], rules: ["/public=*"] }, t.clock.now());
    await create_app(t.store, `${proxy.name}-outside`, { url: proxy.outside, allowed_groups: ["staff"] }, t.clock.now());
  }
  // The issuer and the applications are hosts of one cookie domain (idp.test), all on loopback.
  // app.outside.test is outside it: its cookie comes from the callback on its own host.
  browser = await launch(["--host-resolver-rules=MAP *.idp.test 127.0.0.1, MAP *.outside.test 127.0.0.1"]);
}, 90_000);

afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  for (const proxy of Object.values(proxies)) {
    proxy.process.kill("SIGTERM");
    if (proxy.process.exitCode === null) await new Promise((resolve) => proxy.process.once("exit", resolve));
  }
  await new Promise((resolve) => app.server.close(resolve));
  await op?.stop();
  await t.stop();
  for (const dir of temp_dirs) rmSync(dir, { recursive: true, force: true });
});

/** What the application received, as the page shows it. */
async function received(page: Page): Promise<{ url: string; headers: Record<string, string> }> {
  return JSON.parse(await page.locator("body").innerText());
}

async function sign_in(page: Page, username: string): Promise<void> {
  await page.waitForURL(`${t.issuer}/account/login`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(t.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

for (const name of ["nginx", "caddy"] as const) {
  const installed = name === "nginx" ? have_nginx : have_caddy;
  describe.skipIf(!chromium_available || !installed)(`through ${name}`, () => {
    const proxy = () => proxies[name]!;

    test("protected page → our sign-in → back at the page with the Remote-* headers; sign-out ends access", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const target = `${proxy().url}/reports/q3?format=full`;
      await page.goto(target);
      await sign_in(page, "alice");
      await page.waitForURL(target);
      const seen = await received(page);
      expect(seen.url).toBe("/reports/q3?format=full");
      expect(seen.headers["remote-user"]).toBe("alice");
      expect(seen.headers["remote-email"]).toBe("alice@example.com");
      expect(seen.headers["remote-name"]).toBe("Alice Liddell");
      expect(seen.headers["remote-groups"]).toBe("staff");
      // The provider's own session cookie stays at the provider; the application sees only the domain cookie.
      expect(seen.headers.cookie).toMatch(/^idp_forward_auth=[A-Za-z0-9_-]{43}$/);
      // Signed in: another page opens without a sign-in.
      await page.goto(`${proxy().url}/other`);
      expect((await received(page)).headers["remote-user"]).toBe("alice");

      await page.goto(`${t.issuer}/logout`);
      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForLoadState();
      await page.goto(`${proxy().url}/other`);
      await page.waitForURL(`${t.issuer}/account/login`);
      await context.close();
    }, 60_000);

    test("an application outside the cookie domain: sign-in → its callback sets a host-only cookie → back at the page; sign-out ends access", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const target = `${proxy().outside}/reports/q3?format=full`;
      const callbacks: string[] = [];
      page.on("request", (request) => void (request.url().includes("/.idp/callback") && callbacks.push(request.url())));
      await page.goto(target);
      await sign_in(page, "alice");
      await page.waitForURL(target);
      const seen = await received(page);
      expect(seen.url).toBe("/reports/q3?format=full");
      expect(seen.headers["remote-user"]).toBe("alice");
      // Only the host-only cookie reaches this host; the domain cookie does not (nor was it set for it).
      expect(seen.headers.cookie).toMatch(/^idp_forward_auth_host=[A-Za-z0-9_-]{43}$/);
      const cookies = await context.cookies(proxy().outside);
      expect(cookies.map((c) => [c.name, c.domain, c.httpOnly, c.sameSite])).toEqual([["idp_forward_auth_host", "app.outside.test", true, "Lax"]]);
      // The code was spent: the callback URL once more is refused, and sets nothing.
      expect(callbacks).toHaveLength(1);
      expect(callbacks[0]).toMatch(new RegExp(`^${proxy().outside.replaceAll(".", "\\.")}/\\.idp/callback\\?code=[A-Za-z0-9_-]{43}$`));
      const spent = new URL(callbacks[0]!);
      const again = await raw_get(`http://127.0.0.1:${proxy().port}${spent.pathname}${spent.search}`, { host: spent.host });
      expect(again.status).toBe(400);
      expect(again.headers["set-cookie"]).toBeUndefined();
      await page.goto(`${proxy().outside}/other`);
      expect((await received(page)).headers["remote-user"]).toBe("alice");

      await page.goto(`${t.issuer}/logout`);
      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForLoadState();
      await page.goto(`${proxy().outside}/other`);
      await page.waitForURL(`${t.issuer}/account/login`);
      await context.close();
    }, 60_000);

    test("a sign-in through an upstream identity provider also comes back to the application", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const target = `${proxy().url}/public/upstream?x=1`;
      await page.goto(target);
      await page.waitForURL(`${t.issuer}/account/login`);
      await page.getByRole("link", { name: "Sign in with Upstream OP" }).click();
      await upstream_sign_in(page, op.issuer, "alice-up");
      await page.waitForURL(target);
      expect((await received(page)).headers["remote-user"]).toBe("alice");
      await context.close();
    }, 60_000);

    test("a user outside the group gets 403 and a page that says why", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      // bob may open /public (any signed-in user): he signs in there.
      await page.goto(`${proxy().url}/public/readme`);
      await sign_in(page, "bob");
      await page.waitForURL(`${proxy().url}/public/readme`);
      expect((await received(page)).headers["remote-user"]).toBe("bob");
      // The rest needs staff.
      const answer = await page.goto(`${proxy().url}/reports`);
      expect(answer!.status()).toBe(403);
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("No access to this application");
      expect(await page.locator("body").innerText()).toContain(`You are signed in as bob, but your account is not in a group allowed to open ${name}.`);
      // Caddy shows our page at the application's address; nginx sends the browser to it at the provider.
      expect(new URL(page.url()).host).toBe(name === "caddy" ? new URL(proxy().url).host : new URL(t.issuer).host);
      // Styled from the provider's origin, whichever address shows it.
      expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).not.toBe("");
      expect(await page.evaluate(() => document.styleSheets.length)).toBeGreaterThan(0);
      await context.close();
    }, 60_000);

    test("a spoofed Host or X-Forwarded-Host never leads anywhere but the provider", async () => {
      const spoofs: Record<string, string>[] = [
        { host: "evil.example", "x-forwarded-host": "evil.example" },
        { host: `app.idp.test:${proxy().port}`, "x-forwarded-host": "evil.example", "x-original-url": "http://evil.example/" },
      ];
      for (const headers of spoofs) {
        const answer = await raw_get(`http://127.0.0.1:${proxy().port}/reports`, headers);
        const location = String(answer.headers.location ?? "");
        expect(location.includes("evil.example") && !location.startsWith(`${t.issuer}/`)).toBe(false);
        if (answer.status === 302) {
          expect(location.startsWith(`${t.issuer}/forward-auth/start`)).toBe(true);
          const rd = new URL(location).searchParams.get("rd");
          if (rd !== null) expect(new URL(rd).host).toBe(`app.idp.test:${proxy().port}`);
        }
      }
    }, 30_000);

    test("a client's own Remote-* headers never reach the application", async () => {
      const script = new FetchBrowser();
      const start = `${t.url}/forward-auth/start?rd=${encodeURIComponent(`${proxy().url}/`)}`;
      await script.get(start);
      expect((await account_login(t, script, "carol", t.password)).status).toBe(303);
      // The page that moves on to the application (a browser right after its sign-in form).
      expect((await script.get(start)).status).toBe(200);
      const fa = script.cookies.get("idp_forward_auth")!;
      const forged = { "remote-user": "alice", "remote-email": "alice@example.com", "remote-groups": "admins", "remote-name": "Alice" };
      const answer = await raw_get(`http://127.0.0.1:${proxy().port}/reports`, { host: `app.idp.test:${proxy().port}`, cookie: `idp_forward_auth=${fa}`, ...forged });
      expect(answer.status).toBe(200);
      const seen = JSON.parse(answer.text) as { headers: Record<string, string> };
      expect(seen.headers["remote-user"]).toBe("carol");
      expect(seen.headers["remote-groups"]).toBe("staff");
      expect(seen.headers["remote-name"]).toBe("Carol");
      // carol's address is not verified: none is passed on, and the forged one is gone.
      expect(seen.headers["remote-email"] ?? "").toBe("");
      // Not signed in: the forged headers open nothing either.
      const anonymous = await raw_get(`http://127.0.0.1:${proxy().port}/reports`, { host: `app.idp.test:${proxy().port}`, ...forged });
      expect(anonymous.status).toBe(302);
    }, 30_000);
  });
}

describe.skipIf(!enabled)("who may ask", () => {
  test("a direct call from a peer that is not a trusted proxy is refused", async () => {
    const answer = await raw_get(`${t.url}/forward-auth`, { "x-forwarded-proto": "http", "x-forwarded-host": "app.idp.test", "x-forwarded-uri": "/" }, "127.0.0.2");
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("IDP_TRUSTED_PROXIES");
  });
});
