import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError } from "../../../src/store/types.ts";
import { T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

const jwk = (kid: string) => ({
  priv: { kty: "EC", crv: "P-256", kid, x: "x", y: "y", d: "d" },
  pub: { kty: "EC", crv: "P-256", kid, x: "x", y: "y", use: "sig", alg: "ES256" },
});

export function key_tests(ctx: SuiteContext): void {
  describe("signing keys", () => {
    test("insert, list, rotate through next → active → retired, delete; every change bumps keys_version", async () => {
      await ctx.withFresh(async (store) => {
        const v0 = await store.keys_version();
        const a = jwk("a");
        const active = await store.insert_key({ kid: "a", alg: "ES256", private_jwk: a.priv, public_jwk: a.pub, status: "active", created_at: T0 });
        expect(active).toMatchObject({ use: "sig", activated_at: T0, retire_at: null, updated_at: T0 });
        const b = jwk("b");
        const next = await store.insert_key({ kid: "b", alg: "RS256", private_jwk: b.priv, public_jwk: b.pub, status: "next", created_at: T0 + 1 });
        expect(next.activated_at).toBeNull();
        expect(await store.list_keys()).toEqual([active, next]);
        const v1 = await store.keys_version();
        expect(v1).toBeGreaterThan(v0);

        const promoted = await store.update_key_status("b", "active", { now: T0 + 10 });
        expect(promoted).toMatchObject({ status: "active", activated_at: T0 + 10, updated_at: T0 + 10 });
        const retired = await store.update_key_status("a", "retired", { retire_at: T0 + 3600, now: T0 + 10 });
        expect(retired).toMatchObject({ status: "retired", activated_at: T0, retire_at: T0 + 3600 });
        expect(await store.list_keys()).toEqual([retired!, promoted!]);
        const v2 = await store.keys_version();
        expect(v2).toBeGreaterThan(v1);

        expect(await store.update_key_status("missing", "active")).toBeNull();
        expect(await store.delete_key("a")).toBe(true);
        expect(await store.delete_key("a")).toBe(false);
        expect((await store.list_keys()).map((k) => k.kid)).toEqual(["b"]);
        expect(await store.keys_version()).toBeGreaterThan(v2);
      });
    });

    test("another instance sees rotation through keys_version", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const before = await other.keys_version();
      const kid = uid("kid");
      const k = jwk(kid);
      await store.insert_key({ kid, alg: "ES256", private_jwk: k.priv, public_jwk: k.pub, status: "next" });
      expect(await other.keys_version()).toBeGreaterThan(before);
      expect((await other.list_keys()).find((key) => key.kid === kid)?.private_jwk).toEqual(k.priv);
    });

    test("a duplicate kid conflicts", async () => {
      const store = ctx.store();
      const kid = uid("kid");
      const k = jwk(kid);
      await store.insert_key({ kid, alg: "ES256", private_jwk: k.priv, public_jwk: k.pub, status: "next" });
      expect(await rejection(store.insert_key({ kid, alg: "ES256", private_jwk: k.priv, public_jwk: k.pub, status: "next" }))).toBeInstanceOf(StoreConflictError);
    });

    test("replace_private_jwk replaces only what is still expected (one of two instances), and keys_version does not move", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const kid = uid("kid");
      const k = jwk(kid);
      await store.insert_key({ kid, alg: "ES256", private_jwk: k.priv, public_jwk: k.pub, status: "next" });
      const version = await store.keys_version();
      const stored = (await store.list_keys()).find((key) => key.kid === kid)!.private_jwk;
      const [a, b] = await Promise.all([store.replace_private_jwk(kid, stored, { sealed: "one" }), other.replace_private_jwk(kid, stored, { sealed: "two" })]);
      expect([a, b].sort()).toEqual([false, true]);
      const now = (await other.list_keys()).find((key) => key.kid === kid)!;
      expect(now.private_jwk).toEqual(a ? { sealed: "one" } : { sealed: "two" });
      expect(now.public_jwk).toEqual(k.pub);
      expect(await store.replace_private_jwk(kid, k.priv, { sealed: "three" })).toBe(false);
      expect(await store.replace_private_jwk(uid("missing"), k.priv, { sealed: "three" })).toBe(false);
      expect(await store.keys_version()).toBe(version);
    });
  });

  describe("initial access tokens", () => {
    test("create, find, list and delete", async () => {
      await ctx.withFresh(async (store) => {
        const forever = await store.create_initial_access_token({ token_hash: "iat1", expires_at: null, created_at: T0 });
        const limited = await store.create_initial_access_token({ token_hash: "iat2", expires_at: T0 + 60, created_at: T0 + 1 });
        expect(await store.find_initial_access_token("iat1")).toEqual(forever);
        expect(await store.find_initial_access_token("nope")).toBeNull();
        expect(await store.list_initial_access_tokens()).toEqual([forever, limited]);
        expect(await rejection(store.create_initial_access_token({ token_hash: "iat1", expires_at: null }))).toBeInstanceOf(StoreConflictError);
        expect(await store.delete_initial_access_token("iat1")).toBe(true);
        expect(await store.delete_initial_access_token("iat1")).toBe(false);
        expect(await store.list_initial_access_tokens()).toEqual([limited]);
      });
    });

    test("a token has a public id and no use limit unless given", async () => {
      const store = ctx.store();
      const a = await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: null });
      const b = await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: null, uses_left: 3 });
      expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(a.id).not.toBe(b.id);
      expect([a.uses_left, b.uses_left]).toEqual([null, 3]);
      expect(await store.find_initial_access_token(b.token_hash)).toEqual(b);
    });

    test("use_initial_access_token takes one use of a live token; none of an expired, used-up or unknown one", async () => {
      const store = ctx.store();
      const limited = await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: T0 + 60, uses_left: 2, created_at: T0 });
      expect(await store.use_initial_access_token(limited.token_hash, T0 + 1)).toEqual({ ...limited, uses_left: 1 });
      // RFC 7591 §3 expiry: at expires_at the token is dead, and the failed call takes nothing.
      expect(await store.use_initial_access_token(limited.token_hash, T0 + 60)).toBeNull();
      expect((await store.find_initial_access_token(limited.token_hash))?.uses_left).toBe(1);
      expect(await store.use_initial_access_token(limited.token_hash, T0 + 2)).toEqual({ ...limited, uses_left: 0 });
      expect(await store.use_initial_access_token(limited.token_hash, T0 + 3)).toBeNull();
      expect((await store.find_initial_access_token(limited.token_hash))?.uses_left).toBe(0);

      const unlimited = await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: null, created_at: T0 });
      for (let i = 0; i < 3; i++) expect(await store.use_initial_access_token(unlimited.token_hash, T0 + 10 ** 9)).toEqual(unlimited);
      expect(await store.use_initial_access_token(uid("nope"), T0)).toBeNull();
    });

    test("concurrent uses of the last use, from two instances: exactly one gets it", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      for (let round = 0; round < 5; round++) {
        const row = await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: null, uses_left: 1 });
        const results = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? store : other).use_initial_access_token(row.token_hash, T0)));
        expect(results.filter((result) => result !== null)).toEqual([{ ...row, uses_left: 0 }]);
      }
      const three = await store.create_initial_access_token({ token_hash: uid("iat"), expires_at: null, uses_left: 3 });
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? store : other).use_initial_access_token(three.token_hash, T0)));
      expect(
        results
          .filter((result) => result !== null)
          .map((result) => result!.uses_left)
          .sort(),
      ).toEqual([0, 1, 2]);
      expect((await store.find_initial_access_token(three.token_hash))?.uses_left).toBe(0);
    });
  });
}
