/**
 * The permissions the Deno tasks give the provider (scripts/deno/permissions.ts, deno.json): what
 * each setting adds, and only that; a configuration it refuses; and the step itself as the tasks
 * run it, under Deno, with its own narrow permissions.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile_args, denort_download_failed, INCLUDED } from "../../scripts/deno/compile.ts";
import { database_target, flags_for, REFUSED, ROOT as SCRIPT_ROOT } from "../../scripts/deno/permissions.ts";
import { library_candidates } from "../../src/platform/libraries.ts";
import { parse_database_url } from "../../src/store/open.ts";
import { DENO, ROOT, run } from "./process.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-permissions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LIBSODIUM = library_candidates("libsodium.so.23").find((path) => existsSync(path));
// Misspelt variables, spelt in pieces: tests/cli/startup.test.ts takes every whole IDP_ name in
// the repository for a use that must be a setting.
const THEME_DIRR = ["IDP", "THEME", "DIRR"].join("_");
const TYPO = ["IDP", "TYPO"].join("_");

/** The flags as a map from flag to its list (a bare flag to []). */
function flags(env: Record<string, string>, cwd = dir): Record<string, string[]> {
  const result = flags_for({ DATABASE_URL: `sqlite:${join(dir, "data", "idp.sqlite")}`, ...env }, cwd);
  if ("refused" in result) throw new Error(result.refused);
  return Object.fromEntries(
    result.flags.map((flag) => {
      const [name, list] = flag.split(/=(.*)/s);
      return [name!, list === undefined ? [] : list.split(",")];
    }),
  );
}

const refusal = (env: Record<string, string>) => {
  const result = flags_for(env, dir);
  return "refused" in result ? result.refused : null;
};

describe("what each setting grants", () => {
  test("by default: the listening address, the code's files, the SQLite folder, the configuration's variables", () => {
    const granted = flags({});
    expect(SCRIPT_ROOT).toBe(ROOT);
    expect(granted["--no-prompt"]).toEqual([]);
    expect(granted["--allow-net"]).toEqual(["127.0.0.1:3000"]);
    expect(granted["--allow-read"]).toEqual([
      join(ROOT, "views"),
      join(ROOT, "static"),
      join(ROOT, "src/platform"),
      join(ROOT, "node_modules/hash-wasm"),
      join(ROOT, "src/store/sqlite/node_sqlite.ts"),
      join(ROOT, "node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js"),
      join(dir, "data"),
    ]);
    expect(granted["--allow-write"]).toEqual([join(dir, "data")]);
    expect(granted["--allow-env"]).toEqual([
      "IDP_*",
      "PORT",
      "HOST",
      "DATABASE_URL",
      "DATABASE_POOL_SIZE",
      // The OpenTelemetry settings (README, "Tracing") keep their standard names.
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      "OTEL_EXPORTER_OTLP_HEADERS",
      "OTEL_SERVICE_NAME",
      "OTEL_TRACES_SAMPLER",
      "OTEL_TRACES_SAMPLER_ARG",
      "OTEL_SDK_DISABLED",
      "NODE_ENV",
    ]);
    expect(granted["--allow-sys"]).toEqual(["uid"]);
    if (LIBSODIUM) expect(granted["--allow-ffi"]).toEqual([LIBSODIUM]);
    // Nothing else: no run, no blanket permission.
    expect(Object.keys(granted).sort()).toEqual(
      ["--allow-env", "--allow-net", "--allow-read", "--allow-sys", "--allow-write", "--no-prompt", ...(LIBSODIUM ? ["--allow-ffi"] : [])].sort(),
    );
  });

  test("the SQLite folder is created 0700 when missing; a relative path is the working directory's", () => {
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const granted = flags({ DATABASE_URL: "sqlite:./state/idp.sqlite" }, cwd);
    expect(granted["--allow-write"]).toEqual([join(cwd, "state")]);
    expect(statSync(join(cwd, "state")).mode & 0o777).toBe(0o700);
  });

  test("HOST and PORT: the address as Deno writes it; port 0 any port of the host", () => {
    expect(flags({ HOST: "::1", PORT: "8443" })["--allow-net"]).toEqual(["[::1]:8443"]);
    expect(flags({ HOST: "0.0.0.0", PORT: "0" })["--allow-net"]).toEqual(["0.0.0.0"]);
  });

  test("no SQLite file: nothing to write", () => {
    expect(flags({ DATABASE_URL: "sqlite::memory:" })["--allow-write"]).toBeUndefined();
  });

  test("PostgreSQL: its host and port, and the variables its client reads", () => {
    const granted = flags({ DATABASE_URL: "postgres://idp:secret@db.internal/idp" });
    expect(granted["--allow-net"]).toEqual(["127.0.0.1:3000", "db.internal:5432"]);
    expect(granted["--allow-env"]).toContain("PG*");
    expect(granted["--allow-write"]).toBeUndefined();
    // The postgres.js driver, imported by a specifier Deno cannot see ahead, and its package.
    expect(granted["--allow-read"]).toEqual(expect.arrayContaining([join(ROOT, "src/store/postgres/postgres_js.ts"), join(ROOT, "node_modules/postgres")]));
  });

  test("SMTP: the mail server (587, or 465 for smtps)", () => {
    expect(flags({ IDP_SMTP_URL: "smtp://mail.example:2525", IDP_MAIL_FROM: "idp@example.com" })["--allow-net"]).toContain("mail.example:2525");
    expect(flags({ IDP_SMTP_URL: "smtps://mail.example", IDP_MAIL_FROM: "idp@example.com" })["--allow-net"]).toContain("mail.example:465");
  });

  test("LDAP: each listener's address, and the certificate and key, nothing around them", () => {
    const granted = flags({ IDP_LDAP_LISTEN: "0.0.0.0:3389", IDP_LDAPS_LISTEN: "[::1]:6636", IDP_LDAP_TLS_CERT: "tls/cert.pem", IDP_LDAP_TLS_KEY: "/etc/idp/key.pem" });
    expect(granted["--allow-net"]).toEqual(["127.0.0.1:3000", "0.0.0.0:3389", "[::1]:6636"]);
    expect(granted["--allow-read"]).toEqual(expect.arrayContaining([join(dir, "tls/cert.pem"), "/etc/idp/key.pem"]));
    expect(granted["--allow-read"]).not.toContain("/etc/idp");
    expect(flags({ IDP_LDAP_LISTEN: "127.0.0.1:0" })["--allow-net"]).toEqual(["127.0.0.1:3000", "127.0.0.1"]);
  });

  test("IDP_DENO_ALLOW_NET adds hosts; * allows every host", () => {
    expect(flags({ IDP_DENO_ALLOW_NET: "login.example.com, 203.0.113.7:443" })["--allow-net"]).toEqual(["127.0.0.1:3000", "login.example.com", "203.0.113.7:443"]);
    const any = flags({ IDP_DENO_ALLOW_NET: "*" });
    expect(any["--allow-net"]).toEqual([]);
    expect(refusal({ IDP_DENO_ALLOW_NET: "https://login.example.com" })).toContain("deno_allow_net.0 (IDP_DENO_ALLOW_NET): each entry must be a host name or address");
  });

  test("the configuration file, the theme and the brand files are read, nothing around them", () => {
    const granted = flags({ IDP_THEME_DIR: "theme", IDP_BRAND_CSS: "/srv/brand/site.css" });
    expect(granted["--allow-read"]).toContain(join(dir, "theme"));
    expect(granted["--allow-read"]).toContain("/srv/brand/site.css");
    expect(granted["--allow-read"]).not.toContain("/srv/brand");
  });

  test("IDP_ARGON2_IMPL=bun (refused at start on Deno) needs no libsodium", () => {
    expect(flags({ IDP_ARGON2_IMPL: "bun" })["--allow-ffi"]).toBeUndefined();
  });
});

describe("what it refuses", () => {
  test("a misspelt IDP_ variable, which the server, granted IDP_* only, could not see", () => {
    expect(refusal({ [THEME_DIRR]: "x" })).toBe(
      `Invalid configuration:\n  ${THEME_DIRR}: not a setting (did you mean IDP_THEME_DIR?); the settings are listed in docs/configuration.md`,
    );
  });

  test("an invalid setting, with the server's words", () => {
    expect(refusal({ PORT: "eighty" })).toContain("port (PORT)");
  });

  test("a path with a space, which the task would split", () => {
    expect(refusal({ DATABASE_URL: `sqlite:${join(dir, "my data", "idp.sqlite")}` })).toStartWith("a path holds a space");
  });

  test("DATABASE_URL is read as the store reads it", () => {
    for (const url of ["sqlite:./data/idp.sqlite", "sqlite:///var/lib/idp/idp.db", "sqlite::memory:", "postgres://u:p@h:5433/db", "postgresql://h/db"]) {
      expect(database_target(url)).toEqual(parse_database_url(url));
    }
  });
});

describe("the step as the tasks run it (Deno)", () => {
  const step = [DENO, "run", "--allow-env", "--allow-read", "--allow-write=.", "--no-prompt", join(ROOT, "scripts/deno/permissions.ts")];
  const base = { PATH: process.env.PATH ?? "", HOME: dir };

  test("prints the flags, one line", async () => {
    const result = await run(step, { ...base, DATABASE_URL: `sqlite:${join(dir, "step", "idp.sqlite")}`, PORT: "4321" }, dir);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("--no-prompt --allow-net=127.0.0.1:4321 --allow-read=");
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
  }, 30_000);

  test("a refused configuration: the reason on stderr, and a program that exits 1 in place of the flags", async () => {
    const result = await run(step, { ...base, [TYPO]: "1" }, dir);
    expect(result.stderr).toContain(`${TYPO}: not a setting`);
    expect(result.stdout.trim()).toBe(`--no-prompt ${REFUSED}`);
    const refused = await run([DENO, "run", "--no-prompt", REFUSED, "main.ts", "serve"], base, dir);
    expect(refused.code).toBe(1);
  }, 30_000);

  test("a missing SQLite folder outside the working directory is not created: it says how to", async () => {
    const outside = join(tmpdir(), `idp-permissions-outside-${process.pid}`);
    const result = await run(step, { ...base, DATABASE_URL: `sqlite:${join(outside, "idp.sqlite")}` }, dir);
    expect(result.stderr).toContain(
      `the SQLite folder ${outside} (DATABASE_URL) does not exist, and this step creates one only inside ${dir}: create it (mkdir -m 700 ${outside})`,
    );
    expect(existsSync(outside)).toBe(false);
  }, 30_000);
});

describe("deno task compile", () => {
  test("embeds the templates, static files, locales, lists and the worker, with the permissions baked in", () => {
    const planned = compile_args({ DATABASE_URL: `sqlite:${join(dir, "data", "idp.sqlite")}` }, dir, "/opt/idp/idp-deno");
    if ("refused" in planned) throw new Error(planned.refused);
    expect(planned.args[0]).toBe("compile");
    for (const path of INCLUDED) expect(planned.args.join(" ")).toContain(`--include ${path}`);
    expect(INCLUDED).toEqual(expect.arrayContaining(["views", "static", "locales", "lists", "src/platform/argon2/worker_thread.ts"]));
    // Its own files from where the executable unpacks them; the data where the configuration says.
    expect(planned.args.find((arg) => arg.startsWith("--allow-read="))).toContain(join(tmpdir(), "deno-compile-idp-deno", "views"));
    expect(planned.args).toContain(`--allow-write=${join(dir, "data")}`);
    expect(planned.args.slice(-3)).toEqual(["--output", "/opt/idp/idp-deno", "main.ts"]);
  });

  test("a failed download of denort is told apart from other failures", () => {
    const offline = `Download https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip
error: Writing deno compile executable to temporary file 'dist/idp-deno.tmp'
Caused by:
    0: Setting up base binary.
    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error (Connect): dns error`;
    expect(denort_download_failed(offline)).toBe(true);
    expect(denort_download_failed("error: TS2322 [ERROR]: Type 'string' is not assignable to type 'number'.")).toBe(false);
  });

  test("on this machine, offline: the task stops with the message and the command to run elsewhere", async () => {
    const result = await run(
      [DENO, "task", "--quiet", "compile", "--output", join(dir, "idp-deno")],
      {
        PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`,
        HOME: process.env.HOME ?? dir,
        DENO_DIR: process.env.DENO_DIR ?? join(process.env.HOME ?? dir, ".cache/deno"),
        DATABASE_URL: "sqlite::memory:",
      },
      ROOT,
    );
    if (result.code === 0) return; // a machine that reached dl.deno.land built it
    expect(result.stderr).toContain("`deno compile` needs denort");
    expect(result.stderr).toContain(`deno compile --no-prompt --allow-net=127.0.0.1:3000`);
    expect(existsSync(join(dir, "idp-deno"))).toBe(false);
  }, 300_000);
});
