import { describe, expect, test } from "../../helpers/test_api.ts";
import { code_input, seed_pair, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { setTimeout as sleep } from "node:timers/promises";

export function purge_tests(ctx: SuiteContext): void {
  describe("purge_expired", () => {
    test("deletes expired rows of every kind in batches, keeps live ones, and reports counts", async () => {
      await ctx.withFresh(async (store) => {
        const { user, client } = await seed_pair(store);
        const now = T0 + 1000;
        const live = now + 1;
        // Three expired and one live of each kind; batch size 2 makes every table take two batches.
        for (const expires_at of [now - 1, now, T0, live]) {
          await store.insert_code(code_input(user, client, { expires_at: expires_at }));
          await store.insert_token(token_input(user, client, { expires_at: expires_at }));
          await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: [], expires_at: expires_at });
          await store.create_interaction({ id: uid("i"), params: {}, expires_at: expires_at });
          await store.use_jti(client.client_id, uid("jti"), expires_at, T0);
          await store.hit(uid("ctr"), expires_at - T0, T0);
          await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: expires_at });
          await store.create_webauthn_challenge({ challenge_hash: uid("wac"), purpose: "login", binding_hash: uid("b"), user_id: null, expires_at: expires_at });
          await store.create_user_token({ token_hash: uid("ut"), user_id: user.id, purpose: "password_reset", email: null, expires_at: expires_at });
          await store.insert_pushed_request({ request_uri_hash: uid("par"), client_id: client.client_id, params: { client_id: client.client_id }, expires_at: expires_at });
        }
        await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: null });

        const counts = await store.purge_expired(now, 2);
        expect(counts).toEqual({
          codes: 3,
          tokens: 3,
          sessions: 3,
          interactions: 3,
          jtis: 3,
          counters: 3,
          initial_access_tokens: 3,
          user_tokens: 3,
          webauthn_challenges: 3,
          upstream_states: 0,
          pushed_requests: 3,
          device_authorizations: 0,
          mail: 0,
          webhook_deliveries: 0,
          revoked_grants: 0,
        });
        expect(await store.list_sessions_for_user(user.id)).toHaveLength(1);
        expect(await store.list_initial_access_tokens()).toHaveLength(2);
        expect(await store.purge_expired(now)).toEqual({
          codes: 0,
          tokens: 0,
          sessions: 0,
          interactions: 0,
          jtis: 0,
          counters: 0,
          initial_access_tokens: 0,
          user_tokens: 0,
          webauthn_challenges: 0,
          upstream_states: 0,
          pushed_requests: 0,
          device_authorizations: 0,
          mail: 0,
          webhook_deliveries: 0,
          revoked_grants: 0,
        });
        expect((await store.purge_expired(live)).codes).toBe(1);
        expect(await store.get_user_by_id(user.id)).not.toBeNull();
      });
    });

    test("awaits the pause between two batches of a table, and leaves the event loop free between them", async () => {
      await ctx.withFresh(async (store) => {
        const { user, client } = await seed_pair(store);
        for (let i = 0; i < 5; i++) await store.insert_token(token_input(user, client, { expires_at: T0 }));
        const pauses: number[] = [];
        let turns = 0;
        const ticking = setInterval(() => turns++, 0);
        try {
          // Batches of 2: 2 + 2 + 1 tokens, so two pauses for the tokens table and none elsewhere.
          const counts = await store.purge_expired(T0 + 1, 2, async (batch_ms) => {
            pauses.push(batch_ms);
            const before = turns;
            // Another timer runs while the purge waits: nothing holds the event loop.
            while (turns === before) await sleep(1);
          });
          expect(counts.tokens).toBe(5);
        } finally {
          clearInterval(ticking);
        }
        expect(pauses).toHaveLength(2);
        for (const ms of pauses) expect(ms).toBeGreaterThanOrEqual(0);
      });
    });

    test("a purged jti can be used again", async () => {
      await ctx.withFresh(async (store) => {
        expect(await store.use_jti("c", "j", T0 + 10, T0)).toBe(true);
        await store.purge_expired(T0 + 10);
        expect(await store.use_jti("c", "j", T0 + 100, T0 + 10)).toBe(true);
      });
    });
  });
}
