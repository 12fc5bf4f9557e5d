/**
 * The PostgreSQL driver interface: the part of a client the adapter uses, so its modules run on
 * Bun.SQL (bun_sql.ts) and on the npm `postgres` package, postgres.js (postgres_js.ts, on Deno)
 * alike; load_driver.ts picks one by runtime (docs/ARCHITECTURE.md, "Storage"). The query
 * function is the tagged template both clients share (Bun.SQL follows postgres.js's API); Bun.SQL
 * meets the contract as it is, so its queries run with nothing in between, and postgres.js is
 * adapted to it.
 *
 * What every driver guarantees, and the modules rely on:
 * - sql`… ${value} …` sends each value as a parameter. Awaited, a query gives its rows (plain
 *   objects) with `count`: the rows returned, or the rows written when none are returned. A query
 *   that is not awaited is a fragment for another (`WITH marked AS (${query}) …`), as
 *   `unsafe(text)` is.
 * - sql(object), sql(objects): the `(columns) VALUES (…)` of an INSERT, or the `column = value`
 *   list of an UPDATE … SET; a field that is `undefined` is left out.
 * - Values: an object or an array is sent as JSON where the server types the parameter jsonb (a
 *   string would be stored as a JSON string); a boolean as a boolean; null and `undefined` as NULL.
 * - Read back: integer columns as numbers; bigint columns and count(*) as strings (codec.ts makes
 *   numbers of them); jsonb parsed; boolean as booleans.
 * - `begin(body)`: body's queries, made through its `tx`, run on one connection in a transaction,
 *   committed when body resolves and rolled back when it throws (its error is thrown again).
 * - `unsafe(text, params)`: `$1`… parameters; without parameters the text may hold several
 *   statements (a migration).
 * Errors are told apart by `error_facts`: connection.ts maps them to the store's errors.
 */

/** A row as the server sent it. */
export type PgRow = Record<string, unknown>;

/** What an awaited query gives. */
export type PgResult<T> = T[] & { readonly count: number };

/** A query: run when awaited, or interpolated into another as a fragment. */
export interface PgQuery<T = PgRow> extends PromiseLike<PgResult<T>> {}

/** The values sql(object) takes: a column's name and value for each key. */
export type PgValues = { [column: PropertyKey]: unknown };

/** What sql(object) gives: only to interpolate into a query. */
export type PgHelper = object;

/** The queries of a pool or of a transaction. */
export interface PgQueries {
  <T = PgRow>(strings: TemplateStringsArray, ...values: unknown[]): PgQuery<T>;
  (values: PgValues | readonly PgValues[]): PgHelper;
  unsafe<T = PgRow>(text: string, params?: unknown[]): PgQuery<T>;
}

/** The queries of the pool, and its transactions. */
export interface PgSql extends PgQueries {
  begin<R>(body: (tx: PgQueries) => Promise<R>): Promise<R>;
}

export type PgPoolOptions = {
  /** Connections at most. */
  max: number;
  /** Seconds to wait for a connection before the query fails. */
  connection_timeout: number;
  /** Seconds an unused connection stays open. */
  idle_timeout: number;
};

export interface PgPool {
  readonly sql: PgSql;
  /** Lets running queries finish for up to `timeout_seconds` (0: none), then closes every connection. */
  close(timeout_seconds: number): Promise<void>;
}

/** What an error of the driver says, in the driver's own words made common. */
export type PgErrorFacts = {
  /** The server's SQLSTATE (`23505`), "" for an error that did not come from the server. */
  sqlstate: string;
  /** The constraint the server named, if any. */
  constraint?: string;
  /**
   * The driver's own connection failures: "dead" for a pooled connection found dead when used
   * (its query never ran, so it is tried again on another), "unavailable" for a server that
   * cannot be reached or let in (refused, timed out, TLS, authentication exchange), else null.
   */
  connection: "dead" | "unavailable" | null;
};

export interface PgDriver {
  /** Bun.SQL or postgres.js, for messages. */
  readonly name: string;
  /** A pool of connections to `url`, connecting on the first query. */
  connect(url: string, options: PgPoolOptions): PgPool;
  error_facts(error: unknown): PgErrorFacts;
}
