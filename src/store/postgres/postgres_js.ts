/**
 * The PostgreSQL driver on Deno: postgres.js (the npm `postgres` package), whose API Bun.SQL
 * follows, adapted to the contract of driver.ts where the two differ:
 * - `undefined` throws UNDEFINED_VALUE: sent as NULL (`transform.undefined`), and left out of
 *   sql(object), as Bun.SQL does.
 * - The server's notices are printed (CREATE TABLE IF NOT EXISTS of a migration says "already
 *   exists, skipping"): ignored, as Bun.SQL does.
 * - `end` closes the pool (Bun.SQL: `close`); the options are spelled `connect_timeout`,
 *   `idle_timeout`.
 * - Errors: a server error is a `PostgresError` whose `code` is the SQLSTATE and
 *   `constraint_name` the constraint; its own connection errors have `code` CONNECT_TIMEOUT,
 *   CONNECTION_CLOSED, CONNECTION_DESTROYED, CONNECTION_ENDED, or the socket's (`ECONNREFUSED`…).
 * What needs no adapting: JSON (postgres.js asks the server for each parameter's type before the
 * first run of a statement, and sends an object or array JSON-encoded where it is jsonb), int8 and
 * count(*) read as strings, `count`, query fragments, sql(object) in INSERT and UPDATE … SET.
 */
import postgres from "postgres";
import { error_code } from "../guard.ts";
import type { PgDriver, PgQueries, PgQuery, PgSql, PgValues } from "./driver.ts";

type Client = postgres.Sql | postgres.TransactionSql;

const DEAD_CODE = new Set(["CONNECTION_CLOSED", "ECONNRESET", "EPIPE"]);
const UNAVAILABLE_CODE =
  /^(CONNECT_TIMEOUT|CONNECTION_(CLOSED|DESTROYED|ENDED)|SASL_SIGNATURE_MISMATCH|AUTH_TYPE_NOT_IMPLEMENTED|E(CONN|TIMEDOUT|HOSTUNREACH|NETUNREACH|PIPE|AI_AGAIN|NOTFOUND))/;

function is_template(first: unknown): first is TemplateStringsArray {
  return Array.isArray(first) && Array.isArray((first as { raw?: unknown }).raw);
}

/** The fields of `values` that are not undefined. */
function defined(values: PgValues): PgValues {
  const out: PgValues = {};
  for (const key of Object.keys(values)) if (values[key] !== undefined) out[key] = values[key];
  return out;
}

function queries(client: Client): PgQueries {
  const call = (first: TemplateStringsArray | PgValues | readonly PgValues[], ...rest: unknown[]): unknown => {
    if (is_template(first)) return client(first, ...(rest as postgres.ParameterOrFragment<never>[]));
    return Array.isArray(first) ? client((first as readonly PgValues[]).map(defined) as never) : client(defined(first as PgValues) as never);
  };
  const unsafe = (text: string, params?: unknown[]): PgQuery => client.unsafe(text, params as postgres.ParameterOrJSON<never>[] | undefined) as unknown as PgQuery;
  return Object.assign(call, { unsafe }) as PgQueries;
}

export const POSTGRES_JS: PgDriver = {
  name: "postgres.js",
  connect(url, options) {
    const client = postgres(url, {
      max: options.max,
      connect_timeout: options.connection_timeout,
      idle_timeout: options.idle_timeout,
      onnotice: () => {},
      transform: { undefined: null },
    });
    const sql: PgSql = Object.assign(queries(client), {
      begin: <R>(body: (tx: PgQueries) => Promise<R>): Promise<R> => client.begin((tx) => body(queries(tx))) as Promise<R>,
    });
    return { sql, close: (timeout) => client.end({ timeout }) };
  },
  error_facts(error) {
    if (error instanceof postgres.PostgresError) return { sqlstate: error.code, constraint: error.constraint_name, connection: null };
    const code = error_code(error);
    return { sqlstate: "", connection: DEAD_CODE.has(code) ? "dead" : UNAVAILABLE_CODE.test(code) ? "unavailable" : null };
  },
};
