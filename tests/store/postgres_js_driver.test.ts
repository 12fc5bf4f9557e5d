/**
 * The shared store suite on PostgreSQL through the postgres.js driver
 * (src/store/postgres/postgres_js.ts, the one Deno uses), run here by Bun: the driver's
 * adaptations (undefined values, notices, JSON parameters, errors) meet the same contract as
 * Bun.SQL. deno_drivers.test.ts runs it on Deno itself.
 */
import { open_postgres_store } from "../../src/store/postgres/index.ts";
import { POSTGRES_JS } from "../../src/store/postgres/postgres_js.ts";
import { create_temp_database, use_postgres } from "./pg.ts";
import { store_suite } from "./suite.ts";

if (await use_postgres()) {
  store_suite("postgres (postgres.js driver)", async () => {
    const db = await create_temp_database();
    return {
      url: db.url,
      open: (options) => open_postgres_store(db.url, { max: 10, ...options }, POSTGRES_JS),
      drop: () => db.drop(),
    };
  });
}
