/**
 * `idp serve --demo` (what `npm start` runs): on an empty database in development mode the flag
 * reaches the server, which creates the demo user and application, prints how to sign in and
 * serves /demo. In production mode (`--production --demo`) nothing is seeded and a note says so.
 */
import { afterEach, describe, expect, test } from "../helpers/test_api.ts";
import pkg from "../../package.json" with { type: "json" };
import { run_cli } from "../../src/cli/index.ts";
import { until } from "../helpers/until.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let boxes: Sandbox[] = [];
afterEach(() => {
  for (const box of boxes) box.cleanup();
  boxes = [];
});

/** A sandbox with an empty SQLite database. */
function empty(): Sandbox {
  const box = sandbox();
  boxes.push(box);
  return box;
}

async function usernames(box: Sandbox): Promise<string[]> {
  const listed = await box.run(["users", "list", "--json"]);
  expect(listed.code).toBe(0);
  return listed.json<{ username: string }[]>().map((user) => user.username);
}

/** `idp <args>` with the stop signal already given: it starts, prints its hints and stops. */
async function start_and_stop(box: Sandbox, args: string[]): Promise<{ code: number; stdout: string }> {
  const stop = new AbortController();
  stop.abort();
  let stdout = "";
  const code = await run_cli(args, {
    stdin: "",
    stdout: (s) => void (stdout += s),
    stderr: () => {},
    env: { ...box.env, IDP_LOG_REQUESTS: "false" },
    signal: stop.signal,
  });
  return { code, stdout };
}

describe("idp serve --demo", () => {
  test("npm start is `serve --demo`, through the idp bin (Bun need not be on the PATH; exec: npm's signals reach it)", () => {
    expect(pkg.scripts.start).toBe("exec node bin/idp.mjs serve --demo");
    expect(pkg.bin.idp).toBe("bin/idp.mjs");
  });

  test("on an empty database: creates the demo user, prints the password and the /demo URL, serves /demo", async () => {
    const box = empty();
    const stop = new AbortController();
    let stdout = "";
    const running = run_cli(["serve", "--demo", "--port", "0"], {
      stdin: "",
      stdout: (s) => void (stdout += s),
      stderr: () => {},
      env: { ...box.env, IDP_LOG_REQUESTS: "false" },
      signal: stop.signal,
    });
    try {
      const listening = await until(() => /listening on (\S+)\)/.exec(stdout)?.[1]);
      await until(() => (stdout.includes("to sign in to the demo application") ? true : undefined));
      expect(stdout).toContain("Demo data created (empty database, development mode)");
      expect(stdout).toMatch(/user: {3}demo \/ \S+/);
      expect(stdout).toContain("Open http://localhost:3000/demo ");
      const page = await fetch(new URL("/demo", listening), { redirect: "manual" });
      expect(page.status).toBeLessThan(400);
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
    expect(await usernames(box)).toEqual(["demo"]);
  }, 30_000);

  test("without --demo nothing is seeded; the CLI commands to add users and clients are printed", async () => {
    const box = empty();
    const { code, stdout } = await start_and_stop(box, ["serve", "--port", "0"]);
    expect(code).toBe(0);
    expect(stdout).not.toContain("Demo data created");
    expect(stdout).toContain("users add alice --password-stdin");
    expect(await usernames(box)).toEqual([]);
  }, 30_000);

  test("--production --demo seeds nothing and says so", async () => {
    const box = empty();
    const { code, stdout } = await start_and_stop(box, ["serve", "--production", "--demo", "--port", "0"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Production mode: no demo data is created.");
    expect(stdout).not.toContain("Demo data created");
    expect(await usernames(box)).toEqual([]);
  }, 30_000);
});
