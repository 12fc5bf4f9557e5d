import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
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
    expect(human.stdout).not.toContain("smtp_url"); // unset settings are not listed
    // --env: each setting as configuration errors name it, key (VARIABLE).
    const named = await box.run(["config", "check", "--env"], { env });
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/\nport \(PORT\):\s+8080\n/);
    expect(named.stdout).toMatch(/\ntokens\.code_ttl \(IDP_CODE_TTL\):\s+60\n/);
    expect(named.stdout).toMatch(/\nmetrics_token \(IDP_METRICS_TOKEN\):\s+\*{8}\n/);
    expect(named.stdout).toContain("database_url (DATABASE_URL):");
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
    expect((await box.run(["config", "check", "--json"], { env })).json<{ warnings: string[] }>().warnings).toContain(`SQLite file ${path} is readable by group or others (mode 0644); it holds the signing keys and the accounts: chmod 600 ${path}`);
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
      expect(result.stdout).toMatch(/\n  registration-token +initial access tokens for dynamic client registration \(create,\s+list, revoke\)\n/);
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
