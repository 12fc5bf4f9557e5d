import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError } from "../../../src/store/types.ts";
import { code_input, seed_pair, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function resource_server_tests(ctx: SuiteContext): void {
  describe("resource servers", () => {
    test("create, get, list in URI order and delete a resource server; the URI is unique", async () => {
      const store = ctx.store();
      const base = `https://${uid("api").toLowerCase()}.example`;
      const jwt = await store.create_resource_server({ uri: `${base}/b`, scopes: ["read", "write"], access_token_format: "jwt", access_token_ttl: 300, created_at: T0 });
      expect(jwt).toEqual({ uri: `${base}/b`, scopes: ["read", "write"], access_token_format: "jwt", access_token_ttl: 300, created_at: T0, updated_at: T0 });
      const opaque = await store.create_resource_server({ uri: `${base}/a`, scopes: ["read"] });
      expect(opaque).toMatchObject({ access_token_format: "opaque", access_token_ttl: null });
      expect(await store.get_resource_server(`${base}/b`)).toEqual(jwt);
      expect(await store.get_resource_server(`${base}/c`)).toBeNull();
      const listed = (await store.list_resource_servers()).filter((row) => row.uri.startsWith(base));
      expect(listed.map((row) => row.uri)).toEqual([`${base}/a`, `${base}/b`]);
      expect(await rejection(store.create_resource_server({ uri: `${base}/a`, scopes: ["x"] }))).toBeInstanceOf(StoreConflictError);
      expect(await store.delete_resource_server(`${base}/a`)).toBe(true);
      expect(await store.delete_resource_server(`${base}/a`)).toBe(false);
      expect(await store.get_resource_server(`${base}/a`)).toBeNull();
    });

    test("codes and tokens keep their resources and act; absent reads as null", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client, { resources: ["https://a.example", "https://b.example"] }));
      expect((await store.get_code(code.code_hash))?.resources).toEqual(["https://a.example", "https://b.example"]);
      const plain = await store.insert_code(code_input(user, client));
      expect((await store.get_code(plain.code_hash))?.resources).toBeNull();
      const act = { sub: "svc", client_id: "svc-client", act: { sub: "older" } };
      const token = await store.insert_token(token_input(user, client, { resources: ["https://a.example"], act }));
      expect(await store.get_token(token.token_hash)).toMatchObject({ resources: ["https://a.example"], act });
      const bare = await store.insert_token(token_input(user, client));
      expect(await store.get_token(bare.token_hash)).toMatchObject({ resources: null, act: null });
    });
  });
}
