/**
 * The PostgreSQL driver on Bun: Bun.SQL itself. Its query function meets the contract of
 * driver.ts as it is, so the adapter's queries are Bun.SQL's own, with nothing in between. Its
 * errors: a server error has `errno` = SQLSTATE and `constraint`; its connection errors are
 * `ERR_POSTGRES_*` codes, or the socket's (`ECONNREFUSED`…).
 */
import { SQL } from "bun";
import { error_code } from "../guard.ts";
import type { PgDriver, PgSql } from "./driver.ts";

const DEAD_CODE = new Set(["ERR_POSTGRES_CONNECTION_CLOSED", "ECONNRESET", "EPIPE"]);
const UNAVAILABLE_CODE =
  /^(ERR_POSTGRES_(CONNECTION|IDLE_TIMEOUT|LIFETIME_TIMEOUT|TLS|AUTHENTICATION|SASL|CHANNEL_BINDING|UNSUPPORTED_AUTHENTICATION)|E(CONN|TIMEDOUT|HOSTUNREACH|NETUNREACH|PIPE|AI_AGAIN|NOTFOUND))/;

export const BUN_SQL: PgDriver = {
  name: "Bun.SQL",
  connect(url, options) {
    const sql = new SQL(url, { max: options.max, connectionTimeout: options.connection_timeout, idleTimeout: options.idle_timeout });
    const queries: PgSql = sql;
    return { sql: queries, close: (timeout) => sql.close({ timeout }) };
  },
  error_facts(error) {
    const code = error_code(error);
    const fields = (typeof error === "object" && error !== null ? error : {}) as { errno?: unknown; constraint?: unknown };
    return {
      sqlstate: typeof fields.errno === "string" ? fields.errno : "",
      constraint: typeof fields.constraint === "string" ? fields.constraint : undefined,
      connection: DEAD_CODE.has(code) ? "dead" : UNAVAILABLE_CODE.test(code) ? "unavailable" : null,
    };
  },
};
