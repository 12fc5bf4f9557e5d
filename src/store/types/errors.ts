/** Store types: Errors. The rules every adapter keeps are in ../types.ts. */

/** Base class of every error the store raises on purpose. */
export class StoreError extends Error {
  override name = "StoreError";
}

/** The database cannot be reached (refused, timed out, connection lost). Answer 503 and retry later. */
export class StoreUnavailableError extends StoreError {
  override name = "StoreUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A unique or primary key already exists (e.g. a taken username or client_id). */
export class StoreConflictError extends StoreError {
  override name = "StoreConflictError";
  constructor(
    message: string,
    readonly constraint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A row refers to a row that does not exist (e.g. a session for an unknown user). */
export class StoreReferenceError extends StoreError {
  override name = "StoreReferenceError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
