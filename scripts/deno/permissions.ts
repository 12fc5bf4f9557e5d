/**
 * The permissions of the provider under Deno, computed from its configuration (the environment
 * and IDP_CONFIG, read as the server reads them): `deno task start`, `deno task idp` and
 * `deno task compile` (deno.json) run
 *
 *   deno run $(deno run --allow-env --allow-read --allow-write=. --no-prompt scripts/deno/permissions.ts) main.ts …
 *
 * and this prints the flags, one word each (README, "Running on Deno", says what each is for):
 *
 * - `--allow-net=`: the listening address (HOST:PORT), the LDAP listeners (IDP_LDAP_LISTEN,
 *   IDP_LDAPS_LISTEN), the PostgreSQL server, the SMTP server, and IDP_DENO_ALLOW_NET (outbound
 *   calls to upstreams and to URLs clients register);
 * - `--allow-read=`: the page templates and static files, the argon2id worker's code (src/platform/
 *   and hash-wasm: a worker thread loads its modules under the read permission), the served vendor files, the SQLite file's folder, IDP_CONFIG, the theme folder and brand files, the LDAP certificate and key;
 * - `--allow-write=`: the SQLite file's folder, nothing else;
 * - `--allow-env=`: IDP_* and the other variables the configuration reads (src/app/config.ts);
 * - `--allow-ffi=`: the system's libsodium, by its path, when it is there (argon2id; without it
 *   hash-wasm);
 * - `--allow-sys=uid`: the process's user id, which the SQLite store compares with its files' owner;
 * - `--no-prompt`: a permission not granted is an error, never a question.
 *
 * This step itself reads the environment (all of it: a misspelt IDP_ variable is refused here,
 * as the server refuses it, since the server cannot list the variables it is not granted) and
 * the configuration file. It writes one thing: the SQLite file's folder when it is missing
 * (0700, as the store creates it), inside the working directory only (`--allow-write=.`; the
 * server, granted that folder alone, could not look at its parent to create it). It runs
 * nothing and has no network. When the configuration is invalid it prints why on stderr and,
 * instead of flags, a program that exits 1, so the task stops there. Paths must not hold spaces
 * (the task splits the output on them).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ConfigError, ENVIRONMENT_NAMES, load_config, type Config } from "../../src/app/config.ts";
import { parse_listen } from "../../src/config/schema.ts";
import { VENDOR_FILES } from "../../src/http/vendor_files.ts";
import { LIBSODIUM_NAMES } from "../../src/platform/argon2/ffi.ts";
import { library_candidates } from "../../src/platform/libraries.ts";

export const ROOT = resolve(import.meta.dirname ?? ".", "..", "..");

/** What the task runs instead of main.ts when the configuration is refused: the reason is already on stderr. */
export const REFUSED = "data:text/javascript,Deno.exit(1)";

/** The variables the `postgres` client reads for its defaults (PGHOST, PGUSER…), when the database is PostgreSQL. */
const POSTGRES_VARIABLES = ["PG*", "USER", "USERNAME"];

/**
 * The database of a DATABASE_URL, as src/store/open.ts `parse_database_url` reads it (which this
 * script cannot import: the store's adapters load with it, and the SQLite one needs Bun today);
 * tests/runtime/permissions.test.ts checks that both agree.
 */
export function database_target(database_url: string): { kind: "sqlite"; path: string } | { kind: "postgres"; url: string } {
  if (database_url.startsWith("sqlite:")) {
    const path = database_url.slice("sqlite:".length);
    return { kind: "sqlite", path: path.startsWith("//") ? path.slice(2) : path };
  }
  return { kind: "postgres", url: database_url };
}

/** `host:port` as --allow-net writes it (an IPv6 address in brackets); the host alone for port 0. */
function net_entry(host: string, port: number | null): string {
  const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return port === null || port === 0 ? name : `${name}:${port}`;
}

/** The host and port of a URL (its default port when it names none). */
function url_entry(url: string, default_port: number): string {
  const parsed = new URL(url);
  return net_entry(parsed.hostname, parsed.port === "" ? default_port : Number(parsed.port));
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * The permission flags for `config`, read from `env` in the folder `cwd`. `root` is where the
 * code, templates and static files are read from: the repository, or for `deno compile` the
 * folder a compiled executable unpacks its files to (`<tmp>/deno-compile-<name>`).
 */
export function permission_flags(config: Config, env: Record<string, string | undefined>, cwd: string, root: string = ROOT): string[] {
  const net = new Set<string>([net_entry(config.host, config.port)]);
  // A worker thread loads its modules under the read permission (the main thread's need none):
  // the argon2id worker's are in src/platform/ and hash-wasm.
  const read = new Set<string>([join(root, "views"), join(root, "static"), join(root, "src", "platform"), join(root, "node_modules", "hash-wasm")]);
  // So are the store's Deno drivers, imported by a specifier Deno cannot see ahead (src/store/*/load_driver.ts).
  read.add(join(root, "src", "store", "sqlite", "node_sqlite.ts"));
  const write = new Set<string>();
  const env_names = new Set(["IDP_*", ...ENVIRONMENT_NAMES.filter((name) => !name.startsWith("IDP_"))]);
  const ffi = new Set<string>();

  for (const path of Object.values(VENDOR_FILES)) read.add(join(root, path));
  const target = database_target(config.database_url);
  if (target.kind === "sqlite" && target.path !== ":memory:") {
    // The folder, not the file: SQLite writes -wal and -shm files beside it, and the folder may not exist yet.
    const folder = dirname(absolute(target.path, cwd));
    read.add(folder);
    write.add(folder);
  }
  if (target.kind === "postgres") {
    net.add(url_entry(target.url, 5432));
    read.add(join(root, "src", "store", "postgres", "postgres_js.ts"));
    read.add(join(root, "node_modules", "postgres"));
    for (const name of POSTGRES_VARIABLES) env_names.add(name);
  }
  if (config.smtp_url !== undefined) net.add(url_entry(config.smtp_url, config.smtp_url.startsWith("smtps:") ? 465 : 587));
  // The LDAP directory's listeners and their certificate (src/app/ldap_listener.ts).
  for (const setting of [config.ldap.listen, config.ldap.ldaps_listen]) {
    const listen = setting === undefined ? null : parse_listen(setting);
    if (listen !== null) net.add(net_entry(listen.host, listen.port));
  }
  for (const path of [config.ldap.tls_cert, config.ldap.tls_key]) if (path !== undefined) read.add(absolute(path, cwd));
  for (const entry of config.deno_allow_net) net.add(entry);
  if (env.IDP_CONFIG) read.add(absolute(env.IDP_CONFIG, cwd));
  for (const path of [config.brand.theme_dir, config.brand.logo, config.brand.favicon, config.brand.css]) if (path !== undefined) read.add(absolute(path, cwd));
  if (config.argon2.impl !== "bun") {
    for (const name of LIBSODIUM_NAMES) {
      const found = library_candidates(name).find((path) => existsSync(path));
      if (found !== undefined) {
        ffi.add(found);
        break;
      }
    }
  }

  const list = (values: Set<string>) => [...values].join(",");
  const flags = ["--no-prompt", net.has("*") ? "--allow-net" : `--allow-net=${list(net)}`, `--allow-read=${list(read)}`, `--allow-env=${list(env_names)}`, "--allow-sys=uid"];
  if (write.size > 0) flags.push(`--allow-write=${list(write)}`);
  if (ffi.size > 0) flags.push(`--allow-ffi=${list(ffi)}`);
  return flags;
}

/** The SQLite file's folder when it does not exist yet, else null. */
export function missing_sqlite_folder(config: Config, cwd: string): string | null {
  const target = database_target(config.database_url);
  if (target.kind !== "sqlite" || target.path === ":memory:") return null;
  const folder = dirname(absolute(target.path, cwd));
  return existsSync(folder) ? null : folder;
}

/** The flags, or why there are none (an invalid configuration, a folder it may not create, a path the task cannot pass). */
export function flags_for(env: Record<string, string | undefined>, cwd: string, root: string = ROOT): { flags: string[] } | { refused: string } {
  let config: Config;
  try {
    config = load_config(env);
  } catch (error) {
    if (error instanceof ConfigError) return { refused: error.message };
    throw error;
  }
  const folder = missing_sqlite_folder(config, cwd);
  if (folder !== null) {
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
    } catch (error) {
      return {
        refused: `the SQLite folder ${folder} (DATABASE_URL) does not exist, and this step creates one only inside ${cwd}: create it (mkdir -m 700 ${folder}). ${(error as Error).message}`,
      };
    }
  }
  const flags = permission_flags(config, env, cwd, root);
  const spaced = flags.find((flag) => /\s/.test(flag));
  if (spaced !== undefined) return { refused: `a path holds a space, which the task cannot pass to Deno: ${spaced}` };
  return { flags };
}

if (import.meta.main) {
  const result = flags_for(process.env, process.cwd());
  if ("refused" in result) {
    process.stderr.write(`error: ${result.refused}\n`);
    process.stdout.write(`--no-prompt ${REFUSED}\n`);
  } else {
    process.stdout.write(`${result.flags.join(" ")}\n`);
  }
}
