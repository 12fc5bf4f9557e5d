/**
 * Group commit: the writes of every request in one event-loop turn share one SQLite transaction.
 *
 * Why: in WAL mode a commit has a fixed price whatever it holds (file locks, WAL frame writes,
 * the WAL index), and before this module it was most of the CPU of a client_credentials token.
 * Under load many requests write in the same turn; one COMMIT for all of them costs about what
 * one costs, so a batched write costs far less CPU than an autocommitted one (bench/RESULTS.md,
 * "Group commit" under "Figures moved from source comments").
 *
 * How: the first write of a turn opens a batch (`BEGIN IMMEDIATE`) and schedules its COMMIT with
 * `setImmediate`. Every call made while the batch is open runs its statements at once, inside it:
 * - a write inside its own SAVEPOINT, so a failing call (a UNIQUE conflict, a missing reference,
 *   an exception of its own) is undone alone by ROLLBACK TO + RELEASE and rejects only its own
 *   promise. The write that opens the batch needs none: ROLLBACK undoes it, and nothing else.
 *   Methods built on `db.transaction(...)` nest: the driver uses a savepoint of its own when
 *   `db.inTransaction` (driver.ts), so they stay atomic.
 * - a read (a SELECT-only method) with no savepoint; it may see rows the batch has not committed.
 * A read with no batch open runs at once on its own, as before, and resolves at once.
 * A batch is committed when the turn ends, when it reaches `max_calls` calls, before `close`,
 * before a lifecycle call that runs alone (`run`), and before another GroupCommit of this process
 * opens one (two connections to one file: the second would otherwise wait for a lock this very
 * thread holds until its busy_timeout).
 *
 * Durability is unchanged: the promise of every call made in a batch (reads too) settles only
 * after its COMMIT returned, so no response is sent for a write that is not committed, nor one
 * built on a row that might still be rolled back. If COMMIT fails the batch is rolled back and
 * every call in it rejects with the mapped error (StoreUnavailableError for BUSY/IOERR/FULL,
 * StoreReferenceError for a deferred foreign key). If SQLite rolls the whole transaction back
 * on its own during a call (FULL, IOERR, NOMEM), every call of the batch rejects likewise.
 *
 * Costs: a call in a batch waits for the end of the turn (its statements already ran); the write
 * lock is held from the first write of a turn to its end. Under load that is nearly all the
 * time, and another process writing the same file (the CLI) waits by polling for the gaps, far
 * longer than a request takes (bench/RESULTS.md, "Group commit and other processes"). Readers
 * never wait, and opening an up-to-date database takes no lock.
 *
 * Benchmarked against autocommit (bench/store, bench/oidc; figures in bench/RESULTS.md, "Group
 * commit" under "Figures moved from source comments"): calls started together cost less CPU
 * each, a call awaited alone (a batch of one: a BEGIN, a COMMIT and one event-loop turn more)
 * costs slightly more, the savepoint around each call is cheap next to a commit, and under load
 * batches stayed well below the cap (DEFAULT_MAX_BATCH).
 */
import { StoreUnavailableError } from "../types.ts";
import type { SqliteDatabase, SqliteStatement } from "./driver.ts";

/** The synchronous form of a store interface: what the SQLite modules implement; GroupCommit makes it async. */
export type Sync<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never };

export type Method = (...args: never[]) => unknown;

/** Commits a batch once it holds this many calls, so one batch never grows without bound. */
export const DEFAULT_MAX_BATCH = 256;

type Call = { value: unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void };
/** A write of a deferred batch: run when the batch is flushed. */
type Pending = { method: (...args: never[]) => unknown; args: unknown[]; resolve: (value: unknown) => void; reject: (error: unknown) => void };
type Batch = { calls: Call[]; pending: Pending[]; timer: ReturnType<typeof setImmediate> };

/** The instance whose batch is open in this thread, if any (at most one: see open_batch). */
let open_owner: GroupCommit | null = null;

export class GroupCommit {
  private batch: Batch | null = null;
  private closed = false;
  private readonly begin: SqliteStatement;
  private readonly commit: SqliteStatement;
  private readonly rollback: SqliteStatement;
  private readonly savepoint: SqliteStatement;
  private readonly release: SqliteStatement;
  private readonly rollback_to: SqliteStatement;
  private readonly on_turn_end = (): void => this.flush();

  /**
   * `deferred`: the writes of a turn are queued and run together when it ends (flush_deferred),
   * between one BEGIN IMMEDIATE and its COMMIT: the write lock is held for their SQL only, not
   * for the rest of the turn (other requests' JavaScript, an ID Token's signature). What it is
   * for: several processes writing one file (`idp serve --workers N`), where a lock held for a
   * whole turn makes the others wait in SQLite's busy handler, which sleeps 1, 2, 5, 10… ms and
   * blocks their event loop meanwhile. Reads then never see uncommitted rows, so they settle at
   * once; a write still settles only after its COMMIT.
   */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly map_error: (error: unknown) => unknown,
    private readonly max_calls = DEFAULT_MAX_BATCH,
    private readonly deferred = false,
  ) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.savepoint = db.prepare("SAVEPOINT group_commit_call");
    this.release = db.prepare("RELEASE group_commit_call");
    this.rollback_to = db.prepare("ROLLBACK TO group_commit_call");
  }

  /** A method that changes rows: runs now inside the open batch (opening one), settles after its COMMIT. */
  write<R>(method: (...args: never[]) => R, args: unknown[]): Promise<R> {
    if (this.closed) return closed_error();
    if (this.deferred) return this.defer(method, args);
    // The call that opens a batch needs no savepoint: if it fails, ROLLBACK undoes it alone.
    const first = this.batch === null;
    const batch = this.batch ?? this.open_batch();
    if (batch instanceof Promise) return batch;
    if (!first) {
      try {
        this.savepoint.run();
      } catch (error) {
        return this.abort(batch, error);
      }
    }
    let value: R;
    try {
      value = (method as (...a: unknown[]) => R)(...args);
    } catch (error) {
      if (first || !this.db.inTransaction) return this.abort(batch, error);
      try {
        this.rollback_to.run();
        this.release.run();
      } catch (undo_error) {
        return this.abort(batch, undo_error);
      }
      return Promise.reject(this.map_error(error));
    }
    if (!first) {
      try {
        this.release.run();
      } catch (error) {
        return this.abort(batch, error);
      }
    }
    return this.enqueue(batch, value);
  }

  /** A SELECT-only method: joins the open batch (it may see its uncommitted rows), or runs alone at once. */
  read<R>(method: (...args: never[]) => R, args: unknown[]): Promise<R> {
    if (this.closed) return closed_error();
    // Deferred: no transaction is open between turns, so a read sees committed rows only.
    const batch = this.deferred ? null : this.batch;
    let value: R;
    try {
      value = (method as (...a: unknown[]) => R)(...args);
    } catch (error) {
      if (batch !== null && !this.db.inTransaction) return this.abort(batch, error);
      return Promise.reject(this.map_error(error));
    }
    return batch === null ? Promise.resolve(value) : this.enqueue(batch, value);
  }

  /** Commits the open batch first, then runs `body` outside any batch (migrations, purges, ping). */
  run<R>(body: () => R): Promise<R> {
    if (this.closed) return closed_error();
    if (this.deferred) this.flush();
    flush_open_batch();
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(this.map_error(error));
    }
  }

  /** Commits the open batch, if any, and settles its calls: resolved if COMMIT succeeded, all rejected if not. */
  flush(): void {
    const batch = this.batch;
    if (batch === null) return;
    this.detach(batch);
    if (this.deferred) {
      this.flush_deferred(batch.pending);
      return;
    }
    try {
      this.commit.run();
    } catch (error) {
      this.rollback_quietly();
      const mapped = this.map_error(error);
      for (const call of batch.calls) call.reject(mapped);
      return;
    }
    for (const call of batch.calls) call.resolve(call.value);
  }

  /** Commits the open batch; every later call rejects with StoreUnavailableError. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
  }

  get is_closed(): boolean {
    return this.closed;
  }

  /** Returns the new batch, or the rejected promise of the call when BEGIN fails (e.g. BUSY past busy_timeout). */
  private open_batch(): Batch | Promise<never> {
    // Another connection of this thread with an open batch holds the write lock it would wait for.
    flush_open_batch();
    try {
      this.begin.run();
    } catch (error) {
      return Promise.reject(this.map_error(error));
    }
    const batch: Batch = { calls: [], pending: [], timer: setImmediate(this.on_turn_end) };
    this.batch = batch;
    open_owner = this;
    return batch;
  }

  private defer<R>(method: (...args: never[]) => R, args: unknown[]): Promise<R> {
    const batch = (this.batch ??= { calls: [], pending: [], timer: setImmediate(this.on_turn_end) });
    const promise = new Promise<R>((resolve, reject) => {
      batch.pending.push({ method, args, resolve: resolve as (value: unknown) => void, reject });
    });
    if (batch.pending.length >= this.max_calls) this.flush();
    return promise;
  }

  /** Runs the queued writes in one transaction, each in its own savepoint, and settles them after COMMIT. */
  private flush_deferred(pending: Pending[]): void {
    // A batch of another store of this thread (not deferred) would hold the lock BEGIN waits for.
    flush_open_batch();
    try {
      this.begin.run();
    } catch (error) {
      const mapped = this.map_error(error);
      for (const call of pending) call.reject(mapped);
      return;
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    for (const call of pending) {
      try {
        this.savepoint.run();
        const value = (call.method as (...a: unknown[]) => unknown)(...call.args);
        this.release.run();
        outcomes.push({ ok: true, value });
      } catch (error) {
        // SQLite rolled the whole transaction back (FULL, IOERR, NOMEM): nothing of it stays.
        if (!this.db.inTransaction) {
          const mapped = this.map_error(error);
          for (const each of pending) each.reject(mapped);
          return;
        }
        try {
          this.rollback_to.run();
          this.release.run();
        } catch (undo_error) {
          this.rollback_quietly();
          const mapped = this.map_error(undo_error);
          for (const each of pending) each.reject(mapped);
          return;
        }
        outcomes.push({ ok: false, error: this.map_error(error) });
      }
    }
    try {
      this.commit.run();
    } catch (error) {
      this.rollback_quietly();
      const mapped = this.map_error(error);
      for (const call of pending) call.reject(mapped);
      return;
    }
    pending.forEach((call, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) call.resolve(outcome.value);
      else call.reject(outcome.error);
    });
  }

  private enqueue<R>(batch: Batch, value: R): Promise<R> {
    const promise = new Promise<R>((resolve, reject) => {
      batch.calls.push({ value, resolve: resolve as (value: unknown) => void, reject });
    });
    if (batch.calls.length >= this.max_calls) this.flush();
    return promise;
  }

  /** The transaction is lost (SQLite rolled it back, or undoing one call failed): every call of the batch rejects. */
  private abort(batch: Batch, error: unknown): Promise<never> {
    this.detach(batch);
    this.rollback_quietly();
    const mapped = this.map_error(error);
    for (const call of batch.calls) call.reject(mapped);
    return Promise.reject(mapped);
  }

  private detach(batch: Batch): void {
    clearImmediate(batch.timer);
    this.batch = null;
    if (open_owner === this) open_owner = null;
  }

  private rollback_quietly(): void {
    if (!this.db.inTransaction) return;
    try {
      this.rollback.run();
    } catch {
      // The connection is unusable; the next BEGIN reports it.
    }
  }
}

/**
 * Commits the batch open in this thread, whichever store holds it: call before writing through
 * another connection to the same file (migrations, purges), which would otherwise wait, blocking
 * this very thread, for a lock the batch holds until its busy_timeout.
 */
export function flush_open_batch(): void {
  open_owner?.flush();
}

function closed_error(): Promise<never> {
  return Promise.reject(new StoreUnavailableError("SQLite store is closed"));
}
