/**
 * Loads the SQLite driver of the runtime (driver.ts): bun:sqlite on Bun, node:sqlite on Deno,
 * each imported only when chosen, so neither runtime loads the other's module. The node:sqlite
 * driver's specifier is not a literal: Bun's bundler leaves it out of the compiled executable
 * (a literal would put node:sqlite's import at the top of the bundle).
 */
import { RUNTIME } from "../../platform/which.ts";
import type { SqliteDriver } from "./driver.ts";

const NODE_SQLITE_MODULE = "./node_sqlite.ts";

let loaded: Promise<SqliteDriver> | undefined;

export function load_sqlite_driver(): Promise<SqliteDriver> {
  loaded ??=
    RUNTIME === "bun"
      ? import("./bun_sqlite.ts").then((module) => module.BUN_SQLITE)
      : (import(NODE_SQLITE_MODULE) as Promise<typeof import("./node_sqlite.ts")>).then((module) => module.NODE_SQLITE);
  return loaded;
}
