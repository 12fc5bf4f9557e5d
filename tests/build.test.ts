/**
 * `npm run build`: the single executable. Built into a temporary directory, copied alone into
 * another one, and run from a third (an empty working directory): the admin CLI works, and the
 * server answers discovery, renders the login page and serves the stylesheet, which proves the
 * templates and static files are embedded.
 *
 * Bun only: the executable is `bun build --compile`'s.
 */
import { afterAll, beforeAll, describe, expect, RUNTIME, test } from "./helpers/test_api.ts";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { embedded_assets } from "../src/app/embedded/assets.ts";
import { load_assets } from "../src/app/server.ts";
import { VENDOR_FILES } from "../src/http/vendor_files.ts";
import { Browser, form_action, hidden_field } from "./helpers/browser.ts";
import { pkce } from "./helpers/flow.ts";
import { free_port, REDIRECT_URI } from "./helpers/provider.ts";
import { start_subprocess_provider, type SubprocessProvider } from "./helpers/subprocess.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { spawn } from "./helpers/spawn.ts";

// Loaded on Bun only: the build scripts name Bun's API (Bun.build, import.meta.dir).
const { build_executable } = RUNTIME === "bun" ? await import("../scripts/build.ts") : { build_executable: null };
const { manifest_source } = RUNTIME === "bun" ? await import("../scripts/embed.ts") : { manifest_source: null };

const ROOT = join(import.meta.dirname, "..");
/** Each CLI call starts a 100 MB executable; generous for a loaded CI machine. */
const CLI_TIMEOUT = 30_000;

/** Where a static file comes from: static/, or an installed package (src/http/vendor_files.ts). */
function static_path(name: string): string {
  return Object.hasOwn(VENDOR_FILES, name) ? join(ROOT, VENDOR_FILES[name]!) : join(ROOT, "static", name);
}

describe.skipIf(RUNTIME !== "bun")("embedding (Bun only)", () => {
  test("the generated manifest imports every template as text and every static file as a file", () => {
    const source = manifest_source!(ROOT);
    const { templates, static_files } = load_assets();
    for (const name of Object.keys(templates)) {
      expect(source).toContain(`${JSON.stringify(join(ROOT, "views", `${name}.eta`))} with { type: "text" }`);
      expect(source).toContain(`${JSON.stringify(name)}: t`);
    }
    for (const name of static_files.keys()) {
      expect(source).toContain(`${JSON.stringify(static_path(name))} with { type: "file" }`);
    }
  });

  test("embedded_assets gives the same templates and static files as the folders", () => {
    const folders = load_assets();
    const manifest = {
      templates: folders.templates,
      static_files: Object.fromEntries([...folders.static_files.keys()].map((name) => [name, static_path(name)])),
    };
    const embedded = embedded_assets(manifest)!;
    expect(embedded.templates).toEqual(folders.templates);
    expect([...embedded.static_files.keys()].sort()).toEqual([...folders.static_files.keys()].sort());
    for (const [name, file] of folders.static_files) expect(embedded.static_files.get(name)).toEqual(file);
  });

  test("in development nothing is embedded (the folders are read)", () => {
    expect(embedded_assets()).toBeNull();
  });
});

describe.skipIf(RUNTIME !== "bun")("the compiled executable (Bun only)", () => {
  let bin_dir: string;
  let bin: string;
  let t: SubprocessProvider;

  beforeAll(async () => {
    const build_dir = mkdtempSync(join(tmpdir(), "idp-build-"));
    bin_dir = mkdtempSync(join(tmpdir(), "idp-bin-"));
    try {
      await build_executable!(join(build_dir, "idp"));
      // Only the executable: no source map, no views/, no static/, no node_modules.
      bin = join(bin_dir, "idp");
      copyFileSync(join(build_dir, "idp"), bin);
    } finally {
      rmSync(build_dir, { recursive: true, force: true });
    }
    t = await start_subprocess_provider([bin]);
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    rmSync(bin_dir, { recursive: true, force: true });
  });

  test("nothing but the executable is beside it", () => {
    expect(readdirSync(bin_dir)).toEqual(["idp"]);
  });

  test(
    "--version and --help",
    async () => {
      const version = await t.cli(["--version"]);
      expect(version).toEqual({ code: 0, stdout: `idp ${pkg.version}\n`, stderr: "" });
      const help = await t.cli(["--help"]);
      expect(help.code).toBe(0);
      for (const command of ["serve", "migrate", "users", "clients", "keys"]) expect(help.stdout).toContain(`  ${command} `);
      expect((await t.cli(["users", "--help"])).stdout).toContain("idp users add <username> --password-stdin");
    },
    CLI_TIMEOUT,
  );

  test(
    "admin commands: migrate, users add/list, clients list, keys list",
    async () => {
      expect((await t.cli_json<{ version: number }>(["migrate"])).version).toBeGreaterThan(0);
      const bob = await t.cli_json<{ id: string; username: string }>(["users", "add", "bob", "--password-stdin", "--email", "bob@example.com"], "a long password\n");
      expect(bob.username).toBe("bob");
      const users = await t.cli_json<{ id: string; username: string }[]>(["users", "list"]);
      expect(users.map((u) => u.username).sort()).toEqual(["alice", "bob"]);
      expect(JSON.stringify(users)).not.toContain("argon2");
      const clients = await t.cli_json<{ client_id: string }[]>(["clients", "list"]);
      expect(clients.map((c) => c.client_id)).toContain(t.client.client_id);
      const keys = await t.cli_json<{ alg: string; status: string }[]>(["keys", "list"]);
      expect(
        keys
          .filter((k) => k.status === "active")
          .map((k) => k.alg)
          .sort(),
      ).toEqual(["ES256", "RS256"]);
    },
    CLI_TIMEOUT,
  );

  test(
    "a usage error exits 2",
    async () => {
      const run = await t.cli(["frobnicate"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('unknown command "frobnicate"');
    },
    CLI_TIMEOUT,
  );

  test(
    "a .env file in the working directory is not loaded (configuration is the environment)",
    async () => {
      writeFileSync(join(t.dir, ".env"), "IDP_REGISTRATION=open\n");
      try {
        const config = await t.cli_json<{ config: { registration: string } } | { registration: string }>(["config", "check"]);
        expect(JSON.stringify(config)).toContain('"registration":"token"');
      } finally {
        rmSync(join(t.dir, ".env"));
      }
    },
    CLI_TIMEOUT,
  );

  test("serve: discovery names the configured issuer", async () => {
    const response = await fetch(`${t.url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as { issuer: string; token_endpoint: string };
    expect(discovery.issuer).toBe(t.issuer);
    expect(discovery.token_endpoint).toBe(`${t.issuer}/token`);
  });

  test("serve: the login page renders from the embedded templates, with the embedded stylesheet", async () => {
    const browser = new Browser();
    const p = pkce();
    const query = { client_id: t.client.client_id, response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid", code_challenge: p.challenge, code_challenge_method: "S256" };
    const start = await browser.get(`${t.url}/authorize?${new URLSearchParams(query)}`);
    expect(start.headers.get("location")).toContain("/interaction/");
    const page = await browser.get(new URL(start.headers.get("location")!, t.url).href);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain('<label for="password">');
    expect(hidden_field(html, "csrf")).toBeTruthy();
    expect(form_action(html)).toContain("/login");

    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(html)![1]!;
    const css = await fetch(new URL(href, t.url));
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect((await css.text()).length).toBeGreaterThan(100);

    // Passkeys cannot work at this IP-address issuer, so the page runs no script
    // (tests/http/passkeys_rp_id.test.ts); the passkey scripts are embedded all the same: ours,
    // and the WebAuthn helper from node_modules.
    expect(html).not.toContain("<script");
    for (const path of ["/static/vendor/simplewebauthn-browser.js", "/static/passkeys.js"]) {
      const js = await fetch(new URL(path, t.url));
      expect([path, js.status, js.headers.get("content-type")]).toEqual([path, 200, "text/javascript; charset=utf-8"]);
    }
  });

  test("serve with IDP_THEME_DIR: the theme's sign-in page replaces the embedded one (examples/theme)", async () => {
    const port = await free_port();
    const issuer = `http://127.0.0.1:${port}`;
    const env = { ...t.env, PORT: String(port), IDP_ISSUER: issuer, IDP_THEME_DIR: join(ROOT, "examples", "theme"), IDP_BRAND_NAME: "ACME" };
    const proc = spawn([bin, "serve"], { cwd: t.dir, env, stdout: "ignore", stderr: "pipe" });
    try {
      const browser = new Browser();
      const p = pkce();
      const query = {
        client_id: t.client.client_id,
        response_type: "code",
        redirect_uri: REDIRECT_URI,
        scope: "openid",
        code_challenge: p.challenge,
        code_challenge_method: "S256",
      };
      let start: Response | null = null;
      for (let i = 0; i < 100 && start === null; i++) {
        start = await browser.get(`${issuer}/authorize?${new URLSearchParams(query)}`).catch(() => null);
        if (start === null) await sleep(200);
      }
      const html = await (await browser.get(new URL(start!.headers.get("location")!, issuer).href)).text();
      expect(html).toContain("<h1>Welcome to ACME</h1>");
      expect(html).toContain('<label for="password">');
      // The theme's partial and its static image, beside the embedded stylesheet.
      expect(html).toContain(`${issuer}/static/theme/help.svg`);
      expect((await fetch(`${issuer}/static/theme/help.svg`)).status).toBe(200);
      expect((await fetch(`${issuer}/static/style.css`)).status).toBe(200);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 60_000);

  test("serve: an unknown page gets the error template", async () => {
    const response = await fetch(`${t.url}/no-such-page`, { headers: { accept: "text/html" } });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("Page not found");
  });

  test("serve --workers 2: the executable starts itself twice on one port; SIGTERM stops them all, exit 0", async () => {
    const port = await free_port();
    const token = "build-test-metrics-token";
    const env = { ...t.env, PORT: String(port), IDP_ISSUER: `http://127.0.0.1:${port}`, IDP_METRICS_TOKEN: token };
    const proc = spawn([bin, "serve", "--workers", "2", "--json"], { cwd: t.dir, env, stdout: "pipe", stderr: "pipe" });
    let stdout = "";
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 60_000;
    let start: { workers: number; pids: number[] } | undefined;
    while (start === undefined && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      stdout += decoder.decode(value, { stream: true });
      const line = stdout.split("\n").find((l) => l.startsWith("{") && l.includes('"version"') && l.includes('"pids"'));
      if (line !== undefined) start = JSON.parse(line) as { workers: number; pids: number[] };
    }
    void (async () => {
      for (;;) if ((await reader.read()).done) return;
    })();
    try {
      expect(start?.workers).toBe(2);
      const seen = new Set<string>();
      for (let i = 0; i < 40 && seen.size < 2; i++) {
        const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}`, connection: "close" } });
        seen.add(/worker="(\d+)"/.exec(await response.text())?.[1] ?? "none");
      }
      expect([...seen].sort()).toEqual(["1", "2"]);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(start!.pids.filter(alive)).toEqual([]);
  }, 90_000);
});
