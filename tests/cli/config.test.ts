import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { idp_command, spawn, which } from "../helpers/spawn.ts";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { SETTINGS } from "../../src/config/settings.ts";
import { open_store } from "../../src/store/open.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

describe("idp config check", () => {
  test("prints the effective configuration with secrets masked", async () => {
    const env = { DATABASE_URL: "postgres://idp:s3cret-pw@db.internal:5432/idp", IDP_METRICS_TOKEN: "metrics-token-0123456789", PORT: "8080" };
    const human = await box.run(["config", "check"], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("Configuration is valid.");
    expect(human.stdout).toMatch(/\nport:\s+8080\n/);
    expect(human.stdout).toMatch(/\ntokens\.code_ttl:\s+60\n/);
    expect(human.stdout).toMatch(/\nmetrics_token:\s+\*{8}\n/);
    expect(human.stdout).toContain("postgres://idp:********@db.internal:5432/idp");
    // A setting without a value is listed too, as unset.
    expect(human.stdout).toMatch(/\nsmtp_url:\s+\(unset\)\n/);
    // --env: each setting as configuration errors name it, key (VARIABLE).
    const named = await box.run(["config", "check", "--env"], { env });
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/\nport \(PORT\):\s+8080\n/);
    expect(named.stdout).toMatch(/\ntokens\.code_ttl \(IDP_CODE_TTL\):\s+60\n/);
    expect(named.stdout).toMatch(/\nmetrics_token \(IDP_METRICS_TOKEN\):\s+\*{8}\n/);
    expect(named.stdout).toContain("database_url (DATABASE_URL):");
    expect(named.stdout).toMatch(/\nsmtp_url \(IDP_SMTP_URL\):\s+\(unset\)\n/);
    const json = await box.run(["config", "check", "--json"], { env });
    expect(json.code).toBe(0);
    const doc = json.json<{ valid: boolean; config: Record<string, unknown>; warnings: string[] }>();
    expect(doc.valid).toBe(true);
    expect(doc.config).toMatchObject({ port: 8080, metrics_token: "********", database_url: "postgres://idp:********@db.internal:5432/idp" });
    for (const out of [human.stdout, human.stderr, named.stdout, json.stdout]) {
      expect(out).not.toContain("s3cret-pw");
      expect(out).not.toContain("metrics-token-0123456789");
    }
  });

  test("invalid configuration: message names the key, exit 1, no stack trace", async () => {
    const result = await box.run(["config", "check"], { env: { PORT: "eighty", IDP_SIGNING_ALGS: "ES256" } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("error: Invalid configuration:\n");
    expect(result.stderr).toContain("port (PORT)");
    expect(result.stderr).toContain("signing_algs (IDP_SIGNING_ALGS): must include RS256");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const json = await box.run(["config", "check", "--json"], { env: { IDP_REGISTRATION: "sometimes" } });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ exit_code: 1, error: expect.stringContaining("registration (IDP_REGISTRATION)") });
  });

  test("an unreadable IDP_CONFIG file is a configuration error too", async () => {
    const missing = await box.run(["config", "check"], { env: { IDP_CONFIG: join(box.dir, "missing.json") } });
    expect([missing.code, missing.stderr.includes("Cannot read config file")]).toEqual([1, true]);
    const file = join(box.dir, "idp.json");
    writeFileSync(file, JSON.stringify({ issuer: "https://id.example.com", tokens: { access_token_ttl: 600 } }));
    const ok = await box.run(["config", "check", "--json"], { env: { IDP_CONFIG: file } });
    expect(ok.json()).toMatchObject({ config: { issuer: "https://id.example.com", tokens: { access_token_ttl: 600 } } });
  });

  test("upstreams from the config file are listed as JSON, their secrets masked", async () => {
    const file = join(box.dir, "upstreams.json");
    writeFileSync(file, JSON.stringify({ federation: { upstreams: [{ name: "corp", issuer: "https://sso.example.com", client_id: "idp", client_secret: "upstream-s3cret" }] } }));
    const human = await box.run(["config", "check", "--env"], { env: { IDP_CONFIG: file } });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/\nfederation\.upstreams:\s+\{"name":"corp","issuer":"https:\/\/sso\.example\.com","client_id":"idp","client_secret":"\*{8}"\}\n/);
    expect(human.stdout).not.toContain("upstream-s3cret");
  });

  test("risky but valid settings are warnings on stderr", async () => {
    const result = await box.run(["config", "check"], { env: { IDP_ISSUER: "http://id.example.com" } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("warning: issuer http://id.example.com uses http on a public host");
  });

  test("a SQLite database readable by group or others is a warning naming the file, its mode and the fix", async () => {
    const path = join(box.dir, "loose.sqlite");
    const env = { DATABASE_URL: `sqlite:${path}` };
    expect((await box.run(["users", "list"], { env })).code).toBe(0);
    expect((await box.run(["config", "check"], { env })).stderr).not.toContain("SQLite file");
    chmodSync(path, 0o644);
    const human = await box.run(["config", "check"], { env });
    expect(human.code).toBe(0);
    expect(human.stderr).toContain(`warning: SQLite file ${path} is readable by group or others (mode 0644); it holds the signing keys and the accounts: chmod 600 ${path}`);
    expect((await box.run(["config", "check", "--json"], { env })).json<{ warnings: string[] }>().warnings).toContain(
      `SQLite file ${path} is readable by group or others (mode 0644); it holds the signing keys and the accounts: chmod 600 ${path}`,
    );
  });

  test("production without mail: a warning naming what is then unavailable and the fix; none with SMTP or in development", async () => {
    const off = await box.run(["config", "check", "--json"], { env: { IDP_PRODUCTION: "true", IDP_ISSUER: "https://id.example.com" } });
    expect(off.code).toBe(0);
    const warning = off.json<{ warnings: string[] }>().warnings.find((line) => line.startsWith("mail is off"));
    expect(warning).toBe(
      "mail is off (production mode without IDP_SMTP_URL): forgot password, e-mail change, e-mail confirmation links, invitations are not available, and the sign-in and account pages say so; set IDP_SMTP_URL and IDP_MAIL_FROM to turn them on",
    );
    const human = await box.run(["config", "check"], { env: { IDP_PRODUCTION: "true", IDP_ISSUER: "https://id.example.com" } });
    expect(human.stderr).toContain(`warning: ${warning}\n`);
    const on = { IDP_PRODUCTION: "true", IDP_ISSUER: "https://id.example.com", IDP_SMTP_URL: "smtp://mail.example.com", IDP_MAIL_FROM: "idp@example.com" };
    expect((await box.run(["config", "check"], { env: on })).stderr).not.toContain("mail is off");
    expect((await box.run(["config", "check"], { env: {} })).stderr).not.toContain("mail is off");
  });

  test("any command reports an invalid configuration the same way", async () => {
    const result = await box.run(["users", "list"], { env: { DATABASE_URL: "mysql://x" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("database_url (DATABASE_URL): must start with sqlite:");
  });
});

describe("help and version", () => {
  test("--help, -h, help and no-argument help text", async () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      const result = await box.run(argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("Usage: idp [command] [options]");
      // Each command with its summary and its sub-commands, wrapped to the help's width.
      expect(result.stdout).toMatch(/\n {2}registration-token +initial access tokens for dynamic client registration \(create,\s+list, revoke\)\n/);
    }
  });

  test("<command> --help and help <command>", async () => {
    const cases: [string[], string][] = [
      [["users", "--help"], "idp users add <username> --password-stdin"],
      [["users", "add", "--help"], "idp users add <username> --password-stdin"],
      [["help", "clients"], "idp clients add --name N --redirect-uri U"],
      [["clients", "add", "-h"], "--auth-method client_secret_basic|client_secret_post|private_key_jwt|none"],
      [["keys", "--help"], "idp keys rotate [--alg RS256|PS256|ES256|EdDSA]"],
      [["serve", "--help"], "idp serve [--production] [--port N] [--host H]"],
      [["registration-token", "--help"], "--expires-in DURATION"],
      [["audit", "list", "--help"], "--since ISO-8601|UNIX-SECONDS"],
      [["config", "--help"], "idp config check"],
      [["migrate", "--help"], "idp migrate"],
    ];
    for (const [argv, text] of cases) {
      const result = await box.run(argv);
      expect([argv.join(" "), result.code, result.stdout.includes(text)]).toEqual([argv.join(" "), 0, true]);
    }
  });

  test("--version prints the package.json version", async () => {
    const result = await box.run(["--version"]);
    expect([result.code, result.stdout]).toEqual([0, `idp ${pkg.version}\n`]);
    expect((await box.run(["--version", "--json"])).json()).toEqual({ version: pkg.version });
  });

  test("unknown command is a usage error pointing at --help", async () => {
    const result = await box.run(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: unknown command "frobnicate"\nRun `idp --help` for usage.\n');
    expect((await box.run(["help", "frobnicate"])).code).toBe(2);
  });
});

describe("idp config check lists the unset settings", () => {
  test("human output: `key: (unset)` in the schema's order; --json: `config` without them and an `unset` array of their keys", async () => {
    const env = { IDP_METRICS_TOKEN: "metrics-token-0123456789" };
    const human = await box.run(["config", "check"], { env });
    expect(human.code).toBe(0);
    for (const key of ["smtp_url", "mail_from", "pairwise.salt"]) expect(human.stdout).toMatch(new RegExp(`\\n${key.replace(".", "\\.")}:\\s+\\(unset\\)\\n`));
    // Set ones keep their value (a secret masked, never "(unset)").
    expect(human.stdout).toMatch(/\nmetrics_token:\s+\*{8}\n/);
    const lines = human.stdout
      .split("\n")
      .filter((line) => /^[a-z_.0-9]+:/.test(line))
      .map((line) => line.split(":")[0]);
    expect(lines).toEqual(SETTINGS.map(({ path }) => path));
    const json = (await box.run(["config", "check", "--json"], { env })).json<{ config: Record<string, unknown>; unset: string[] }>();
    expect(json.unset).toContain("smtp_url");
    expect(json.unset).toContain("mail_from");
    expect(json.unset).not.toContain("metrics_token");
    expect("smtp_url" in json.config).toBe(false);
    // Every setting is either in `config` or in `unset`.
    const has = (path: string) => path.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], json.config) !== undefined;
    for (const { path } of SETTINGS) expect([path, has(path) !== json.unset.includes(path)]).toEqual([path, true]);
  });
});

/**
 * A SQLite database the server's user cannot write. Root writes anything, so as root the commands
 * run as nobody (setpriv); otherwise as this user.
 */
const AS_ROOT = process.getuid?.() === 0;
const SETPRIV = which("setpriv");
describe.skipIf(process.platform === "win32" || (AS_ROOT && SETPRIV === null))("a SQLite database this user cannot write", () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), "idp-unwritable-"));
    chmodSync(base, 0o777);
  });
  afterAll(() => {
    for (const name of readdirSync(base)) chmodSync(join(base, name), 0o777);
    rmSync(base, { recursive: true, force: true });
  });

  async function idp(argv: string[], database: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const prefix = AS_ROOT ? [SETPRIV!, "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, DATABASE_URL: `sqlite:${database}`, PORT: "0", HOST: "127.0.0.1", IDP_LOG_REQUESTS: "false" };
    const proc = spawn([...prefix, ...idp_command(), ...argv], { cwd: base, env, stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    return { code, stdout, stderr };
  }

  /** A database made (migrated) by the test's own user in `dir`, then left without its WAL files. */
  async function made(dir: string): Promise<string> {
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const file = join(dir, "idp.sqlite");
    const store = await open_store(`sqlite:${file}`);
    await store.close();
    for (const suffix of ["-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    return file;
  }

  const cases = [
    {
      what: "a read-only directory, no database yet",
      setup: async (dir: string) => (mkdirSync(dir), chmodSync(dir, 0o555), join(dir, "idp.sqlite")),
      says: "is not writable, so idp.sqlite, idp.sqlite-wal, idp.sqlite-shm cannot be created there",
    },
    {
      what: "a read-only database file",
      setup: async (dir: string) => {
        const file = await made(dir);
        chmodSync(file, 0o444);
        return file;
      },
      says: "the file is not readable and writable for it",
    },
    {
      what: "a writable file in a read-only directory (the WAL files cannot be created)",
      setup: async (dir: string) => {
        const file = await made(dir);
        chmodSync(file, 0o666);
        chmodSync(dir, 0o555);
        return file;
      },
      says: "is not writable, so idp.sqlite-wal, idp.sqlite-shm cannot be created there",
    },
  ];
  for (const [index, { what, setup, says }] of cases.entries()) {
    test(`${what}: serve stops naming the path and the fix; config check warns the same`, async () => {
      const file = await setup(join(base, `case${index}`));
      const serve = await idp(["serve"], file);
      expect(serve.code).toBe(1);
      expect(serve.stderr).toContain(`error: database unavailable: the SQLite database ${file} is not writable by this process`);
      expect(serve.stderr).toContain(says);
      expect(serve.stderr).toContain("Fix: give the user the server runs as read and write access to the file and write access to its directory");
      expect(serve.stderr).toContain("idp.sqlite-wal and idp.sqlite-shm in the same directory");
      const check = await idp(["config", "check", "--json"], file);
      expect(check.code).toBe(0);
      const warnings = (JSON.parse(check.stdout) as { warnings: string[] }).warnings;
      expect(warnings).toContainEqual(expect.stringContaining(`database_url (DATABASE_URL): the SQLite database ${file} is not writable`));
      expect(warnings.find((warning) => warning.startsWith("database_url"))).toContain(says);
    }, 60_000);
  }

  test("a writable place gets no warning", async () => {
    const dir = join(base, "fine");
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const check = await idp(["config", "check", "--json"], join(dir, "idp.sqlite"));
    expect(check.code).toBe(0);
    expect((JSON.parse(check.stdout) as { warnings: string[] }).warnings.filter((warning) => warning.startsWith("database_url"))).toEqual([]);
  }, 30_000);
});
