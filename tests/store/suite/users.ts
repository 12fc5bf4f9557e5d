import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreError, StoreReferenceError } from "../../../src/store/types.ts";
import { code_input, concurrently, seed_client, seed_user, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function user_tests(ctx: SuiteContext): void {
  describe("users", () => {
    test("create_user fills defaults and get_user_by_id returns every field", async () => {
      const store = ctx.store();
      const created = await store.create_user({
        username: uid("Ada"),
        password_hash: "$argon2id$hash",
        name: "Ada Lovelace",
        given_name: "Ada",
        family_name: "Lovelace",
        email: "ada@example.org",
        email_verified: true,
        phone_number: "+44 20 0000",
        address: { street_address: "1 Analytical St", locality: "London", country: "GB" },
        created_at: T0,
      });
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.updated_at).toBe(T0);
      expect(created.phone_number_verified).toBe(false);
      expect(created.picture).toBeNull();
      expect(created.totp_secret).toBeNull();
      expect(await store.get_user_by_id(created.id)).toEqual(created);
      expect(await store.get_user_by_id("no-such-user")).toBeNull();
    });

    test("find_users_by_email ignores ASCII case, lists every owner oldest first, and only exact addresses", async () => {
      const store = ctx.store();
      const address = `${uid("Mail")}@Example.org`;
      const first = await store.create_user({ username: uid("mail1"), password_hash: "h", email: address, created_at: T0 });
      const second = await store.create_user({ username: uid("mail2"), password_hash: "h", email: address.toLowerCase(), created_at: T0 + 1 });
      await store.create_user({ username: uid("mail3"), password_hash: "h", email: `x${address}`, created_at: T0 });
      expect((await store.find_users_by_email(address.toUpperCase())).map((u) => u.id)).toEqual([first.id, second.id]);
      expect(await store.find_users_by_email(`${uid("none")}@example.org`)).toEqual([]);
      // A LIKE pattern is not a pattern here.
      expect(await store.find_users_by_email("%")).toEqual([]);
    });

    test("get_user_by_username ignores case; usernames differing only in case conflict", async () => {
      const store = ctx.store();
      const name = uid("MixedCase");
      const user = await seed_user(store, name);
      expect((await store.get_user_by_username(name.toUpperCase()))?.id).toBe(user.id);
      expect((await store.get_user_by_username(name.toLowerCase()))?.username).toBe(name);
      expect(await store.get_user_by_username(uid("nobody"))).toBeNull();
      expect(await rejection(seed_user(store, name.toLowerCase()))).toBeInstanceOf(StoreConflictError);
    });

    test("one spelling per account: NFD, fullwidth and case spellings find one user; names NFKC would change are refused", async () => {
      const store = ctx.store();
      const tag = uid("").replaceAll("-", "").slice(-8);
      const user = await seed_user(store, `jos\u00E9${tag}`);
      for (const spelling of [`jose\u0301${tag}`, `\uFF4A\uFF4F\uFF53\u00E9${tag}`, `JOS\u00C9${tag.toUpperCase()}`]) {
        expect((await store.get_user_by_username(spelling))?.id).toBe(user.id);
      }
      const fullwidth = await rejection(seed_user(store, `\uFF41lice${tag}`));
      expect(fullwidth).toBeInstanceOf(StoreError);
      expect(fullwidth.message).toContain(`create it as "alice${tag}" instead`);
      expect(await rejection(seed_user(store, `zoe\u0308${tag}`))).toBeInstanceOf(StoreError);
      expect(await store.get_user_by_username(`alice${tag}`)).toBeNull();
    });

    test("create_user with an existing id conflicts", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      expect(await rejection(store.create_user({ id: user.id, username: uid("other"), password_hash: "x" }))).toBeInstanceOf(StoreConflictError);
    });

    test("list_users orders by username, with limit and offset", async () => {
      await ctx.withFresh(async (store) => {
        for (const name of ["carol", "Alice", "bob"]) await seed_user(store, name);
        expect((await store.list_users()).map((u) => u.username)).toEqual(["Alice", "bob", "carol"]);
        expect((await store.list_users({ limit: 1, offset: 1 })).map((u) => u.username)).toEqual(["bob"]);
      });
    });

    test("search_users pages by username after a key, and filters by username or e-mail prefix ignoring case", async () => {
      await ctx.withFresh(async (store) => {
        for (const name of ["carol", "Alice", "bob", "alfred"]) await seed_user(store, name);
        await store.create_user({ username: "zed", password_hash: "h", email: "Alpha@Example.org" });
        await store.create_user({ username: "yan", password_hash: "h", email: "x.al@example.org" });
        const names = (users: { username: string }[]) => users.map((u) => u.username);
        expect(names(await store.search_users({ limit: 2 }))).toEqual(["alfred", "Alice"]);
        expect(names(await store.search_users({ after: "Alice", limit: 2 }))).toEqual(["bob", "carol"]);
        expect(names(await store.search_users({ after: "ALICE", limit: 10 }))).toEqual(["bob", "carol", "yan", "zed"]);
        expect(names(await store.search_users({ q: "AL", limit: 10 }))).toEqual(["alfred", "Alice", "zed"]);
        expect(names(await store.search_users({ q: "al", after: "alfred", limit: 1 }))).toEqual(["Alice"]);
        // A LIKE pattern is not a pattern here.
        expect(names(await store.search_users({ q: "%", limit: 10 }))).toEqual([]);
      });
    });

    test("browse_users finds any part of the username, e-mail or name, filters, sorts and counts", async () => {
      await ctx.withFresh(async (store) => {
        const alice = await store.create_user({ username: "Alice", password_hash: "h", email: "alice@example.org", name: "Alice Liddell", created_at: T0 + 3 });
        const bob = await store.create_user({ username: "bob", password_hash: "h", email: "b@Wonder.example", status: "disabled", created_at: T0 + 1 });
        const carol = await store.create_user({ username: "carol", password_hash: "h", name: "Carol ÉMILE", status: "invited", created_at: T0 + 2 });
        await store.create_user({ username: "dave", password_hash: "h", totp_enabled_at: T0, created_at: T0 + 4 });
        await store.create_user({ username: "Édith", password_hash: "h", status: "unverified", created_at: T0 });
        const names = (page: { users: { username: string }[] }) => page.users.map((u) => u.username);
        const all = await store.browse_users({ sort: "username", offset: 0, limit: 10 });
        expect(names(all)).toEqual(["Alice", "bob", "carol", "dave", "Édith"]);
        expect(all.total).toBe(5);
        // Any part, ignoring case: the username, the e-mail, the name.
        expect(names(await store.browse_users({ q: "LIC", sort: "username", offset: 0, limit: 10 }))).toEqual(["Alice"]);
        expect(names(await store.browse_users({ q: "wonder", sort: "username", offset: 0, limit: 10 }))).toEqual(["bob"]);
        expect(names(await store.browse_users({ q: "liddell", sort: "username", offset: 0, limit: 10 }))).toEqual(["Alice"]);
        expect(names(await store.browse_users({ q: "ÉMILE", sort: "username", offset: 0, limit: 10 }))).toEqual(["carol"]);
        expect(names(await store.browse_users({ q: "édith", sort: "username", offset: 0, limit: 10 }))).toEqual(["Édith"]);
        // Neither a LIKE pattern nor an empty search filters anything away.
        expect((await store.browse_users({ q: "%", sort: "username", offset: 0, limit: 10 })).total).toBe(0);
        expect((await store.browse_users({ q: "_", sort: "username", offset: 0, limit: 10 })).total).toBe(0);
        expect((await store.browse_users({ q: "", sort: "username", offset: 0, limit: 10 })).total).toBe(5);
        // Filters.
        expect(names(await store.browse_users({ status: "disabled", sort: "username", offset: 0, limit: 10 }))).toEqual(["bob"]);
        expect(names(await store.browse_users({ status: "invited", sort: "username", offset: 0, limit: 10 }))).toEqual(["carol"]);
        const group = await store.create_group({ name: "staff" });
        await store.add_group_member(group.id, bob.id);
        await store.add_group_member(group.id, carol.id);
        expect(names(await store.browse_users({ group_id: group.id, sort: "username", offset: 0, limit: 10 }))).toEqual(["bob", "carol"]);
        expect(names(await store.browse_users({ group_id: group.id, status: "invited", sort: "username", offset: 0, limit: 10 }))).toEqual(["carol"]);
        await store.create_passkey({
          credential_id: uid("cred"),
          user_id: alice.id,
          public_key: "key",
          counter: 0,
          transports: [],
          backup_eligible: false,
          backup_state: false,
          aaguid: null,
          name: "Laptop",
        });
        expect(names(await store.browse_users({ second_factor: true, sort: "username", offset: 0, limit: 10 }))).toEqual(["Alice", "dave"]);
        expect(names(await store.browse_users({ second_factor: false, sort: "username", offset: 0, limit: 10 }))).toEqual(["bob", "carol", "Édith"]);
        // Newest first; pages keep the total of every match.
        expect(names(await store.browse_users({ sort: "created", offset: 0, limit: 10 }))).toEqual(["dave", "Alice", "carol", "bob", "Édith"]);
        const second = await store.browse_users({ sort: "created", offset: 2, limit: 2 });
        expect(names(second)).toEqual(["carol", "bob"]);
        expect(second.total).toBe(5);
        const beyond = await store.browse_users({ sort: "username", offset: 50, limit: 10 });
        expect(beyond).toEqual({ users: [], total: 5 });
      });
    });

    test("update_user changes only the patch, stamps updated_at, and keeps lookups in step", async () => {
      const store = ctx.store();
      const user = await store.create_user({ username: uid("before"), password_hash: "old", created_at: T0, email: "a@x" });
      const renamed = uid("After");
      const updated = await store.update_user(user.id, {
        username: renamed,
        password_hash: "new",
        totp_secret: "BASE32SECRET",
        totp_enabled_at: T0 + 5,
        address: null,
        email_verified: true,
      });
      expect(updated).toMatchObject({ id: user.id, username: renamed, password_hash: "new", email: "a@x", email_verified: true, created_at: T0 });
      expect(updated!.updated_at).toBeGreaterThan(T0);
      expect(await store.get_user_by_id(user.id)).toEqual(updated);
      expect((await store.get_user_by_username(renamed.toLowerCase()))?.id).toBe(user.id);
      expect(await store.get_user_by_username(user.username)).toBeNull();
      expect(await store.update_user(user.id, { name: "N", updated_at: T0 + 9 })).toMatchObject({ name: "N", updated_at: T0 + 9 });
      expect(await store.update_user("no-such-user", { name: "x" })).toBeNull();
    });

    test("locale (migration 018): null by default, set and cleared by update_user, kept by create_user", async () => {
      const store = ctx.store();
      const user = await store.create_user({ username: uid("polyglot"), password_hash: "" });
      expect(user.locale).toBeNull();
      expect((await store.update_user(user.id, { locale: "fr" }))!.locale).toBe("fr");
      expect((await store.get_user_by_id(user.id))!.locale).toBe("fr");
      expect((await store.update_user(user.id, { locale: null }))!.locale).toBeNull();
      const chosen = await store.create_user({ username: uid("nihongo"), password_hash: "", locale: "ja" });
      expect((await store.get_user_by_id(chosen.id))!.locale).toBe("ja");
    });

    test("if_version (migration 020): every update raises the version; a compare-and-set update or delete writes only at the version read, and of concurrent ones from two instances exactly one wins", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const user = await seed_user(store);
      expect(user.version).toBe(0);
      const renamed = await store.update_user(user.id, { name: "One" });
      expect(renamed!.version).toBe(1);
      expect(await store.get_user_by_id(user.id)).toEqual(renamed);
      // A stale version writes nothing, even within the same second (updated_at could not tell).
      expect(await store.update_user(user.id, { name: "Stale" }, { if_version: 0 })).toBeNull();
      expect((await store.get_user_by_id(user.id))!.name).toBe("One");
      const results = await concurrently(10, (i) => (i % 2 ? other : store).update_user(user.id, { name: `Writer ${i}` }, { if_version: 1 }));
      const won = results.filter((r) => r !== null);
      expect(won).toHaveLength(1);
      expect(won[0]!.version).toBe(2);
      expect(await store.get_user_by_id(user.id)).toEqual(won[0]!);
      expect(await store.delete_user(user.id, { if_version: 1 })).toBe(false);
      expect(await store.get_user_by_id(user.id)).not.toBeNull();
      expect(await store.delete_user(user.id, { if_version: 2 })).toBe(true);
      expect(await store.update_user(user.id, { name: "x" }, { if_version: 2 })).toBeNull();
    });

    test("count_foreign_password_hashes counts hashes neither empty nor argon2id, and drops when one is replaced", async () => {
      const store = ctx.store();
      const before = await store.count_foreign_password_hashes();
      const bcrypt = await store.create_user({ username: uid("bcrypt"), password_hash: "$2b$10$abcdefghijklmnopqrstuuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01" });
      await store.create_user({ username: uid("pbkdf2"), password_hash: "$pbkdf2-sha256$i=27500$c2FsdA$aGFzaA" });
      await store.create_user({ username: uid("ours"), password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA" });
      await store.create_user({ username: uid("nopassword"), password_hash: "" });
      // An uppercase spelling is not ours: the comparison is exact on both databases.
      await store.create_user({ username: uid("upper"), password_hash: "$ARGON2ID$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA" });
      expect(await store.count_foreign_password_hashes()).toBe(before + 3);
      await store.update_user(bcrypt.id, { password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$bmV3" });
      expect(await store.count_foreign_password_hashes()).toBe(before + 2);
    });

    test("update_user to a taken username conflicts", async () => {
      const store = ctx.store();
      const a = await seed_user(store);
      const b = await seed_user(store);
      expect(await rejection(store.update_user(b.id, { username: a.username.toUpperCase() }))).toBeInstanceOf(StoreConflictError);
    });

    test("delete_user removes the user with sessions, grants, codes, tokens and recovery codes", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const client = await seed_client(store);
      await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: ["pwd"], expires_at: T0 + 10 });
      await store.upsert_grant({ user_id: user.id, client_id: client.client_id, scopes: ["openid"] });
      const code = await store.insert_code(code_input(user, client));
      const token = await store.insert_token(token_input(user, client));
      await store.set_recovery_codes(user.id, ["r1"]);
      expect(await store.delete_user(user.id)).toBe(true);
      expect(await store.get_user_by_id(user.id)).toBeNull();
      expect(await store.list_sessions_for_user(user.id)).toEqual([]);
      expect(await store.list_grants_for_user(user.id)).toEqual([]);
      expect(await store.get_code(code.code_hash)).toBeNull();
      expect(await store.get_token(token.token_hash)).toBeNull();
      expect(await store.count_recovery_codes(user.id)).toBe(0);
      expect(await store.delete_user(user.id)).toBe(false);
      expect(await store.get_client(client.client_id)).not.toBeNull();
    });
  });

  describe("recovery codes", () => {
    test("each code is accepted once; set_recovery_codes replaces the set", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      await store.set_recovery_codes(user.id, ["h1", "h2", "h3", "h3"]);
      expect(await store.count_recovery_codes(user.id)).toBe(3);
      expect(await store.consume_recovery_code(user.id, "h2", T0)).toBe(true);
      expect(await store.consume_recovery_code(user.id, "h2", T0)).toBe(false);
      expect(await store.consume_recovery_code(user.id, "nope")).toBe(false);
      expect(await store.count_recovery_codes(user.id)).toBe(2);
      const other = await seed_user(store);
      expect(await store.consume_recovery_code(other.id, "h1")).toBe(false);
      await store.set_recovery_codes(user.id, ["n1", "n2"]);
      expect(await store.consume_recovery_code(user.id, "h1")).toBe(false);
      expect(await store.count_recovery_codes(user.id)).toBe(2);
      await store.set_recovery_codes(user.id, []);
      expect(await store.count_recovery_codes(user.id)).toBe(0);
    });

    test("concurrent uses of one recovery code: exactly one succeeds", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      await store.set_recovery_codes(user.id, ["once"]);
      const results = await concurrently(20, () => store.consume_recovery_code(user.id, "once"));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test("set_recovery_codes for an unknown user is a reference error", async () => {
      expect(await rejection(ctx.store().set_recovery_codes(uid("ghost"), ["x"]))).toBeInstanceOf(StoreReferenceError);
    });

    test("delete_stale_users: unverified without a live link and invitations whose links all expired before the cut-off; oldest first, bounded", async () => {
      const store = ctx.store();
      // Far before every other test's rows, so only these can qualify.
      const OLD = T0 - 100_000_000;
      const before = OLD + 1000;
      const now = T0;
      const user = (username: string, status: "unverified" | "invited" | "active" | "disabled", created_at: number) =>
        store.create_user({ username: uid(username), password_hash: "", status, email: `${username}@example.org`, created_at });
      const link = (user_id: string, purpose: "email_verification" | "invitation", expires_at: number) =>
        store.create_user_token({ token_hash: uid("hash"), user_id, purpose, email: null, created_at: OLD, expires_at });
      const unverified = await user("unv", "unverified", OLD);
      const unverified_live = await user("unv-live", "unverified", OLD + 1);
      await link(unverified_live.id, "email_verification", now + 60);
      const unverified_new = await user("unv-new", "unverified", before + 1);
      const invited = await user("inv", "invited", OLD + 2);
      await link(invited.id, "invitation", OLD + 500);
      const invited_recent = await user("inv-recent", "invited", OLD + 3);
      await link(invited_recent.id, "invitation", OLD + 500);
      await link(invited_recent.id, "invitation", before + 1);
      const invited_no_link = await user("inv-none", "invited", OLD + 4);
      const active = await user("act", "active", OLD);
      const disabled = await user("dis", "disabled", OLD);

      const first = await store.delete_stale_users(before, now, 2);
      expect(first.map((u) => u.id)).toEqual([unverified.id, invited.id]);
      expect(first[0]).toEqual({ id: unverified.id, username: unverified.username, email: "unv@example.org", status: "unverified", created_at: OLD });
      expect(first[1]!.status).toBe("invited");
      const second = await store.delete_stale_users(before, now, 10);
      expect(second.map((u) => u.id)).toEqual([invited_no_link.id]);
      expect(await store.delete_stale_users(before, now, 10)).toEqual([]);
      for (const gone of [unverified, invited, invited_no_link]) expect(await store.get_user_by_id(gone.id)).toBeNull();
      for (const kept of [unverified_live, unverified_new, invited_recent, active, disabled]) expect(await store.get_user_by_id(kept.id)).not.toBeNull();
      // A username freed by the purge can be taken again.
      expect((await store.create_user({ username: unverified.username, password_hash: "" })).username).toBe(unverified.username);
    });
  });
}
