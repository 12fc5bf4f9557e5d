/**
 * Data at rest (issue 27): the private signing keys sealed under IDP_SECRET_KEY
 * (oidc/keys/sealed_keys.ts) on SQLite and PostgreSQL, the refusal to start when they cannot be
 * opened, and what `idp config check` and the start-up log say about exposed data.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load_config } from "../../src/app/config.ts";
import { serve } from "../../src/app/server.ts";
import { KeyRingError } from "../../src/oidc/keys/errors.ts";
import { KeyRing, type KeyRingOptions } from "../../src/oidc/keys/keyring.ts";
import { seal_private_jwk } from "../../src/oidc/keys/sealed_keys.ts";
import type { LogLine } from "../../src/oidc/provider.ts";
import { open_store } from "../../src/store/open.ts";
import type { KeyRow, Store } from "../../src/store/types.ts";
import { rejection } from "../helpers/settle.ts";
import { run_cli } from "../../src/cli/index.ts";
import { test_databases } from "../store/pg.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-at-rest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET_KEY = Buffer.alloc(32, 7).toString("base64url");
const OTHER_KEY = Buffer.alloc(32, 9).toString("base64url");
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
const ring_options = (secret_key?: string): KeyRingOptions => ({ algs: ["RS256", "ES256"], retire_after_seconds: 3600, ...(secret_key === undefined ? {} : { secret_key }) });

/** The stored rows as the database has them (no key ring in between). */
const raw_rows = (store: Store): Promise<KeyRow[]> => store.list_keys();

for (const database of await test_databases()) {
  describe(`signing keys at rest (${database.name})`, () => {
    /** Runs `body` with a function that opens another store instance on one new database (a restart). */
    async function with_database(body: (open: () => Promise<Store>) => Promise<void>): Promise<void> {
      const target = await database.url();
      const url = target.url === "" ? `sqlite:${join(mkdtempSync(join(dir, "db-")), "idp.db")}` : target.url;
      const opened: Store[] = [];
      try {
        await body(async () => {
          const store = await open_store(url, { max: 4 });
          opened.push(store);
          return store;
        });
      } finally {
        for (const store of opened) await store.close();
        await target.drop();
      }
    }

    test("with IDP_SECRET_KEY no stored private key holds a plain member; tokens signed before a restart verify after it", async () => {
      await with_database(async (open) => {
        const ring = await KeyRing.load(await open(), ring_options(SECRET_KEY));
        const token = await ring.sign({ sub: "alice" });
        const es = await ring.sign({ sub: "bob" }, { alg: "ES256" });
        const rows = await raw_rows(await open());
        expect(rows).toHaveLength(4);
        for (const row of rows) {
          expect(Object.keys(row.private_jwk)).toEqual(["sealed"]);
          for (const member of PRIVATE_MEMBERS) expect(JSON.stringify(row.private_jwk)).not.toContain(`"${member}":`);
        }
        const restarted = await KeyRing.load(await open(), ring_options(SECRET_KEY));
        expect(await restarted.verify(token)).toMatchObject({ sub: "alice" });
        expect(await restarted.verify(es)).toMatchObject({ sub: "bob" });
        expect(restarted.active_kid("RS256")).toBe(ring.active_kid("RS256"));
        expect(await ring.verify(await restarted.sign({ sub: "carol" }))).toMatchObject({ sub: "carol" });
      });
    });

    test("keys stored in clear before IDP_SECRET_KEY was set are sealed at the next start, once; their tokens still verify", async () => {
      await with_database(async (open) => {
        const plain = await KeyRing.load(await open(), ring_options());
        const token = await plain.sign({ sub: "alice" });
        const before = await raw_rows(await open());
        expect(before.every((row) => typeof row.private_jwk.d === "string")).toBe(true);

        const sealed = await KeyRing.load(await open(), ring_options(SECRET_KEY));
        expect(await sealed.verify(token)).toMatchObject({ sub: "alice" });
        expect(sealed.list()).toEqual(plain.list());
        const after = await raw_rows(await open());
        expect(after.map((row) => [row.kid, Object.keys(row.private_jwk)])).toEqual(before.map((row) => [row.kid, ["sealed"]]));
        expect(after.map((row) => row.public_jwk)).toEqual(before.map((row) => row.public_jwk));

        // Idempotent: a second start with the key changes nothing.
        await KeyRing.load(await open(), ring_options(SECRET_KEY));
        expect(await raw_rows(await open())).toEqual(after);
      });
    });

    test("sealed keys without IDP_SECRET_KEY, or with another key, stop the start naming IDP_SECRET_KEY; nothing is changed", async () => {
      await with_database(async (open) => {
        await KeyRing.load(await open(), ring_options(SECRET_KEY));
        const rows = await raw_rows(await open());
        const missing = await rejection(KeyRing.load(await open(), ring_options()));
        expect(missing).toBeInstanceOf(KeyRingError);
        expect((missing as Error).message).toContain("IDP_SECRET_KEY is not set");
        const wrong = await rejection(KeyRing.load(await open(), ring_options(OTHER_KEY)));
        expect(wrong).toBeInstanceOf(KeyRingError);
        expect((wrong as Error).message).toContain("does not decrypt with IDP_SECRET_KEY");
        expect(await raw_rows(await open())).toEqual(rows);
      });
    });

    test("a sealed key copied onto another key's row does not open there (the kid is the additional data)", async () => {
      await with_database(async (open) => {
        const store = await open();
        await KeyRing.load(store, ring_options(SECRET_KEY));
        const [first, second] = await raw_rows(store);
        expect(await store.replace_private_jwk(second!.kid, second!.private_jwk, first!.private_jwk)).toBe(true);
        expect(((await rejection(KeyRing.load(await open(), ring_options(SECRET_KEY)))) as Error).message).toContain(`signing key ${second!.kid} in the database does not decrypt`);
      });
    });
  });
}

describe("the command line and the start-up log", () => {
  const env = (path: string, extra: Record<string, string> = {}) => ({ DATABASE_URL: `sqlite:${path}`, IDP_SIGNING_ALGS: "RS256", ...extra });
  async function cli(argv: string[], vars: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = "";
    let stderr = "";
    const code = await run_cli(argv, { stdin: "", stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env: vars });
    return { code, stdout, stderr };
  }

  test("a command on sealed keys without IDP_SECRET_KEY fails with the reason, no stack trace", async () => {
    const path = join(dir, "cli.db");
    expect((await cli(["keys", "list"], env(path, { IDP_SECRET_KEY: SECRET_KEY }))).code).toBe(0);
    const refused = await cli(["keys", "list"], env(path));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith("error: the signing keys in the database are encrypted (key ");
    expect(refused.stderr).toContain("IDP_SECRET_KEY is not set");
    expect(refused.stderr).not.toContain("unexpected error");
  });

  test("production without IDP_SECRET_KEY is a warning of idp config check", async () => {
    const vars = env(join(dir, "check.db"), { IDP_PRODUCTION: "true", IDP_ISSUER: "https://id.example.com" });
    const warning =
      "production mode without IDP_SECRET_KEY: the private signing keys are stored in clear in the database; set IDP_SECRET_KEY (32 bytes, base64url) to store them encrypted";
    expect((await cli(["config", "check"], vars)).stderr).toContain(`warning: ${warning}`);
    expect((await cli(["config", "check"], { ...vars, IDP_SECRET_KEY: SECRET_KEY })).stderr).not.toContain("IDP_SECRET_KEY");
    expect((await cli(["config", "check"], { ...vars, IDP_PRODUCTION: "false" })).stderr).not.toContain("IDP_SECRET_KEY");
  });

  /** Starts and stops a server on `store`; the warnings it logged. */
  async function start_warnings(config: ReturnType<typeof load_config>, store: Store): Promise<LogLine[]> {
    const lines: LogLine[] = [];
    const served = await serve(config, { store, port: 0, log: (line) => void lines.push(line), out: () => {} });
    await served.stop();
    return lines.filter((line) => line.level === "warn");
  }

  test("the start-up log warns of a SQLite file readable by group or others, and of production without IDP_SECRET_KEY", async () => {
    const path = join(dir, "served.db");
    const settings = { database_url: `sqlite:${path}`, host: "127.0.0.1", signing_algs: ["RS256"], log_requests: false, argon2: { memory_kib: 1024, time_cost: 1 } };
    const store = await open_store(`sqlite:${path}`);
    try {
      expect(await start_warnings(load_config({}, settings), store)).toEqual([]);
      chmodSync(path, 0o644);
      expect(await start_warnings(load_config({}, settings), store)).toEqual([
        { level: "warn", msg: `SQLite file ${path} is readable by group or others (mode 0644); it holds the signing keys and the accounts: chmod 600 ${path}` },
      ]);
      chmodSync(path, 0o600);
      const production = load_config({}, { ...settings, production: true, issuer: "https://id.example.com", smtp_url: "smtp://127.0.0.1:1", mail_from: "idp@example.com" });
      expect((await start_warnings(production, store)).map((line) => line.msg)).toEqual([expect.stringMatching(/^production mode without IDP_SECRET_KEY/)]);
    } finally {
      await store.close();
    }
  });

  test("seal_private_jwk leaves no private member in the stored form", () => {
    const stored = seal_private_jwk(Buffer.from(SECRET_KEY, "base64url"), "kid-1", { kty: "EC", crv: "P-256", x: "x", y: "y", d: "secret-d" });
    expect(Object.keys(stored)).toEqual(["sealed"]);
    expect(JSON.stringify(stored)).not.toContain("secret-d");
  });
});
