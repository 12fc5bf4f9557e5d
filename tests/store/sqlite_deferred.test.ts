/**
 * The shared store suite on SQLite with deferred writes, as the workers of
 * `idp serve --workers N` open their file (src/store/sqlite/group_commit.ts): the same contract.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_store } from "../../src/store/open.ts";
import { store_suite } from "./suite.ts";

store_suite("sqlite (deferred writes)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-store-deferred-"));
  const url = `sqlite:${join(dir, "idp.db")}`;
  return {
    url,
    open: (options) => open_store(url, { ...options, deferred_writes: true }),
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
