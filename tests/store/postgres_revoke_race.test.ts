/**
 * The revoke-then-insert race on PostgreSQL, interleaved for real (migration 022): the winner of a
 * replayed code (or of a reused refresh token) runs its token INSERT before the loser's
 * revocation, but commits after it. The revocation's UPDATE cannot see the uncommitted row (READ
 * COMMITTED), and the INSERT's check ran before the revocation existed, so the row is stored with
 * no revoked_at; the revoked grant recorded in the revocation makes every read (get_token, on any
 * instance) and rotate_refresh_token treat it as revoked. SQLite cannot interleave so (its writes
 * are serialised by one lock, and a later INSERT sees the record: tests/store/suite/revoked_grants.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { code_input, seed_pair, T0, uid } from "./fixtures.ts";
import { create_temp_database, use_postgres, type TempDatabase, pg_connect, type Pg } from "./pg.ts";

if (await use_postgres()) {
  describe("revoke-then-insert race: postgres", () => {
    let db: TempDatabase;
    let store: Store;
    let other: Store;
    let raw: Pg;

    beforeAll(async () => {
      db = await create_temp_database();
      store = await open_store(db.url, { max: 4 });
      other = await open_store(db.url, { max: 4 });
      raw = pg_connect(db.url);
    });
    afterAll(async () => {
      await raw.end({ timeout: 0 });
      await other.close();
      await store.close();
      await db.drop();
    });

    type Row = { token_hash: string; kind: string; client_id: string; user_id: string; grant_id: string };

    /**
     * The winner's INSERTs of its tokens, in a transaction that commits after `meanwhile` ran. Its
     * rows are live (revoked_at NULL): the grant is not revoked yet when they are inserted, which is
     * also what the adapter's check at insert finds then.
     */
    async function insert_committing_after(rows: Row[], meanwhile: () => Promise<void>): Promise<void> {
      await raw.begin(async (tx) => {
        for (const row of rows) {
          await tx`
            INSERT INTO tokens (token_hash, kind, client_id, user_id, scope, grant_id, family_id, amr, created_at, expires_at, revoked_at)
            VALUES (${row.token_hash}, ${row.kind}, ${row.client_id}, ${row.user_id}, 'openid offline_access', ${row.grant_id}, ${row.grant_id}, '[]'::jsonb, ${T0 + 1}, ${T0 + 3600}, NULL)`;
        }
        await meanwhile();
      });
    }

    test("a replayed code: the winner's tokens, inserted before the revocation but committed after it, are not active", async () => {
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client));
      expect((await store.consume_code(code.code_hash, T0 + 1)).status).toBe("ok");
      const [access, refresh] = [uid("tok"), uid("tok")];
      const common = { client_id: client.client_id, user_id: user.id, grant_id: code.grant_id };
      await insert_committing_after(
        [
          { token_hash: access, kind: "access", ...common },
          { token_hash: refresh, kind: "refresh", ...common },
        ],
        async () => {
          expect((await other.consume_code(code.code_hash, T0 + 2)).status).toBe("reused");
          // The winner's rows are not committed: the revocation's UPDATE finds none.
          expect(await other.revoke_by_grant(code.grant_id, T0 + 2)).toBe(0);
        },
      );
      const rows: { revoked_at: string | null }[] = await raw`SELECT revoked_at FROM tokens WHERE token_hash IN (${access}, ${refresh})`;
      expect(rows.map((row) => row.revoked_at)).toEqual([null, null]);
      for (const instance of [store, other]) {
        expect((await instance.get_token(access))!.revoked_at).toBe(T0 + 2);
        expect((await instance.get_token(refresh))!.revoked_at).toBe(T0 + 2);
      }
      expect((await store.rotate_refresh_token(refresh, T0 + 3)).status).toBe("revoked");
    });

    test("a reused refresh token: the successor inserted before the family's revocation but committed after it is not active", async () => {
      const { user, client } = await seed_pair(store);
      const family = uid("fam");
      const first = await store.insert_token({
        token_hash: uid("tok"),
        kind: "refresh",
        client_id: client.client_id,
        user_id: user.id,
        scope: "openid offline_access",
        grant_id: family,
        family_id: family,
        expires_at: T0 + 3600,
      });
      expect((await store.rotate_refresh_token(first.token_hash, T0 + 1)).status).toBe("ok");
      const successor = uid("tok");
      await insert_committing_after([{ token_hash: successor, kind: "refresh", client_id: client.client_id, user_id: user.id, grant_id: family }], async () => {
        expect((await other.rotate_refresh_token(first.token_hash, T0 + 2)).status).toBe("reused");
        expect(await other.revoke_family(family, T0 + 2)).toBe(1);
      });
      expect((await other.get_token(successor))!.revoked_at).toBe(T0 + 2);
      expect((await store.rotate_refresh_token(successor, T0 + 3)).status).toBe("revoked");
    });
  });
}
