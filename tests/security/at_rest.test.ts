/**
 * Data at rest (issue 27): what the start-up log says when the database files are exposed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load_config } from "../../src/app/config.ts";
import { serve } from "../../src/app/server.ts";
import type { LogLine } from "../../src/oidc/provider.ts";
import { open_store } from "../../src/store/open.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-at-rest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts and stops a server on `store`; the log lines of its start. */
async function start_log(config: ReturnType<typeof load_config>, store: Awaited<ReturnType<typeof open_store>>): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  const served = await serve(config, { store, port: 0, log: (line) => void lines.push(line), out: () => {} });
  await served.stop();
  return lines;
}

describe("start-up log", () => {
  test("a SQLite file readable by group or others is a warning naming the file and the fix", async () => {
    const path = join(dir, "served.db");
    const config = load_config({}, { database_url: `sqlite:${path}`, host: "127.0.0.1", signing_algs: ["RS256"], log_requests: false, argon2: { memory_kib: 1024, time_cost: 1 } });
    const store = await open_store(config.database_url);
    try {
      expect((await start_log(config, store)).filter((line) => line.level === "warn")).toEqual([]);
      chmodSync(path, 0o644);
      const warnings = (await start_log(config, store)).filter((line) => line.level === "warn");
      expect(warnings).toEqual([{ level: "warn", msg: `SQLite file ${path} is readable by group or others (mode 0644); it holds the signing keys and the accounts: chmod 600 ${path}` }]);
    } finally {
      await store.close();
    }
  });
});
