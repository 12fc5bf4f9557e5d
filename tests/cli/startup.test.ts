/**
 * Start-up and configuration as a new user meets them (issue 14): a second server on a taken
 * port, the issuer derived from HOST and PORT, the demo client following the issuer, every
 * IDP_ variable and config-file key checked, and `idp` runnable without Bun on the PATH.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { idp_command, spawn, which } from "../helpers/spawn.ts";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { ENV_KEYS, load_config, OTHER_IDP_VARIABLES } from "../../src/app/config.ts";
import { run_cli } from "../../src/cli/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { free_port } from "../helpers/provider.ts";
import { until } from "../helpers/until.ts";
import { base_env, ROOT, spawn_server } from "../ops/process.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

const SHIM = join(ROOT, "bin", "idp.mjs");

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

/** The PATH without any directory that holds a `bun`: a fresh machine after `npm install`. */
function path_without_bun(): string {
  const dirs = (process.env.PATH ?? "/usr/bin:/bin").split(delimiter).filter((dir) => dir !== "" && !existsSync(join(dir, "bun")));
  return dirs.join(delimiter);
}

/** Runs a command to completion; one still running after `ms` is killed (a server that should have refused to start). */
async function run(argv: string[], env: Record<string, string>, cwd = box.dir, ms = 20_000): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = spawn(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), ms);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("two servers on one port", () => {
  test("the second fails at start-up with `host:port is already in use` and exit 1", async () => {
    const env = base_env(box.env.DATABASE_URL!, { IDP_LOG_REQUESTS: "false" });
    const first = await spawn_server(env);
    try {
      const second = await run([...idp_command(), "serve"], { ...env, PORT: String(first.port), IDP_ISSUER: first.url });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`error: 127.0.0.1:${first.port} is already in use`);
      expect(second.stderr).not.toContain("unexpected error");
      // The first one still answers.
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      await first.stop();
    }
  }, 60_000);
});

describe("the default issuer follows HOST and PORT", () => {
  test("http://localhost:<port> for a loopback or wildcard HOST, http://<host>:<port> otherwise", () => {
    expect(load_config({ PORT: "4000" }).issuer).toBe("http://localhost:4000");
    expect(load_config({}).issuer).toBe("http://localhost:3000");
    for (const host of ["127.0.0.1", "::1", "localhost", "0.0.0.0", "::"]) expect(load_config({ HOST: host, PORT: "4001" }).issuer).toBe("http://localhost:4001");
    expect(load_config({ HOST: "192.0.2.7", PORT: "8080" }).issuer).toBe("http://192.0.2.7:8080");
    expect(load_config({ HOST: "2001:db8::1", PORT: "8080" }).issuer).toBe("http://[2001:db8::1]:8080");
    expect(load_config({ HOST: "idp.internal" }).issuer).toBe("http://idp.internal:3000");
    // --port and --host (overrides) count too; an explicit issuer always wins.
    expect(load_config({}, { port: 4100 }).issuer).toBe("http://localhost:4100");
    expect(load_config({ PORT: "4000", IDP_ISSUER: "https://id.example.com" }).issuer).toBe("https://id.example.com");
  });

  test("production: a derived http issuer on a public host is still refused; loopback starts as before", async () => {
    const serve = async (env: Record<string, string>) => {
      const stop = new AbortController();
      stop.abort();
      let stderr = "";
      const code = await run_cli(["serve", "--production"], {
        stdin: "",
        stdout: () => {},
        stderr: (s) => void (stderr += s),
        env: { ...box.env, IDP_LOG_REQUESTS: "false", ...env },
        signal: stop.signal,
      });
      return { code, stderr };
    };
    const public_host = await serve({ HOST: "192.0.2.7", PORT: String(await free_port()) });
    expect(public_host.code).toBe(1);
    expect(public_host.stderr).toContain("production mode needs an https issuer, not http://192.0.2.7:");
    expect((await serve({ PORT: String(await free_port()) })).code).toBe(0);
  }, 30_000);

  test("`PORT=<p> npm start` without IDP_ISSUER serves discovery with the issuer http://localhost:<p>; the demo client follows it on the next start", async () => {
    const demo = sandbox();
    try {
      const start = async () => {
        const port = await free_port();
        const stop = new AbortController();
        let stdout = "";
        const running = run_cli(["serve", "--demo"], {
          stdin: "",
          stdout: (s) => void (stdout += s),
          stderr: () => {},
          env: { ...demo.env, PORT: String(port), IDP_LOG_REQUESTS: "false" },
          signal: stop.signal,
        });
        await until(() => (stdout.includes("OpenID Provider ready") ? true : undefined), 20_000);
        const discovery = (await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).json()) as { issuer: string };
        stop.abort();
        expect(await running).toBe(0);
        return { port, issuer: discovery.issuer, stdout };
      };
      const first = await start();
      expect(first.issuer).toBe(`http://localhost:${first.port}`);
      expect(first.stdout).toContain(`redirect URI http://localhost:${first.port}/demo/callback`);
      const second = await start();
      expect(second.issuer).toBe(`http://localhost:${second.port}`);
      const client = (await demo.run(["clients", "show", "demo", "--json"])).json<{ redirect_uris: string[] }>();
      expect(client.redirect_uris).toEqual([`http://localhost:${second.port}/demo/callback`]);
      expect(second.stdout).toContain(`open http://localhost:${second.port}/demo to sign in`);
    } finally {
      demo.cleanup();
    }
  }, 60_000);
});

describe("every IDP_ variable and config-file key is validated", () => {
  const message = (env: Record<string, string>): string => {
    try {
      load_config(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`accepted: ${JSON.stringify(env)}`);
  };

  test("an unknown IDP_ variable stops the start, naming it and the setting it resembles", () => {
    expect(message({ IDP_LOG_REQUEST: "1" })).toContain("IDP_LOG_REQUEST: not a setting (did you mean IDP_LOG_REQUESTS?)");
    expect(message({ IDP_NONSENSE_THING: "x" })).toContain("IDP_NONSENSE_THING: not a setting");
    // Other environment variables are not ours to judge.
    expect(load_config({ LOG_REQUEST: "1", NODE_OPTIONS: "" }).port).toBe(3000);
  });

  test("the project's own non-setting IDP_ variables are accepted; every ENV_KEYS name is accepted", () => {
    for (const name of OTHER_IDP_VARIABLES) if (name !== "IDP_CONFIG") expect(() => load_config({ [name]: "1" })).not.toThrow();
    for (const name of Object.keys(ENV_KEYS)) expect(() => load_config({ [name]: "" })).not.toThrow();
  });

  test("every IDP_ name the repository uses is a setting (ENV_KEYS) or listed in OTHER_IDP_VARIABLES", () => {
    const used = new Set<string>();
    const skip = new Set(["node_modules", ".git", "test-artifacts", "dist", "data"]);
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (skip.has(entry.name)) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|mjs|js|sh)$|^run$/.test(entry.name) && path !== import.meta.filename) {
          for (const match of readFileSync(path, "utf8").matchAll(/\bIDP_[A-Z0-9_]*[A-Z0-9]\b/g)) used.add(match[0]);
        }
      }
    };
    walk(ROOT);
    const unknown = [...used].filter((name) => !Object.hasOwn(ENV_KEYS, name) && !OTHER_IDP_VARIABLES.includes(name));
    expect(unknown).toEqual([]);
  });

  test("an unparsable switch names the variable and the accepted values; the words are read as documented", () => {
    expect(message({ IDP_LOG_REQUESTS: "nah" })).toContain("(IDP_LOG_REQUESTS): expected one of 1, true, yes, on, 0, false, no, off");
    expect(message({ IDP_RATE_LIMITS: "enabled" })).toContain("rate_limits.enabled (IDP_RATE_LIMITS): expected one of");
    for (const word of ["0", "false", "No", "OFF"]) expect(load_config({ IDP_LOG_REQUESTS: word }).log_requests).toBe(false);
    for (const word of ["1", "true", "Yes", "on"]) expect(load_config({ IDP_LOG_REQUESTS: word }).log_requests).toBe(true);
  });

  test("an unknown config-file key, at the top or nested, stops the start, naming the key and the known ones", () => {
    const file = join(box.dir, "config.json");
    writeFileSync(file, JSON.stringify({ issuer: "https://id.example.com", log_request: true, tokens: { code_tt: 30 } }));
    const text = message({ IDP_CONFIG: file });
    expect(text).toContain("log_request: unknown key in the config file (IDP_CONFIG) (did you mean log_requests?)");
    expect(text).toContain("tokens.code_tt: unknown key in the config file (IDP_CONFIG) (did you mean code_ttl?); known keys here: code_ttl, access_token_ttl");
  });

  test("every object of the schema is strict (a key added by anyone is checked too)", () => {
    for (const [key, schema] of Object.entries(ConfigSchema.shape)) {
      const parsed = schema.safeParse({});
      if (!parsed.success || parsed.data === null || typeof parsed.data !== "object" || Array.isArray(parsed.data)) continue;
      expect([key, ConfigSchema.safeParse({ [key]: { zz_not_a_key: 1 } }).success]).toEqual([key, false]);
    }
  });

  test("a bad HOST names the setting instead of the system's EINVAL", async () => {
    expect(message({ HOST: "999.1.1.1" })).toContain("host (HOST): must be an IP address or a host name");
    expect(message({ HOST: "not a host" })).toContain("host (HOST): must be an IP address or a host name");
    const result = await run([...idp_command(), "serve"], { ...base_env(box.env.DATABASE_URL!), HOST: "999.1.1.1" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("host (HOST): must be an IP address or a host name");
    expect(result.stderr).not.toContain("EINVAL");
  }, 30_000);
});

describe("idp without Bun on the PATH", () => {
  test("bin/idp.mjs runs with node: --help, exit codes forwarded", async () => {
    const env = { ...box.env, PATH: path_without_bun(), HOME: process.env.HOME ?? box.dir };
    expect(which("bun", { PATH: env.PATH })).toBeNull();
    const node = which("node", { PATH: env.PATH });
    if (node === null) throw new Error("node is needed (npm install runs on it)");
    const help = await run([node, SHIM, "--help"], env);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toContain("Usage: idp");
    const usage = await run([node, SHIM, "users", "bogus"], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('unknown users command "bogus"');
  }, 30_000);

  test("`npx idp --version` in the repository works offline", async () => {
    const env = { PATH: path_without_bun(), HOME: process.env.HOME ?? box.dir };
    const result = await run(["npx", "--offline", "idp", "--version"], env, ROOT);
    expect([result.code, result.stdout]).toEqual([0, `idp ${pkg.version}\n`]);
  }, 60_000);

  test("the start hints print `npx idp`, never `bun run main.ts`", async () => {
    const fresh = sandbox();
    try {
      const stop = new AbortController();
      stop.abort();
      let stdout = "";
      const code = await run_cli(["serve", "--port", "0"], {
        stdin: "",
        stdout: (s) => void (stdout += s),
        stderr: () => {},
        env: { ...fresh.env, IDP_LOG_REQUESTS: "false" },
        signal: stop.signal,
      });
      expect(code).toBe(0);
      expect(stdout).toContain("  npx idp users add alice --password-stdin\n");
      expect(stdout).not.toContain("bun run main.ts");
    } finally {
      fresh.cleanup();
    }
  }, 30_000);
});
