/**
 * `idp serve`: in-process (stopped through the CliIo signal) and as a real process (SIGTERM).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { idp_command, spawn } from "../helpers/spawn.ts";
import { run_cli } from "../../src/cli/index.ts";
import { until } from "../helpers/until.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

describe("idp serve", () => {
  test("in-process: --port 0 --json prints the URL, serves discovery, stops on abort", async () => {
    const stop = new AbortController();
    let stdout = "";
    let stderr = "";
    const running = run_cli(["serve", "--port", "0", "--json"], {
      stdin: "",
      stdout: (s) => void (stdout += s),
      stderr: (s) => void (stderr += s),
      env: { ...box.env, IDP_LOG_REQUESTS: "false" },
      signal: stop.signal,
    });
    const started = await until(() => (stdout ? (JSON.parse(stdout) as { url: string; issuer: string }) : undefined));
    expect(started.issuer).toBe("http://localhost:3000");
    const discovery = await fetch(new URL("/.well-known/openid-configuration", started.url));
    expect(discovery.status).toBe(200);
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe("http://localhost:3000");
    stop.abort();
    expect(await running).toBe(0);
    expect(stderr).toContain("OpenID Provider ready");
  }, 30_000);

  test("bad --port is a usage error; --production with an invalid config fails with exit 1", async () => {
    const out: string[] = [];
    const io = { stdin: "", stdout: (s: string) => void out.push(s), stderr: (s: string) => void out.push(s), env: box.env };
    expect(await run_cli(["serve", "--port", "99999"], io)).toBe(2);
    expect(await run_cli(["--port", "http"], io)).toBe(2);
    expect(await run_cli(["serve", "--host", "0.0.0.0", "--production"], { ...io, env: { ...box.env, IDP_ACCESS_TOKEN_TTL: "-5" } })).toBe(1);
    expect(out.join("")).toContain("tokens.access_token_ttl (IDP_ACCESS_TOKEN_TTL)");
  });

  test("as a process: starts, answers /healthz, exits 0 on SIGTERM", async () => {
    const proc = spawn([...idp_command(), "serve", "--port", "0", "--json"], {
      cwd: box.dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...box.env, IDP_LOG_REQUESTS: "false" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    let text = "";
    let url: string | undefined;
    while (!url) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      for (const line of text.split("\n")) {
        if (line.startsWith("{") && line.includes('"version"')) url = (JSON.parse(line) as { url: string }).url;
      }
    }
    expect(url).toBeDefined();
    const health = await fetch(new URL("/healthz", url));
    expect(health.status).toBe(200);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 30_000);
});
