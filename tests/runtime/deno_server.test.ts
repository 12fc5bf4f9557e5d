/**
 * The provider under Deno as README "Running on Deno" runs it: `deno task start` and
 * `deno task idp …` (deno.json), with the permissions scripts/deno/permissions.ts computes,
 * reached over HTTP. A file outside those permissions (a theme folder they do not name) stops
 * the start with the setting, the path and Deno's reason, not a crash.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { free_port } from "../helpers/provider.ts";
import { run as run_with_input } from "../helpers/spawn.ts";
import { DENO, ROOT, run, start } from "./process.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-deno-server-"));
// The tasks run in the repository (deno.json's folder), where the first step may create a missing data folder.
const in_repository = join(ROOT, "data", `deno-server-test-${process.pid}`);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(in_repository, { recursive: true, force: true });
});
const THEME = join(ROOT, "examples", "theme");

/** The environment of one provider: its own SQLite folder (made here, 0700, as an operator would) and port. */
function environment(name: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  mkdirSync(join(dir, name), { recursive: true, mode: 0o700 });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    DATABASE_URL: `sqlite:${join(dir, name, "idp.sqlite")}`,
    PORT: String(port),
    IDP_ARGON2_MEMORY_KIB: "1024",
    IDP_ARGON2_TIME_COST: "1",
    ...extra,
  };
}

const task = (...args: string[]) => [DENO, "task", "--quiet", "--config", join(ROOT, "deno.json"), ...args];

describe("the provider under Deno", () => {
  test("deno task start: the demo, served; a data folder it creates 0700; SIGTERM stops it, exit 0", async () => {
    const port = await free_port();
    const relative = `./data/deno-server-test-${process.pid}/idp.sqlite`;
    const server = start(task("start"), { ...environment("start", port), DATABASE_URL: `sqlite:${relative}` }, dir);
    try {
      let listening: Record<string, unknown> | undefined;
      for (let line = await server.line(); ; line = await server.line()) {
        if (line.msg === "listening") {
          listening = line;
          break;
        }
      }
      expect(listening).toMatchObject({ url: `http://127.0.0.1:${port}`, database: "sqlite" });
      const discovery = (await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).json()) as { issuer: string };
      expect(discovery.issuer).toBe(`http://localhost:${port}`);
      const demo = await fetch(`http://127.0.0.1:${port}/demo`, { redirect: "manual" });
      expect(demo.status).toBe(302);
      expect(demo.headers.get("location")).toStartWith(`http://localhost:${port}/authorize?`);
      expect(statSync(in_repository).mode & 0o777).toBe(0o700);
      server.proc.kill("SIGTERM");
      expect(await server.proc.exited).toBe(0);
    } finally {
      server.proc.kill("SIGKILL");
    }
  }, 120_000);

  test("deno task idp: the CLI, with standard input", async () => {
    const env = environment("cli", 3998);
    const { stdout, stderr, code } = await run_with_input(task("idp", "users", "add", "alice", "--password-stdin", "--json"), { cwd: dir, env, input: "correct horse battery\n" });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ username: "alice" });
    const listed = await run(task("idp", "users", "list", "--json"), env, dir);
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ username: "alice" })]));
  }, 120_000);

  test("a theme folder the permissions name is served; one they do not name stops the start with the reason", async () => {
    const port = await free_port();
    // Granted: the task computes the permissions with IDP_THEME_DIR set.
    const themed = start(task("idp", "serve"), environment("theme", port, { IDP_THEME_DIR: THEME }), dir);
    try {
      for (let line = await themed.line(); line.msg !== "listening"; line = await themed.line());
      expect((await fetch(`http://127.0.0.1:${port}/static/theme/help.svg`)).status).toBe(200);
    } finally {
      themed.proc.kill("SIGTERM");
      await themed.proc.exited;
    }
    // Not granted: the flags computed without it (as README prints them), the theme set afterwards.
    const flags = await run(
      [DENO, "run", "--allow-env", "--allow-read", "--allow-write=.", "--no-prompt", join(ROOT, "scripts/deno/permissions.ts")],
      environment("theme", port),
      dir,
    );
    expect(flags.code).toBe(0);
    const refused = await run([DENO, "run", ...flags.stdout.trim().split(" "), join(ROOT, "main.ts"), "serve"], environment("theme", port, { IDP_THEME_DIR: THEME }), dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: Invalid configuration:\n  brand.theme_dir (IDP_THEME_DIR): cannot read ${THEME}: Requires read access to "${THEME}", run again with the --allow-read flag\n`,
    );
  }, 120_000);

  test("an LDAP address the permissions name is listened on; one they do not name stops the start with our words, not Deno's crash", async () => {
    const [port, ldap_port] = [await free_port(), await free_port()];
    // Granted: the task computes the permissions with IDP_LDAP_LISTEN set.
    const granted = start(task("idp", "serve"), environment("ldap", port, { IDP_LDAP_LISTEN: `127.0.0.1:${ldap_port}` }), dir);
    try {
      let line = await granted.line();
      while (line.msg !== "ldap listening") line = await granted.line();
      expect(line.plain).toBe(`127.0.0.1:${ldap_port}`);
    } finally {
      granted.proc.kill("SIGTERM");
      await granted.proc.exited;
    }
    // Not granted: the flags computed without it, the address set afterwards.
    const flags = await run(
      [DENO, "run", "--allow-env", "--allow-read", "--allow-write=.", "--no-prompt", join(ROOT, "scripts/deno/permissions.ts")],
      environment("ldap", port),
      dir,
    );
    expect(flags.code).toBe(0);
    const refused = await run(
      [DENO, "run", ...flags.stdout.trim().split(" "), join(ROOT, "main.ts"), "serve"],
      environment("ldap", port, { IDP_LDAP_LISTEN: `127.0.0.1:${ldap_port}` }),
      dir,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: IDP_LDAP_LISTEN: 127.0.0.1:${ldap_port}: the runtime's permissions do not allow listening there (Deno: --allow-net=127.0.0.1:${ldap_port}). The Deno tasks grant the address it names when it is set in the environment or IDP_CONFIG (README, "Running on Deno")\n`,
    );
  }, 120_000);

  test("--port outside the permissions and --workers: refused with what to do instead", async () => {
    const env = environment("refusals", await free_port());
    const port = await run(task("idp", "serve", "--port", String(await free_port())), env, dir);
    expect(port.code).toBe(1);
    expect(port.stderr).toContain("the runtime's permissions do not allow listening there");
    expect(port.stderr).toContain("set those rather than --port and --host");
    const workers = await run(task("idp", "serve", "--workers", "2"), env, dir);
    expect(workers.code).toBe(1);
    expect(workers.stderr).toContain("--workers (IDP_WORKERS) is not available here: Deno shares a port between processes (SO_REUSEPORT) only with --unstable-net");
  }, 120_000);
});
