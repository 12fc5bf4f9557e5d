/**
 * The shared store suite on SQLite through the node:sqlite driver (src/store/sqlite/node_sqlite.ts,
 * the one Deno uses), run here by Bun, which provides node:sqlite too: the driver's adaptations
 * (null rows, plain objects, booleans, statement cache, transactions, error names) meet the same
 * contract as bun:sqlite. deno_drivers.test.ts runs it on Deno itself.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_sqlite_store } from "../../src/store/sqlite/index.ts";
import { NODE_SQLITE } from "../../src/store/sqlite/node_sqlite.ts";
import { store_suite } from "./suite.ts";

store_suite("sqlite (node:sqlite driver)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-store-node-sqlite-"));
  const path = join(dir, "idp.db");
  return {
    url: `sqlite:${path}`,
    open: (options) => open_sqlite_store(path, options, NODE_SQLITE),
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
