import { describe, expect, test } from "../../helpers/test_api.ts";
import { concurrently, seed_client, seed_pair, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";

export function pushed_request_tests(ctx: SuiteContext): void {
  describe("pushed authorization requests (RFC 9126)", () => {
    test("consume_pushed_request returns the params once, only to the client that pushed them, only before expiry", async () => {
      const store = ctx.store();
      const client = await seed_client(store);
      const other = await seed_client(store);
      const hash = uid("par");
      const params = { client_id: client.client_id, response_type: "code", scope: "openid email", claims: '{"userinfo":{"email":null}}' };
      await store.insert_pushed_request({ request_uri_hash: hash, client_id: client.client_id, params, created_at: T0, expires_at: T0 + 60 });
      // Another client's attempt does not burn it.
      expect(await store.consume_pushed_request(hash, other.client_id, T0 + 1)).toBeNull();
      // Expired at expires_at.
      expect(await store.consume_pushed_request(hash, client.client_id, T0 + 60)).toBeNull();
      expect(await store.consume_pushed_request(hash, client.client_id, T0 + 59)).toEqual({
        request_uri_hash: hash,
        client_id: client.client_id,
        params,
        created_at: T0,
        expires_at: T0 + 60,
      });
      expect(await store.consume_pushed_request(hash, client.client_id, T0 + 59)).toBeNull();
    });

    test("of concurrent consumptions from two instances exactly one gets the request", async () => {
      const store = ctx.store();
      const second = await ctx.second();
      const client = await seed_client(store);
      const hash = uid("par");
      await store.insert_pushed_request({ request_uri_hash: hash, client_id: client.client_id, params: { client_id: client.client_id }, expires_at: T0 + 60 });
      const results = await concurrently(8, (i) => (i % 2 === 0 ? store : second).consume_pushed_request(hash, client.client_id, T0));
      expect(results.filter((row) => row !== null)).toHaveLength(1);
    });

    test("pushed requests go with their client", async () => {
      const store = ctx.store();
      const client = await seed_client(store);
      const hash = uid("par");
      await store.insert_pushed_request({ request_uri_hash: hash, client_id: client.client_id, params: {}, expires_at: T0 + 60 });
      await store.delete_client(client.client_id);
      expect(await store.consume_pushed_request(hash, client.client_id, T0)).toBeNull();
    });

    test("tokens keep their DPoP binding (jkt); null for bearer tokens", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const bound = await store.insert_token(token_input(user, client, { jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" }));
      expect(bound.jkt).toBe("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
      expect((await store.get_token(bound.token_hash))!.jkt).toBe("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
      const bearer = await store.insert_token(token_input(user, client));
      expect((await store.get_token(bearer.token_hash))!.jkt).toBeNull();
    });
  });
}
