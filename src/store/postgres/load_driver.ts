/**
 * Loads the PostgreSQL driver of the runtime (driver.ts): Bun.SQL on Bun, postgres.js on Deno,
 * each imported only when chosen. The postgres.js driver's specifier is not a literal: Bun's
 * bundler leaves it, and the npm package, out of the compiled executable.
 */
import { RUNTIME } from "../../platform/which.ts";
import type { PgDriver } from "./driver.ts";

const POSTGRES_JS_MODULE = "./postgres_js.ts";

let loaded: Promise<PgDriver> | undefined;

export function load_postgres_driver(): Promise<PgDriver> {
  loaded ??=
    RUNTIME === "bun"
      ? import("./bun_sql.ts").then((module) => module.BUN_SQL)
      : (import(POSTGRES_JS_MODULE) as Promise<typeof import("./postgres_js.ts")>).then((module) => module.POSTGRES_JS);
  return loaded;
}
