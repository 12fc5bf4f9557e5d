import { describe, expect, test } from "../../helpers/test_api.ts";
import { MAIL_KEEP_SENT_SECONDS } from "../../../src/store/purge.ts";
import type { NewMail, Store } from "../../../src/store/types.ts";
import { concurrently, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";

const DAY = 24 * 3600;
const LEASE = { lease_seconds: 300 };

function new_mail(overrides: Partial<NewMail> = {}): NewMail {
  return {
    recipient: `${uid("to")}@example.com`,
    template: "test",
    subject: "Hi",
    text: "text body",
    html: "<p>html body</p>",
    give_up_at: T0 + DAY,
    created_at: T0,
    ...overrides,
  };
}

/** Claims exactly the message `id` (the shared database holds other tests' rows). */
async function claim_one(store: Store, id: string, now: number) {
  const [row] = await store.claim_mail(now, { ...LEASE, id });
  return row;
}

export function mail_tests(ctx: SuiteContext): void {
  describe("mail outbox", () => {
    test("enqueue, claim, mark sent: the claim takes the message once and counts the attempt", async () => {
      const store = ctx.store();
      const queued = await store.enqueue_mail(new_mail());
      expect(queued).toMatchObject({ status: "queued", attempts: 0, next_attempt_at: T0, locked_until: null, last_error: null, sent_at: null });
      expect(await store.get_mail(queued.id)).toEqual(queued);

      const claimed = await claim_one(store, queued.id, T0);
      expect(claimed).toMatchObject({ id: queued.id, status: "sending", attempts: 1, locked_until: T0 + 300, text: "text body", html: "<p>html body</p>" });
      expect(await claim_one(store, queued.id, T0 + 1)).toBeUndefined();

      expect(await store.mark_mail_sent(queued.id, 1, T0 + 2)).toBe(true);
      expect(await store.mark_mail_sent(queued.id, 1, T0 + 3)).toBe(false);
      expect(await store.get_mail(queued.id)).toMatchObject({ status: "sent", sent_at: T0 + 2, locked_until: null });
      expect(await claim_one(store, queued.id, T0 + DAY)).toBeUndefined();
    });

    test("a message is due only from next_attempt_at", async () => {
      const store = ctx.store();
      const later = await store.enqueue_mail(new_mail({ next_attempt_at: T0 + 60 }));
      expect(await claim_one(store, later.id, T0 + 59)).toBeUndefined();
      expect((await claim_one(store, later.id, T0 + 60))?.attempts).toBe(1);
    });

    test("a failed attempt schedules a retry or, without one, ends failed; retry_mail queues it again", async () => {
      const store = ctx.store();
      const mail = await store.enqueue_mail(new_mail());
      await claim_one(store, mail.id, T0);
      expect(await store.mark_mail_failed(mail.id, 1, { error: "connect ECONNREFUSED", retry_at: T0 + 30 })).toBe(true);
      expect(await store.get_mail(mail.id)).toMatchObject({ status: "queued", attempts: 1, next_attempt_at: T0 + 30, last_error: "connect ECONNREFUSED", locked_until: null });
      expect(await claim_one(store, mail.id, T0 + 29)).toBeUndefined();

      expect((await claim_one(store, mail.id, T0 + 30))?.attempts).toBe(2);
      // A stale outcome (the first attempt's) no longer holds the claim.
      expect(await store.mark_mail_failed(mail.id, 1, { error: "late", retry_at: null })).toBe(false);
      expect(await store.mark_mail_failed(mail.id, 2, { error: "550 mailbox unavailable", retry_at: null })).toBe(true);
      expect(await store.get_mail(mail.id)).toMatchObject({ status: "failed", attempts: 2, last_error: "550 mailbox unavailable" });
      expect(await claim_one(store, mail.id, T0 + DAY)).toBeUndefined();

      expect(await store.retry_mail(mail.id, T0 + 100, T0 + 100 + DAY)).toBe(true);
      expect(await store.retry_mail(mail.id, T0 + 100, T0 + 100 + DAY)).toBe(false);
      expect(await store.get_mail(mail.id)).toMatchObject({ status: "queued", attempts: 0, next_attempt_at: T0 + 100, give_up_at: T0 + 100 + DAY, last_error: null });
      expect(await store.retry_mail(uid("missing"), T0, T0)).toBe(false);
    });

    test("a claim whose lease lapsed (its worker died) can be taken again", async () => {
      const store = ctx.store();
      const mail = await store.enqueue_mail(new_mail());
      await claim_one(store, mail.id, T0);
      expect(await claim_one(store, mail.id, T0 + 299)).toBeUndefined();
      expect((await claim_one(store, mail.id, T0 + 300))?.attempts).toBe(2);
      expect(await store.mark_mail_sent(mail.id, 1, T0 + 301)).toBe(false);
      expect(await store.mark_mail_sent(mail.id, 2, T0 + 301)).toBe(true);
    });

    test("concurrent claims on two instances never take one message twice", async () => {
      await ctx.withFresh(async (store, target) => {
        const other = await target.open();
        try {
          const ids = new Set<string>();
          for (let i = 0; i < 30; i++) ids.add((await store.enqueue_mail(new_mail())).id);
          const claims = await concurrently(12, (i) => (i % 2 ? other : store).claim_mail(T0, { ...LEASE, limit: 4 }));
          const taken = claims.flat().map((row) => row.id);
          expect(new Set(taken).size).toBe(taken.length);
          expect(taken.length).toBe(30);
          expect(taken.every((id) => ids.has(id))).toBe(true);
        } finally {
          await other.close();
        }
      });
    });

    test("list_mail: newest first, by status, without bodies; count_mail by status; mail_queue: what waits and when it is due", async () => {
      await ctx.withFresh(async (store) => {
        expect(await store.mail_queue()).toEqual({ waiting: 0, next_due: null });
        const a = await store.enqueue_mail(new_mail({ created_at: T0 }));
        const b = await store.enqueue_mail(new_mail({ created_at: T0 + 1 }));
        const c = await store.enqueue_mail(new_mail({ created_at: T0 + 2 }));
        await claim_one(store, a.id, T0 + 5);
        await store.mark_mail_failed(a.id, 1, { error: "no", retry_at: null });
        await claim_one(store, b.id, T0 + 5);
        await store.mark_mail_sent(b.id, 1, T0 + 6);

        const all = await store.list_mail();
        expect(all.map((m) => m.id)).toEqual([c.id, b.id, a.id]);
        for (const row of all) {
          expect(row).not.toHaveProperty("text");
          expect(row).not.toHaveProperty("html");
        }
        expect((await store.list_mail({ status: "failed" })).map((m) => m.id)).toEqual([a.id]);
        expect(await store.list_mail({ limit: 1 })).toHaveLength(1);
        expect(await store.count_mail()).toEqual({ queued: 1, sending: 0, sent: 1, failed: 1 });
        expect(await store.mail_queue()).toEqual({ waiting: 1, next_due: T0 + 2 });
        await claim_one(store, c.id, T0 + 7);
        expect(await store.mail_queue()).toEqual({ waiting: 1, next_due: T0 + 7 + 300 });
        await store.mark_mail_failed(c.id, 1, { error: "busy", retry_at: T0 + 60 });
        expect(await store.mail_queue()).toEqual({ waiting: 1, next_due: T0 + 60 });
      });
    });

    test("purge_expired deletes sent mail after a week and keeps queued mail", async () => {
      await ctx.withFresh(async (store) => {
        const sent = await store.enqueue_mail(new_mail());
        const waiting = await store.enqueue_mail(new_mail());
        await claim_one(store, sent.id, T0);
        await store.mark_mail_sent(sent.id, 1, T0);
        expect((await store.purge_expired(T0 + MAIL_KEEP_SENT_SECONDS - 1)).mail).toBe(0);
        expect((await store.purge_expired(T0 + MAIL_KEEP_SENT_SECONDS)).mail).toBe(1);
        expect(await store.get_mail(sent.id)).toBeNull();
        expect(await store.get_mail(waiting.id)).not.toBeNull();
      });
    });
  });
}
