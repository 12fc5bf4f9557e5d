import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_store } from "../../src/store/open.ts";
import { store_suite } from "./suite.ts";

store_suite("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-store-"));
  const url = `sqlite:${join(dir, "idp.db")}`;
  return {
    url,
    open: (options) => open_store(url, options),
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
