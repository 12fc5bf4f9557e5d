/**
 * Outbound calls on Deno (README, "Running on Deno"): through the fence to a host --allow-net
 * names they are made; to any other they fail like an unreachable host, logged, never a crash.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { join } from "node:path";
import { serve_fetch } from "../helpers/serve_fetch.ts";
import { DENO, ROOT, run } from "./process.ts";

const server = await serve_fetch(() => Response.json({ keys: [] }));
afterAll(() => server.stop());
const url = `http://127.0.0.1:${server.port}/jwks.json`;
const SCRIPT = join(ROOT, "tests/runtime/deno/outbound.ts");

async function call(allow_net: string): Promise<Record<string, unknown>> {
  const result = await run([DENO, "run", "--no-prompt", `--allow-net=${allow_net}`, SCRIPT, url], { PATH: process.env.PATH, HOME: process.env.HOME });
  if (result.code !== 0) throw new Error(`deno exited ${result.code}:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe("outbound calls under Deno's --allow-net", () => {
  test("to a host it grants: made through the fence", async () => {
    expect(await call(`127.0.0.1:${server.port}`)).toMatchObject({ status: 200, body: '{"keys":[]}', logs: [] });
  }, 30_000);

  test("to a host it does not grant: a failed call, logged as such", async () => {
    const result = await call("127.0.0.1:9");
    expect(result.error).toEqual({ kind: "failed", reason: "no connection (NotCapable)" });
    expect(result.logs).toEqual([
      {
        level: "warn",
        msg: "outbound request failed",
        purpose: "jwks_uri",
        client_id: null,
        host: `127.0.0.1:${server.port}`,
        address: "127.0.0.1",
        reason: "no connection (NotCapable)",
      },
    ]);
  }, 30_000);
});
