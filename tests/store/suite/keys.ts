import { describe, expect, test } from "bun:test";
import { StoreConflictError } from "../../../src/store/types.ts";
import { T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

const jwk = (kid: string) => ({
  priv: { kty: "EC", crv: "P-256", kid, x: "x", y: "y", d: "d" },
  pub: { kty: "EC", crv: "P-256", kid, x: "x", y: "y", use: "sig", alg: "ES256" },
});

export function keyTests(ctx: SuiteContext): void {
  describe("signing keys", () => {
    test("insert, list, rotate through next → active → retired, delete; every change bumps keysVersion", async () => {
      await ctx.withFresh(async (store) => {
        const v0 = await store.keysVersion();
        const a = jwk("a");
        const active = await store.insertKey({ kid: "a", alg: "ES256", private_jwk: a.priv, public_jwk: a.pub, status: "active", created_at: T0 });
        expect(active).toMatchObject({ use: "sig", activated_at: T0, retire_at: null, updated_at: T0 });
        const b = jwk("b");
        const next = await store.insertKey({ kid: "b", alg: "RS256", private_jwk: b.priv, public_jwk: b.pub, status: "next", created_at: T0 + 1 });
        expect(next.activated_at).toBeNull();
        expect(await store.listKeys()).toEqual([active, next]);
        const v1 = await store.keysVersion();
        expect(v1).toBeGreaterThan(v0);

        const promoted = await store.updateKeyStatus("b", "active", { now: T0 + 10 });
        expect(promoted).toMatchObject({ status: "active", activated_at: T0 + 10, updated_at: T0 + 10 });
        const retired = await store.updateKeyStatus("a", "retired", { retire_at: T0 + 3600, now: T0 + 10 });
        expect(retired).toMatchObject({ status: "retired", activated_at: T0, retire_at: T0 + 3600 });
        expect(await store.listKeys()).toEqual([retired!, promoted!]);
        const v2 = await store.keysVersion();
        expect(v2).toBeGreaterThan(v1);

        expect(await store.updateKeyStatus("missing", "active")).toBeNull();
        expect(await store.deleteKey("a")).toBe(true);
        expect(await store.deleteKey("a")).toBe(false);
        expect((await store.listKeys()).map((k) => k.kid)).toEqual(["b"]);
        expect(await store.keysVersion()).toBeGreaterThan(v2);
      });
    });

    test("another instance sees rotation through keysVersion", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const before = await other.keysVersion();
      const kid = uid("kid");
      const k = jwk(kid);
      await store.insertKey({ kid, alg: "ES256", private_jwk: k.priv, public_jwk: k.pub, status: "next" });
      expect(await other.keysVersion()).toBeGreaterThan(before);
      expect((await other.listKeys()).find((key) => key.kid === kid)?.private_jwk).toEqual(k.priv);
    });

    test("a duplicate kid conflicts", async () => {
      const store = ctx.store();
      const kid = uid("kid");
      const k = jwk(kid);
      await store.insertKey({ kid, alg: "ES256", private_jwk: k.priv, public_jwk: k.pub, status: "next" });
      expect(await rejection(store.insertKey({ kid, alg: "ES256", private_jwk: k.priv, public_jwk: k.pub, status: "next" }))).toBeInstanceOf(StoreConflictError);
    });
  });

  describe("initial access tokens", () => {
    test("create, find, list and delete", async () => {
      await ctx.withFresh(async (store) => {
        const forever = await store.createInitialAccessToken({ token_hash: "iat1", expires_at: null, created_at: T0 });
        const limited = await store.createInitialAccessToken({ token_hash: "iat2", expires_at: T0 + 60, created_at: T0 + 1 });
        expect(await store.findInitialAccessToken("iat1")).toEqual(forever);
        expect(await store.findInitialAccessToken("nope")).toBeNull();
        expect(await store.listInitialAccessTokens()).toEqual([forever, limited]);
        expect(await rejection(store.createInitialAccessToken({ token_hash: "iat1", expires_at: null }))).toBeInstanceOf(StoreConflictError);
        expect(await store.deleteInitialAccessToken("iat1")).toBe(true);
        expect(await store.deleteInitialAccessToken("iat1")).toBe(false);
        expect(await store.listInitialAccessTokens()).toEqual([limited]);
      });
    });
  });
}
