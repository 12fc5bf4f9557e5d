/**
 * `idp users passkeys list|remove` and `idp clients add|update --require-2fa`, in-process against
 * a SQLite file; the passkeys are put in the store as a registration would.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store, UserRow } from "../../src/store/types.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
let store: Store;

beforeAll(async () => {
  box = sandbox();
  // Creates the schema through the CLI first.
  expect((await box.run(["users", "add", "alice", "--password-stdin"], { stdin: "correct horse battery\n" })).code).toBe(0);
  store = await open_store(box.env.DATABASE_URL!);
});

afterAll(async () => {
  await store.close();
  box.cleanup();
});

let added = 0;

/** A passkey as a registration stores it; each one a minute after the last (list order is by date). */
async function passkey(user: UserRow, name: string, extra: { last_used_at?: number } = {}) {
  added++;
  return store.create_passkey({
    credential_id: `cred-${crypto.randomUUID()}`,
    user_id: user.id,
    public_key: "pQECAyYgASFYIA",
    counter: 3,
    transports: ["internal"],
    backup_eligible: name === "Phone",
    backup_state: false,
    aaguid: null,
    name,
    created_at: 1_700_000_000 + 60 * added,
    ...extra,
  });
}

describe("idp users passkeys", () => {
  test("list shows names, dates and sync, never the public key; --json too", async () => {
    const alice = (await store.get_user_by_username("alice"))!;
    await passkey(alice, "Laptop", { last_used_at: 1_700_000_100 });
    await passkey(alice, "Phone");
    const text = await box.run(["users", "passkeys", "list", "alice"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Laptop");
    expect(text.stdout).toContain("never");
    const json = (await box.run(["users", "passkeys", "list", "alice", "--json"])).json<Record<string, unknown>[]>();
    expect(json.map((p) => [p.name, p.synced, p.last_used_at])).toEqual([
      ["Laptop", false, 1_700_000_100],
      ["Phone", true, null],
    ]);
    expect(JSON.stringify(json)).not.toContain("pQECAyYgASFYIA");
    const none = await box.run(["users", "passkeys", "list", "nobody"]);
    expect([none.code, none.stderr]).toEqual([1, 'error: no user "nobody"\n']);
  });

  test("remove deletes one, ends the user's sessions and records passkey_removed", async () => {
    const alice = (await store.get_user_by_username("alice"))!;
    const [laptop] = await store.list_passkeys_for_user(alice.id);
    const now = Math.floor(Date.now() / 1000);
    await store.create_session({ id_hash: "cli-session", user_id: alice.id, auth_time: now, amr: ["hwk", "user"], expires_at: now + 3600 });
    const removed = await box.run(["users", "passkeys", "remove", "alice", laptop!.id, "--json"]);
    expect(removed.code).toBe(0);
    expect(removed.json()).toMatchObject({ removed: true, id: laptop!.id, sessions_ended: 1 });
    expect((await store.list_passkeys_for_user(alice.id)).map((p) => p.name)).toEqual(["Phone"]);
    const [event] = await store.list_audit_events({ type: "passkey_removed", user_id: alice.id });
    expect(event).toMatchObject({ outcome: "success", details: { passkey_id: laptop!.id, via: "cli" } });
    const again = await box.run(["users", "passkeys", "remove", "alice", laptop!.id]);
    expect([again.code, again.stderr]).toEqual([1, `error: user "alice" has no passkey "${laptop!.id}" (see idp users passkeys list alice)\n`]);
  });

  test("the last passkey of a user without a password needs --force", async () => {
    const bob = await store.create_user({ username: "bob", password_hash: "" });
    const only = await passkey(bob, "Key");
    const refused = await box.run(["users", "passkeys", "remove", "bob", only.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("last way bob can sign in");
    expect(await store.count_passkeys_for_user(bob.id)).toBe(1);
    expect((await box.run(["users", "passkeys", "remove", "bob", only.id, "--force"])).code).toBe(0);
    expect(await store.count_passkeys_for_user(bob.id)).toBe(0);
  });

  test("usage errors: missing or unknown sub-command, missing id", async () => {
    expect((await box.run(["users", "passkeys"])).stderr).toContain("missing users passkeys command (list, remove)");
    expect((await box.run(["users", "passkeys", "rename", "alice"])).code).toBe(2);
    expect((await box.run(["users", "passkeys", "remove", "alice"])).code).toBe(2);
  });
});

describe("idp clients --require-2fa", () => {
  test("add sets it, update turns it on and off, bad values are refused", async () => {
    const added = await box.run(["clients", "add", "--name", "Strict", "--redirect-uri", "https://rp.example/cb", "--require-2fa", "--json"]);
    expect(added.code).toBe(0);
    const client_id = added.json<{ client_id: string; require_2fa: boolean }>().client_id;
    expect((await store.get_client(client_id))!.metadata.require_2fa).toBe(true);
    expect((await box.run(["clients", "update", client_id, "--require-2fa", "off"])).code).toBe(0);
    expect((await store.get_client(client_id))!.metadata.require_2fa).toBeUndefined();
    expect((await box.run(["clients", "update", client_id, "--require-2fa", "on"])).code).toBe(0);
    expect((await store.get_client(client_id))!.metadata.require_2fa).toBe(true);
    const bad = await box.run(["clients", "update", client_id, "--require-2fa", "yes"]);
    expect([bad.code, bad.stderr]).toEqual([1, 'error: --require-2fa "yes" is not one of on, off\n']);
  });
});

describe("idp config check", () => {
  test("passkeys on an issuer where WebAuthn cannot work are a warning; https and http://localhost are fine", async () => {
    for (const issuer of ["http://id.example.com", "https://192.0.2.10"]) {
      const result = await box.run(["config", "check"], { env: { IDP_ISSUER: issuer } });
      expect([issuer, result.code, result.stderr]).toEqual([
        issuer,
        0,
        expect.stringContaining(`warning: passkeys need an https issuer with a domain name (http://localhost in development); they cannot work at ${issuer}`),
      ]);
    }
    for (const issuer of ["https://id.example.com", "http://localhost:3000"]) {
      expect((await box.run(["config", "check"], { env: { IDP_ISSUER: issuer } })).stderr).not.toContain("passkeys need");
    }
    expect((await box.run(["config", "check"], { env: { IDP_ISSUER: "http://id.example.com", IDP_PASSKEYS: "off" } })).stderr).not.toContain("passkeys need");
    const bad = await box.run(["config", "check"], { env: { IDP_REQUIRE_2FA: "some" } });
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining("require_2fa (IDP_REQUIRE_2FA): must be off, all or group:NAME")]);
  });
});
