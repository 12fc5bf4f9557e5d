import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, type Store } from "../../../src/store/types.ts";
import { concurrently, T0, uid } from "../fixtures.ts";
import { rejection } from "../../helpers/settle.ts";
import type { SuiteContext } from "../suite.ts";

const DAY = 24 * 3600;
const LEASE = { lease_seconds: 300 };

async function subscription(store: Store) {
  return store.add_webhook({ id: uid("wh"), url: "https://hooks.example/in", events: ["user.*", "security.code_reuse"], secret_sealed: "v1.iv.body", created_at: T0 });
}

async function delivery(store: Store, webhook_id: string, overrides: { next_attempt_at?: number; created_at?: number } = {}) {
  const [row] = await store.enqueue_webhook_deliveries([
    { id: uid("msg"), webhook_id, event_type: "user.created", payload: '{"type":"user.created"}', give_up_at: T0 + DAY, created_at: T0, ...overrides },
  ]);
  return row!;
}

export function webhook_tests(ctx: SuiteContext): void {
  describe("webhooks", () => {
    test("a subscription is stored with its events, listed, and a second one with its id is refused", async () => {
      const store = ctx.store();
      const webhook = await subscription(store);
      expect(await store.get_webhook(webhook.id)).toEqual({ ...webhook, description: null });
      expect((await store.list_webhooks()).find((w) => w.id === webhook.id)?.events).toEqual(["user.*", "security.code_reuse"]);
      expect(await rejection(store.add_webhook({ id: webhook.id, url: "https://x.example", events: ["*"], secret_sealed: "s" }))).toBeInstanceOf(StoreConflictError);
    });

    test("deliveries share the outbox's claim: once, attempts counted, fenced outcome, retry of a failed one", async () => {
      const store = ctx.store();
      const webhook = await subscription(store);
      const queued = await delivery(store, webhook.id);
      expect(queued).toMatchObject({ status: "queued", attempts: 0, next_attempt_at: T0, locked_until: null });
      const [claimed] = await store.claim_webhook_deliveries(T0, { ...LEASE, id: queued.id });
      expect(claimed).toMatchObject({ id: queued.id, status: "sending", attempts: 1, locked_until: T0 + 300, payload: '{"type":"user.created"}' });
      expect(await store.claim_webhook_deliveries(T0 + 1, { ...LEASE, id: queued.id })).toEqual([]);

      expect(await store.mark_webhook_delivery_failed(queued.id, 1, { error: "answered 503", retry_at: T0 + 10 })).toBe(true);
      expect(await store.get_webhook_delivery(queued.id)).toMatchObject({ status: "queued", next_attempt_at: T0 + 10, last_error: "answered 503" });
      expect(await store.claim_webhook_deliveries(T0 + 9, { ...LEASE, id: queued.id })).toEqual([]);
      await store.claim_webhook_deliveries(T0 + 10, { ...LEASE, id: queued.id });
      // An outcome with a stale attempt number is not taken.
      expect(await store.mark_webhook_delivery_sent(queued.id, 1, T0 + 11)).toBe(false);
      expect(await store.mark_webhook_delivery_failed(queued.id, 2, { error: "connection refused", retry_at: null })).toBe(true);
      expect(await store.get_webhook_delivery(queued.id)).toMatchObject({ status: "failed", attempts: 2 });

      expect(await store.retry_webhook_delivery(queued.id, T0 + 100, T0 + 100 + DAY)).toBe(true);
      expect(await store.retry_webhook_delivery(queued.id, T0 + 100, T0 + 100 + DAY)).toBe(false);
      expect(await store.get_webhook_delivery(queued.id)).toMatchObject({ status: "queued", attempts: 0, next_attempt_at: T0 + 100, last_error: null });
      await store.claim_webhook_deliveries(T0 + 100, { ...LEASE, id: queued.id });
      expect(await store.mark_webhook_delivery_sent(queued.id, 1, T0 + 101)).toBe(true);
      expect(await store.get_webhook_delivery(queued.id)).toMatchObject({ status: "sent", sent_at: T0 + 101 });
    });

    test("concurrent claims never hand one delivery to two workers", async () => {
      const store = ctx.store();
      const webhook = await subscription(store);
      const ids = new Set<string>();
      for (let i = 0; i < 6; i++) ids.add((await delivery(store, webhook.id)).id);
      const claims = await concurrently(6, () => store.claim_webhook_deliveries(T0 + DAY, { ...LEASE, limit: 50 }));
      const mine = claims
        .flat()
        .filter((row) => ids.has(row.id))
        .map((row) => row.id);
      expect(mine.sort()).toEqual([...ids].sort());
    });

    test("listing filters by webhook and status, newest first; the queue counts what waits", async () => {
      const store = ctx.store();
      const webhook = await subscription(store);
      const first = await delivery(store, webhook.id);
      const second = await delivery(store, webhook.id, { created_at: T0 + 1, next_attempt_at: T0 + 5 });
      const listed = await store.list_webhook_deliveries({ webhook_id: webhook.id });
      expect(listed.map((d) => d.id)).toEqual([second.id, first.id]);
      expect(await store.list_webhook_deliveries({ webhook_id: webhook.id, status: "failed" })).toEqual([]);
      const queue = await store.webhook_queue();
      expect(queue.waiting).toBeGreaterThanOrEqual(2);
      expect(queue.next_due).not.toBeNull();
    });

    test("purge_expired deletes sent deliveries after a week and keeps queued ones", async () => {
      const store = ctx.store();
      const webhook = await subscription(store);
      const sent = await delivery(store, webhook.id);
      const waiting = await delivery(store, webhook.id, { next_attempt_at: T0 + 30 * DAY });
      await store.claim_webhook_deliveries(T0, { ...LEASE, id: sent.id });
      await store.mark_webhook_delivery_sent(sent.id, 1, T0);
      await store.purge_expired(T0 + 6 * DAY);
      expect(await store.get_webhook_delivery(sent.id)).not.toBeNull();
      await store.purge_expired(T0 + 7 * DAY);
      expect(await store.get_webhook_delivery(sent.id)).toBeNull();
      expect(await store.get_webhook_delivery(waiting.id)).not.toBeNull();
    });

    test("removing a subscription removes its deliveries", async () => {
      const store = ctx.store();
      const webhook = await subscription(store);
      const queued = await delivery(store, webhook.id);
      expect(await store.delete_webhook(webhook.id)).toBe(true);
      expect(await store.delete_webhook(webhook.id)).toBe(false);
      expect(await store.get_webhook(webhook.id)).toBeNull();
      expect(await store.get_webhook_delivery(queued.id)).toBeNull();
    });
  });
}
