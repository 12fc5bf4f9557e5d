/**
 * The loop of an outbox worker (mail: mail/worker.ts; webhooks: webhooks/worker.ts): each
 * instance runs one per outbox. It runs when woken (something was just queued here) and every
 * `poll_ms` (retries, and what other instances or the CLI queued). An idle pass is one read (the
 * queue's size and next due time); claims (writes) happen only when something is due. Claimed
 * rows are delivered one by one; the store's lease keeps other instances off them meanwhile.
 */
import type { Provider } from "../oidc/provider.ts";
import type { MailQueue } from "../store/types.ts";

export type OutboxLoop = {
  /** Runs soon (something was queued). */
  wake(): void;
  /** Delivers every due row now (or waits for the running pass); resolves to how many were handled. */
  run(): Promise<number>;
  /** No new passes; waits for the running one. */
  stop(): Promise<void>;
};

export type OutboxSource<Row> = {
  /** For the log: "mail", "webhook". */
  name: string;
  poll_ms: number;
  batch: number;
  queue(): Promise<MailQueue>;
  claim(now: number, limit: number): Promise<Row[]>;
  deliver(row: Row): Promise<unknown>;
  /** The queue as last seen idle (the queued gauge). */
  on_idle(queue: MailQueue): void;
};

export function start_outbox_loop<Row>(idp: Pick<Provider, "now" | "log">, source: OutboxSource<Row>): OutboxLoop {
  let running: Promise<number> | null = null;
  let woken = false;
  let again = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(() => void run(), Math.max(0, ms));
    // A pending pass never keeps the process alive on its own.
    timer.unref?.();
  };

  /** Claims and delivers batches until nothing is due. */
  const deliver_due = async (): Promise<number> => {
    let handled = 0;
    for (;;) {
      const claimed = await source.claim(idp.now(), source.batch);
      for (const row of claimed) {
        await source.deliver(row);
        handled++;
      }
      if (claimed.length < source.batch || stopped) return handled;
    }
  };

  /** One pass, then sleeps until the next due row, at most poll_ms. */
  const run = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let handled = 0;
      let next_ms = source.poll_ms;
      try {
        for (;;) {
          again = false;
          const queue = await source.queue();
          if (woken || (queue.next_due !== null && queue.next_due <= idp.now())) {
            woken = false;
            handled += await deliver_due();
            continue;
          }
          source.on_idle(queue);
          if (queue.next_due !== null) next_ms = Math.min(source.poll_ms, (queue.next_due - idp.now()) * 1000);
          if (!again || stopped) break;
        }
      } catch (error) {
        // The database may be away for a while: the next pass tries again.
        idp.log({ level: "error", msg: `${source.name} worker failed`, error: error instanceof Error ? error.message : String(error) });
      } finally {
        running = null;
        schedule(next_ms);
      }
      return handled;
    })();
    return running;
  };

  schedule(0);
  return {
    wake() {
      if (stopped) return;
      woken = true;
      if (running) again = true;
      else schedule(0);
    },
    run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (running) await running;
    },
  };
}
