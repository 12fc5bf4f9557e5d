/**
 * Revoking a grant or a token family as a whole (migration 022) also revokes the tokens inserted
 * after it: the interleavings of a replayed code and of a reused refresh token, where the request
 * that won the single-use step stores its tokens after the loser revoked "all" of them, here on
 * two store instances (two servers). The tokens the winner inserts are stored revoked, read as
 * revoked on either instance, and never rotate. The record is purged once no token of it is left.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { REVOKED_GRANT_KEEP_SECONDS } from "../../../src/store/purge.ts";
import { code_input, seed_pair, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";

export function revoked_grant_tests(ctx: SuiteContext): void {
  describe("revoked grants and families", () => {
    test("a replayed code: (a) consumes it, (b) replays it and revokes its grant, (a) inserts its tokens: they are not active, on either instance", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client));
      const won = await store.consume_code(code.code_hash, T0 + 1);
      expect(won.status).toBe("ok");
      const replay = await other.consume_code(code.code_hash, T0 + 2);
      expect(replay.status).toBe("reused");
      // Nothing is stored yet for the grant: the revocation finds no row to update.
      expect(await other.revoke_by_grant(code.grant_id, T0 + 2)).toBe(0);
      const grant = { grant_id: code.grant_id, family_id: code.grant_id, created_at: T0 + 3 };
      const access = await store.insert_token(token_input(user, client, { kind: "access", ...grant }));
      const refresh = await store.insert_token(token_input(user, client, { kind: "refresh", ...grant }));
      expect([access.revoked_at, refresh.revoked_at]).toEqual([T0 + 2, T0 + 2]);
      for (const instance of [store, other]) {
        expect((await instance.get_token(access.token_hash))!.revoked_at).toBe(T0 + 2);
        expect((await instance.get_token(refresh.token_hash))!.revoked_at).toBe(T0 + 2);
      }
      expect((await store.rotate_refresh_token(refresh.token_hash, T0 + 4)).status).toBe("revoked");
    });

    test("a reused refresh token: (a) rotates it, (b) presents it again and revokes the family, (a) inserts the successors: they are not active, on either instance", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const { user, client } = await seed_pair(store);
      const family = uid("fam");
      const grant = { grant_id: family, family_id: family };
      const first = await store.insert_token(token_input(user, client, { kind: "refresh", ...grant }));
      expect((await store.rotate_refresh_token(first.token_hash, T0 + 1)).status).toBe("ok");
      expect((await other.rotate_refresh_token(first.token_hash, T0 + 2)).status).toBe("reused");
      expect(await other.revoke_family(family, T0 + 2)).toBe(1);
      const successor = await store.insert_token(token_input(user, client, { kind: "refresh", ...grant, created_at: T0 + 3 }));
      const access = await store.insert_token(token_input(user, client, { kind: "access", ...grant, created_at: T0 + 3 }));
      for (const instance of [store, other]) {
        expect((await instance.get_token(successor.token_hash))!.revoked_at).toBe(T0 + 2);
        expect((await instance.get_token(access.token_hash))!.revoked_at).toBe(T0 + 2);
      }
      expect((await store.rotate_refresh_token(successor.token_hash, T0 + 4)).status).toBe("revoked");
    });

    test("a revoked family reaches tokens of it whatever their grant; other grants and client_credentials tokens stay active", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const family = uid("fam");
      await store.revoke_family(family, T0);
      // An exchanged token (RFC 8693) carries its subject's family under the same grant.
      const exchanged = await store.insert_token(token_input(user, client, { grant_id: uid("grant"), family_id: family }));
      expect(exchanged.revoked_at).toBe(T0);
      const unrelated = await store.insert_token(token_input(user, client, { grant_id: uid("grant"), family_id: uid("fam"), kind: "refresh" }));
      const service = await store.insert_token(token_input(null, client, { grant_id: uid("grant"), family_id: null }));
      expect((await store.get_token(unrelated.token_hash))!.revoked_at).toBeNull();
      expect((await store.get_token(service.token_hash))!.revoked_at).toBeNull();
      expect((await store.rotate_refresh_token(unrelated.token_hash, T0 + 1)).status).toBe("ok");
    });

    test("the record of a revoked grant is purged only once no token of it is left and a day has passed", async () => {
      await ctx.withFresh(async (store) => {
        const { user, client } = await seed_pair(store);
        const grant_id = uid("grant");
        await store.revoke_by_grant(grant_id, T0);
        const token = await store.insert_token(token_input(user, client, { grant_id, family_id: grant_id, created_at: T0, expires_at: T0 + 2 * REVOKED_GRANT_KEEP_SECONDS }));
        // A day on, the token is still there: the record stays.
        expect((await store.purge_expired(T0 + REVOKED_GRANT_KEEP_SECONDS)).revoked_grants).toBe(0);
        expect((await store.get_token(token.token_hash))!.revoked_at).toBe(T0);
        // The token expired and is purged in the same run; then the record goes.
        const counts = await store.purge_expired(T0 + 2 * REVOKED_GRANT_KEEP_SECONDS);
        expect([counts.tokens, counts.revoked_grants]).toEqual([1, 1]);
        // A fresh record with no token yet stays for the day a racing insert may need.
        await store.revoke_family(uid("fam"), T0 + 3 * REVOKED_GRANT_KEEP_SECONDS);
        expect((await store.purge_expired(T0 + 3 * REVOKED_GRANT_KEEP_SECONDS + 60)).revoked_grants).toBe(0);
      });
    });
  });
}
