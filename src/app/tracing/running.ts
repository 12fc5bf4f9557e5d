/**
 * What a started tracing gives the server (index.ts starts it, otel.ts makes it): its own file
 * so that both can name it without importing each other.
 */
import type { Tracing } from "../../oidc/ops/tracing.ts";
import type { Store } from "../../store/types.ts";

/** The running tracing: installed in the seam, the store wrapped, stopped with the server. */
export type RunningTracing = {
  readonly tracing: Tracing;
  /** The store with a client span around each call made inside a request (wrap.ts). */
  wrap_store(store: Store): Store;
  /** Uninstalls it and sends the spans still queued (waits for the collector, a few seconds at most). */
  stop(): Promise<void>;
};
