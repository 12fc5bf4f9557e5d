/**
 * The entry point through a real process: `bun run main.ts ...` (`deno run … main.ts` on Deno),
 * as an operator runs it.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { idp_command, run } from "../helpers/spawn.ts";
import pkg from "../../package.json" with { type: "json" };
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

function child_env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? box.dir, ...box.env, ...extra };
}

function idp(argv: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  return run([...idp_command(), ...argv], { cwd: box.dir, env: child_env(options.env), ...(options.stdin === undefined ? {} : { input: options.stdin }) });
}

describe("main.ts as a process", () => {
  test("--version", async () => {
    const result = await idp(["--version"]);
    expect(result).toEqual({ code: 0, stdout: `idp ${pkg.version}\n`, stderr: "" });
  });

  test("migrate, then users add with the password on stdin, then list", async () => {
    const migrated = await idp(["migrate", "--json"]);
    expect(migrated.code).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({ version: expect.any(Number) });
    const added = await idp(["users", "add", "alice", "--password-stdin"], { stdin: "correct horse battery\n" });
    expect([added.code, added.stderr]).toEqual([0, ""]);
    expect(added.stdout).toContain("Created user alice");
    const listed = await idp(["users", "list", "--json"]);
    expect(JSON.parse(listed.stdout).map((u: { username: string }) => u.username)).toEqual(["alice"]);
  });

  test("duplicate username exits 1 with the message on stderr", async () => {
    await idp(["users", "add", "bob", "--password-stdin"], { stdin: "correct horse battery" });
    const again = await idp(["users", "add", "bob", "--password-stdin"], { stdin: "correct horse battery" });
    expect(again).toEqual({ code: 1, stdout: "", stderr: 'error: username "bob" is already taken\n' });
  });

  test("invalid configuration exits 1 without a stack trace", async () => {
    const result = await idp(["config", "check"], { env: { IDP_ISSUER: "not a url" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toStartWith("error: Invalid configuration:\n  issuer (IDP_ISSUER)");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test("unknown option exits 2", async () => {
    const result = await idp(["clients", "list", "--everything"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toStartWith("error: unknown option --everything\n");
  });

  test("command names that are Object properties (constructor, toString) are unknown commands, exit 2", async () => {
    for (const argv of [["constructor"], ["toString"], ["users", "constructor"], ["clients", "__proto__"], ["help", "constructor"], ["constructor", "--help"]]) {
      const result = await box.run(argv);
      expect([argv, result.code]).toEqual([argv, 2]);
      expect(result.stderr).toContain("unknown");
    }
    const missing = await box.run(["registration-token"]);
    expect([missing.code, missing.stderr.split("\n")[0]]).toEqual([2, "error: missing registration-token command (create, list, revoke)"]);
  });
});
