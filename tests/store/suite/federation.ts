import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreReferenceError, type NewUpstream } from "../../../src/store/types.ts";
import { concurrently, seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

/** Where the links of these tests come from (migration 021). */
const SOURCE = { issuer: "https://sso.example.com", subject_claim: "sub" };

const uname = () => `up-${uid("").replaceAll("-", "").slice(-10)}`;

function upstream(name: string): NewUpstream {
  return {
    name,
    kind: "oidc",
    display_name: "Company SSO",
    issuer: "https://sso.example.com",
    authorization_endpoint: null,
    token_endpoint: null,
    userinfo_endpoint: null,
    emails_endpoint: null,
    client_id: "our-client",
    client_secret_enc: "v1.aaa.bbb",
    scopes: ["openid", "email"],
    policy: "jit",
    auto_link: true,
    claim_mapping: { groups: "roles" },
    enabled: true,
    trust_upstream_mfa: false,
    mfa_acr_values: ["urn:example:mfa"],
    token_endpoint_auth_method: "private_key_jwt",
    group_map: { "gitlab-org/ops": "ops" },
    created_at: T0,
  };
}

export function federation_tests(ctx: SuiteContext): void {
  describe("federation", () => {
    test("upstreams: create, read, list, update, unique name, delete with their links", async () => {
      const store = ctx.store();
      const name = uname();
      const row = await store.create_upstream(upstream(name));
      expect(row).toEqual({ ...upstream(name), created_at: T0, updated_at: T0, version: 0 });
      expect(await store.get_upstream(name)).toEqual(row);
      expect((await store.list_upstreams()).some((u) => u.name === name)).toBe(true);
      expect(await rejection(store.create_upstream(upstream(name)))).toBeInstanceOf(StoreConflictError);
      const updated = await store.update_upstream(name, {
        enabled: false,
        display_name: "Renamed",
        trust_upstream_mfa: true,
        mfa_acr_values: ["a", "b"],
        group_map: { staff: "employees" },
        token_endpoint_auth_method: null,
        updated_at: T0 + 5,
      });
      expect(updated).toEqual({
        ...row,
        enabled: false,
        display_name: "Renamed",
        trust_upstream_mfa: true,
        mfa_acr_values: ["a", "b"],
        group_map: { staff: "employees" },
        token_endpoint_auth_method: null,
        updated_at: T0 + 5,
        version: 1,
      });
      expect(await store.get_upstream(name)).toEqual(updated);
      expect(await store.update_upstream(uname(), { enabled: false })).toBeNull();

      const user = await seed_user(store);
      await store.link_identity({ upstream: name, subject: "s-1", user_id: user.id, email: null, ...SOURCE });
      expect(await store.delete_upstream(name)).toBe(true);
      expect(await store.get_upstream(name)).toBeNull();
      expect(await store.get_identity(name, "s-1")).toBeNull();
      expect(await store.delete_upstream(name)).toBe(false);
    });

    test("if_version (migration 020): a compare-and-set update or delete writes only at the version read; of concurrent ones from two instances exactly one wins; a refused delete keeps the links", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const name = uname();
      await store.create_upstream(upstream(name));
      const results = await concurrently(10, (i) => (i % 2 ? other : store).update_upstream(name, { display_name: `Writer ${i}` }, { if_version: 0 }));
      const won = results.filter((r) => r !== null);
      expect(won).toHaveLength(1);
      expect(won[0]!.version).toBe(1);
      expect(await store.get_upstream(name)).toEqual(won[0]!);
      const user = await seed_user(store);
      await store.link_identity({ upstream: name, subject: "s-1", user_id: user.id, email: null, ...SOURCE });
      expect(await store.delete_upstream(name, { if_version: 0 })).toBe(false);
      expect(await store.get_upstream(name)).not.toBeNull();
      expect(await store.get_identity(name, "s-1")).not.toBeNull();
      expect(await store.delete_upstream(name, { if_version: 1 })).toBe(true);
      expect(await store.get_identity(name, "s-1")).toBeNull();
    });

    test("identities: one user per upstream account; list, touch, unlink; deleted with the user", async () => {
      const store = ctx.store();
      const name = uname();
      const [user, other] = [await seed_user(store), await seed_user(store)];
      const linked = await store.link_identity({ upstream: name, subject: "sub-1", user_id: user.id, email: "a@example.com", created_at: T0, ...SOURCE });
      expect(linked).toEqual({ upstream: name, subject: "sub-1", user_id: user.id, email: "a@example.com", created_at: T0, last_used_at: null, ...SOURCE });
      expect(await rejection(store.link_identity({ upstream: name, subject: "sub-1", user_id: other.id, email: null, ...SOURCE }))).toBeInstanceOf(StoreConflictError);
      expect(await rejection(store.link_identity({ upstream: name, subject: "sub-x", user_id: uid("nobody"), email: null, ...SOURCE }))).toBeInstanceOf(StoreReferenceError);
      await store.link_identity({ upstream: name, subject: "sub-2", user_id: user.id, email: null, created_at: T0 + 1, ...SOURCE });
      expect((await store.list_identities_for_user(user.id)).map((i) => i.subject)).toEqual(["sub-1", "sub-2"]);
      await store.touch_identity(name, "sub-1", T0 + 9);
      expect((await store.get_identity(name, "sub-1"))?.last_used_at).toBe(T0 + 9);
      expect(await store.unlink_identity(other.id, name, "sub-1")).toBe(false);
      expect(await store.unlink_identity(user.id, name, "sub-1")).toBe(true);
      expect(await store.get_identity(name, "sub-1")).toBeNull();
      await store.delete_user(user.id);
      expect(await store.get_identity(name, "sub-2")).toBeNull();
    });

    test("links record their source (migration 021); count_stale_identities and delete_stale_identities see only the upstream's links of another issuer or subject claim", async () => {
      const store = ctx.store();
      const [name, neighbour] = [uname(), uname()];
      const user = await seed_user(store);
      const moved = { issuer: "https://new-sso.example.com", subject_claim: "sub" };
      const remapped = { issuer: SOURCE.issuer, subject_claim: "oid" };
      await store.link_identity({ upstream: name, subject: "old-1", user_id: user.id, email: null, ...SOURCE });
      await store.link_identity({ upstream: name, subject: "old-2", user_id: user.id, email: null, ...SOURCE });
      await store.link_identity({ upstream: name, subject: "new-1", user_id: user.id, email: null, ...moved });
      await store.link_identity({ upstream: neighbour, subject: "old-1", user_id: user.id, email: null, ...SOURCE });
      expect(await store.get_identity(name, "new-1")).toMatchObject(moved);
      expect(await store.count_stale_identities(name, SOURCE)).toBe(1);
      expect(await store.count_stale_identities(name, moved)).toBe(2);
      expect(await store.count_stale_identities(name, remapped)).toBe(3);
      expect(await store.count_stale_identities(uname(), moved)).toBe(0);
      expect(await store.delete_stale_identities(name, moved)).toBe(2);
      expect(await store.get_identity(name, "old-1")).toBeNull();
      expect(await store.get_identity(name, "new-1")).not.toBeNull();
      // Another upstream's links are not touched.
      expect(await store.get_identity(neighbour, "old-1")).not.toBeNull();
      expect(await store.delete_stale_identities(name, moved)).toBe(0);
    });

    test("upstream states are single use and expire", async () => {
      const store = ctx.store();
      const hash = uid("state");
      await store.create_upstream_state({ state_hash: hash, upstream: "op", data: { verifier: "v", nonce: "n" }, expires_at: T0 + 60 });
      expect(await store.take_upstream_state(hash, T0)).toEqual({ state_hash: hash, upstream: "op", data: { verifier: "v", nonce: "n" }, expires_at: T0 + 60 });
      expect(await store.take_upstream_state(hash, T0)).toBeNull();
      const late = uid("state");
      await store.create_upstream_state({ state_hash: late, upstream: "op", data: {}, expires_at: T0 + 60 });
      expect(await store.take_upstream_state(late, T0 + 60)).toBeNull();
      // Taken (and so deleted) even when it had expired.
      expect(await store.take_upstream_state(late, T0)).toBeNull();
    });
  });
}
