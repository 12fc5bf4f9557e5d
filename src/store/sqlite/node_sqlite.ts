/**
 * The SQLite driver on Deno: node:sqlite's `DatabaseSync`, adapted to the contract of driver.ts
 * (which bun:sqlite meets as it is). What differs, and what this file does about it:
 * - `get` finds no row: undefined, made null.
 * - Rows have a null prototype: copied into plain objects, as bun:sqlite gives them.
 * - Every number is bound as a REAL, where bun:sqlite binds an integer as an INTEGER: then
 *   `(at - $from) / 86400` divides as reals, and a TEXT column would keep "5.0". A safe integer
 *   is bound as a bigint here, which node:sqlite binds as an INTEGER (read back as a number).
 * - A boolean or `undefined` cannot be bound (ERR_INVALID_ARG_TYPE): bound as 1/0 and NULL.
 * - A key the statement does not use throws: `allowUnknownNamedParameters`. Bare keys for
 *   `$name` parameters are node:sqlite's default (`allowBareNamedParameters`).
 * - No statement cache: `query` keeps one per SQL text; closing finalizes them all.
 * - No `transaction()`: the same BEGIN / SAVEPOINT protocol as bun:sqlite's, on cached statements.
 * - Errors have `code` "ERR_SQLITE_ERROR" and the numeric `errcode` (none from `exec`, whose
 *   message is then read): given SQLite's name of the result in `code`, as bun:sqlite does.
 * - A closed database throws "database is not open", and on a second close: the contract's
 *   "Database has closed", and closing twice does nothing.
 * - No `VACUUM INTO` on Deno: it needs ATTACH, which Deno disables without --allow-all ("too
 *   many attached databases - max 0"). `snapshot` uses SQLite's online backup API instead.
 * Integers beyond 2^53 throw a RangeError here (bun:sqlite rounds them); the store keeps none.
 */
import { backup, DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import type { SqliteBinding, SqliteChanges, SqliteDatabase, SqliteDriver, SqliteStatement, SqliteTransaction } from "./driver.ts";

/** SQLite's primary result codes (sqlite3.h), by number. */
const PRIMARY: Record<number, string> = {
  1: "ERROR",
  2: "INTERNAL",
  3: "PERM",
  4: "ABORT",
  5: "BUSY",
  6: "LOCKED",
  7: "NOMEM",
  8: "READONLY",
  9: "INTERRUPT",
  10: "IOERR",
  11: "CORRUPT",
  12: "NOTFOUND",
  13: "FULL",
  14: "CANTOPEN",
  15: "PROTOCOL",
  16: "EMPTY",
  17: "SCHEMA",
  18: "TOOBIG",
  19: "CONSTRAINT",
  20: "MISMATCH",
  21: "MISUSE",
  22: "NOLFS",
  23: "AUTH",
  24: "FORMAT",
  25: "RANGE",
  26: "NOTADB",
  27: "NOTICE",
  28: "WARNING",
};

/** The extended codes of SQLITE_CONSTRAINT, which the store tells apart (connection.ts). */
const CONSTRAINT: Record<number, string> = {
  275: "CHECK",
  531: "COMMITHOOK",
  787: "FOREIGNKEY",
  1043: "FUNCTION",
  1299: "NOTNULL",
  1555: "PRIMARYKEY",
  1811: "TRIGGER",
  2067: "UNIQUE",
  2323: "VTAB",
  2579: "ROWID",
  2835: "PINNED",
  3091: "DATATYPE",
};

/** sqlite3_errstr() and constraint messages, for errors that come without a number (`exec`). */
const BY_MESSAGE: [prefix: string, code: string][] = [
  ["database is locked", "SQLITE_BUSY"],
  ["database table is locked", "SQLITE_LOCKED"],
  ["attempt to write a readonly database", "SQLITE_READONLY"],
  ["disk I/O error", "SQLITE_IOERR"],
  ["database or disk is full", "SQLITE_FULL"],
  ["unable to open database file", "SQLITE_CANTOPEN"],
  ["UNIQUE constraint failed", "SQLITE_CONSTRAINT_UNIQUE"],
  ["FOREIGN KEY constraint failed", "SQLITE_CONSTRAINT_FOREIGNKEY"],
  ["NOT NULL constraint failed", "SQLITE_CONSTRAINT_NOTNULL"],
  ["CHECK constraint failed", "SQLITE_CONSTRAINT_CHECK"],
];

/** SQLite's name of the result an error of node:sqlite reports. */
export function sqlite_code_name(error: { errcode?: unknown; message: string }): string {
  if (typeof error.errcode === "number") {
    const primary = PRIMARY[error.errcode & 0xff] ?? "ERROR";
    const extended = primary === "CONSTRAINT" ? CONSTRAINT[error.errcode] : undefined;
    return extended === undefined ? `SQLITE_${primary}` : `SQLITE_CONSTRAINT_${extended}`;
  }
  return BY_MESSAGE.find(([prefix]) => error.message.startsWith(prefix))?.[1] ?? "SQLITE_ERROR";
}

/** The error of the contract for one of node:sqlite's; any other error as it is. */
function translated(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code } = error as { code?: unknown };
  if (code === "ERR_INVALID_STATE" && error.message === "database is not open") {
    return Object.assign(new Error("Database has closed", { cause: error }), { code: "ERR_SQLITE_CONNECTION_CLOSED" });
  }
  if (code !== "ERR_SQLITE_ERROR") return error;
  const errcode = (error as { errcode?: unknown }).errcode;
  return Object.assign(new Error(error.message, { cause: error }), { code: sqlite_code_name(error), errno: errcode });
}

function value(v: unknown): SQLInputValue {
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1n : 0n;
  return v as SQLInputValue;
}

/** The bindings of one call, as node:sqlite takes them (no booleans, no undefined). */
function bindings(params: SqliteBinding[]): SQLInputValue[] | [Record<string, SQLInputValue>] {
  const first = params[0];
  if (params.length === 1 && typeof first === "object" && first !== null && !(first instanceof Uint8Array)) {
    const named: Record<string, SQLInputValue> = {};
    for (const key in first) named[key] = value((first as Record<string, unknown>)[key]);
    return [named];
  }
  return params.map(value);
}

function plain(row: unknown): unknown {
  return row === undefined ? null : { ...(row as object) };
}

class NodeStatement implements SqliteStatement {
  constructor(private readonly statement: StatementSync) {}

  get(...params: SqliteBinding[]): unknown {
    try {
      return plain(this.statement.get(...(bindings(params) as SQLInputValue[])));
    } catch (error) {
      throw translated(error);
    }
  }

  all(...params: SqliteBinding[]): unknown[] {
    try {
      return this.statement.all(...(bindings(params) as SQLInputValue[])).map(plain);
    } catch (error) {
      throw translated(error);
    }
  }

  run(...params: SqliteBinding[]): SqliteChanges {
    try {
      const { changes, lastInsertRowid } = this.statement.run(...(bindings(params) as SQLInputValue[]));
      return { changes: Number(changes), lastInsertRowid };
    } catch (error) {
      throw translated(error);
    }
  }
}

/** The statements of the transaction protocol, prepared on first use. */
type Protocol = Record<"begin" | "begin_immediate" | "commit" | "rollback" | "savepoint" | "release" | "rollback_to", SqliteStatement>;

class NodeDatabase implements SqliteDatabase {
  private readonly cache = new Map<string, SqliteStatement>();
  private protocol: Protocol | null = null;
  private closed = false;

  constructor(readonly db: DatabaseSync) {}

  prepare(sql: string): SqliteStatement {
    if (this.closed) throw translated(Object.assign(new Error("database is not open"), { code: "ERR_INVALID_STATE" }));
    try {
      return new NodeStatement(this.db.prepare(sql));
    } catch (error) {
      throw translated(error);
    }
  }

  query(sql: string): SqliteStatement {
    let statement = this.cache.get(sql);
    if (statement === undefined) {
      statement = this.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }

  exec(sql: string): void {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw translated(error);
    }
  }

  get inTransaction(): boolean {
    return this.db.isOpen && this.db.isTransaction;
  }

  /** As bun:sqlite (and better-sqlite3) do it: a savepoint inside an open transaction, else BEGIN. */
  transaction<A extends unknown[], R>(body: (...args: A) => R): SqliteTransaction<A, R> {
    const run = (immediate: boolean, args: A): R => {
      const p = this.statements();
      const nested = this.inTransaction;
      const [before, after, undo] = nested ? [p.savepoint, p.release, p.rollback_to] : [immediate ? p.begin_immediate : p.begin, p.commit, p.rollback];
      before.run();
      try {
        const result = body(...args);
        after.run();
        return result;
      } catch (error) {
        if (this.inTransaction) {
          undo.run();
          if (nested) after.run();
        }
        throw error;
      }
    };
    return Object.assign((...args: A) => run(false, args), { immediate: (...args: A) => run(true, args) });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.protocol = null;
    this.db.close();
  }

  private statements(): Protocol {
    this.protocol ??= {
      begin: this.prepare("BEGIN"),
      begin_immediate: this.prepare("BEGIN IMMEDIATE"),
      commit: this.prepare("COMMIT"),
      rollback: this.prepare("ROLLBACK"),
      savepoint: this.prepare('SAVEPOINT "store transaction"'),
      release: this.prepare('RELEASE "store transaction"'),
      rollback_to: this.prepare('ROLLBACK TO "store transaction"'),
    };
    return this.protocol;
  }
}

export const NODE_SQLITE: SqliteDriver = {
  name: "node:sqlite",
  open(path, options = {}): SqliteDatabase {
    try {
      return new NodeDatabase(new DatabaseSync(path, { readOnly: options.readonly === true, allowUnknownNamedParameters: true }));
    } catch (error) {
      throw translated(error);
    }
  },
  /**
   * SQLite's online backup API in one step (rate -1: every page in one read transaction, so the
   * copy is consistent however the others write). The copy keeps the source's free pages and its
   * WAL mode, which is then switched back to a single file.
   */
  async snapshot(db, out) {
    if (!(db instanceof NodeDatabase)) throw new TypeError("node:sqlite copies only a database it opened");
    try {
      await backup(db.db, out, { rate: -1 });
      const copy = new DatabaseSync(out);
      try {
        copy.exec("PRAGMA journal_mode = DELETE");
      } finally {
        copy.close();
      }
    } catch (error) {
      throw translated(error);
    }
  },
};
