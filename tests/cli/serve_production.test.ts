/**
 * `idp serve` in production mode refuses an http issuer unless it is a loopback address: the
 * session cookies and tokens would otherwise travel in clear text.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { run_cli } from "../../src/cli/index.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

/** Runs `idp serve --port 0` and stops it as soon as it has started. */
async function serve(env: Record<string, string>, argv: string[] = []): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const stop = new AbortController();
  stop.abort();
  const code = await run_cli(["serve", "--port", "0", ...argv], {
    stdin: "",
    stdout: () => {},
    stderr: (s) => void (stderr += s),
    env: { ...box.env, IDP_LOG_REQUESTS: "false", ...env },
    signal: stop.signal,
  });
  return { code, stderr };
}

describe("idp serve --production", () => {
  test("an http issuer on a public host is refused with exit 1 and names IDP_ISSUER", async () => {
    const { code, stderr } = await serve({ IDP_ISSUER: "http://idp.example.com" }, ["--production"]);
    expect(code).toBe(1);
    expect(stderr).toContain("production mode needs an https issuer");
    expect(stderr).toContain("IDP_ISSUER");
  });

  test("NODE_ENV=production counts as production mode", async () => {
    const { code } = await serve({ IDP_ISSUER: "http://10.0.0.5:3000", NODE_ENV: "production" });
    expect(code).toBe(1);
  });

  test("an https issuer starts", async () => {
    expect((await serve({ IDP_ISSUER: "https://idp.example.com" }, ["--production"])).code).toBe(0);
  }, 20_000);

  test("an http loopback issuer starts (trying the binary out locally)", async () => {
    expect((await serve({ IDP_ISSUER: "http://127.0.0.1:3000" }, ["--production"])).code).toBe(0);
    expect((await serve({ IDP_ISSUER: "http://localhost:3000" }, ["--production"])).code).toBe(0);
  }, 20_000);

  test("outside production an http issuer is accepted", async () => {
    expect((await serve({ IDP_ISSUER: "http://idp.example.com" })).code).toBe(0);
  }, 20_000);
});
