/**
 * README "Running several instances", Purge: every instance purges expired rows in batches, and
 * on PostgreSQL a batch takes its rows `FOR UPDATE SKIP LOCKED`, so instances purging together
 * neither wait for each other nor delete a row twice.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { open_store } from "../../src/store/open.ts";
import type { ClientRow, Store, UserRow } from "../../src/store/types.ts";
import { T0, concurrently, seed_pair, token_input } from "./fixtures.ts";
import { create_temp_database, use_postgres, type TempDatabase, pg_connect } from "./pg.ts";

if (await use_postgres()) {
  describe("purge_expired on PostgreSQL with several instances", () => {
    let db: TempDatabase;
    let a: Store;
    let b: Store;
    let pair: { user: UserRow; client: ClientRow };
    const now = T0 + 1000;

    beforeAll(async () => {
      db = await create_temp_database();
      a = await open_store(db.url, { max: 4 });
      b = await open_store(db.url, { max: 4, migrate: false });
      pair = await seed_pair(a);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await db?.drop();
    });

    /** Stores `n` tokens that expired before `now`; returns their hashes. */
    async function expired_tokens(n: number): Promise<string[]> {
      const rows = await concurrently(n, () => a.insert_token(token_input(pair.user, pair.client, { expires_at: now - 1 })));
      return rows.map((row) => row.token_hash);
    }

    test("a purge skips expired rows another transaction holds locked instead of waiting for them", async () => {
      const hashes = await expired_tokens(25);
      const held = hashes[0]!;
      const lock = pg_connect(db.url);
      try {
        const during = await lock.begin(async (tx) => {
          await tx`SELECT token_hash FROM tokens WHERE token_hash = ${held} FOR UPDATE`;
          // Without SKIP LOCKED this call would wait for the transaction, which waits for it.
          return a.purge_expired(now, 10);
        });
        expect(during.tokens).toBe(24);
        expect(await a.get_token(held)).not.toBeNull();
      } finally {
        await lock.end({ timeout: 0 });
      }
      expect((await a.purge_expired(now, 10)).tokens).toBe(1);
      expect(await a.get_token(held)).toBeNull();
    });

    test("two instances purging at once delete every expired row exactly once and keep live ones", async () => {
      const hashes = await expired_tokens(400);
      const live = await a.insert_token(token_input(pair.user, pair.client, { expires_at: now + 60 }));
      const [first, second] = await Promise.all([a.purge_expired(now, 7), b.purge_expired(now, 7)]);
      expect(first!.tokens + second!.tokens).toBe(hashes.length);
      for (const hash of [hashes[0]!, hashes[199]!, hashes[399]!]) expect(await b.get_token(hash)).toBeNull();
      expect(await b.get_token(live.token_hash)).not.toBeNull();
      expect((await b.purge_expired(now)).tokens).toBe(0);
    });
  });
}
