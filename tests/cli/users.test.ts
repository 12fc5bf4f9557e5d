import { afterEach, beforeEach, describe, expect, test } from "../helpers/test_api.ts";
import { verify_password } from "../../src/platform/passwords.ts";
import { open_store } from "../../src/store/open.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

async function add_alice(extra: string[] = []) {
  return box.run(["users", "add", "alice", "--password-stdin", ...extra], { stdin: "correct horse\n" });
}

describe("idp users", () => {
  test("add stores an argon2id hash of the stdin password, newline stripped", async () => {
    const added = await add_alice(["--email", "alice@example.com", "--email-verified", "--name", "Alice Liddell"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("Created user alice");
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      const user = await store.get_user_by_username("alice");
      expect(user?.password_hash).toStartWith("$argon2id$");
      expect(await verify_password("correct horse", user!.password_hash)).toBe(true);
      expect(await verify_password("correct horse\n", user!.password_hash)).toBe(false);
      expect(user).toMatchObject({ email: "alice@example.com", email_verified: true, name: "Alice Liddell" });
    } finally {
      await store.close();
    }
  });

  test("add --json prints the user without password hash or TOTP secret", async () => {
    const added = await add_alice([
      "--json",
      "--given-name",
      "Alice",
      "--family-name",
      "Liddell",
      "--picture",
      "https://img.example/a.png",
      "--phone",
      "+1 555 0100",
      "--phone-verified",
      "--address-json",
      '{"locality":"Oxford","country":"GB"}',
    ]);
    expect(added.code).toBe(0);
    const user = added.json<Record<string, unknown>>();
    expect(user).toMatchObject({
      username: "alice",
      given_name: "Alice",
      family_name: "Liddell",
      picture: "https://img.example/a.png",
      phone_number: "+1 555 0100",
      phone_number_verified: true,
      address: { locality: "Oxford", country: "GB" },
      totp_enabled: false,
    });
    expect(typeof user.id).toBe("string");
    expect(user).not.toHaveProperty("password_hash");
    expect(user).not.toHaveProperty("totp_secret");
    expect(added.stdout).not.toContain("argon2");
  });

  test("list and show, human and JSON, never print the hash", async () => {
    await add_alice(["--email", "alice@example.com"]);
    await box.run(["users", "add", "bob", "--password-stdin"], { stdin: "hunter2hunter2" });

    const list = await box.run(["users", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^USERNAME\s+ID\s+STATUS\s+EMAIL/);
    expect(list.stdout).toMatch(/alice\s+\S+\s+active\s+alice@example.com/);
    expect(list.stdout).toContain("alice@example.com");
    const listed = (await box.run(["users", "list", "--json"])).json<{ username: string }[]>();
    expect(listed.map((u) => u.username)).toEqual(["alice", "bob"]);

    const show = await box.run(["users", "show", "ALICE"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/username:\s+alice/);
    for (const out of [list.stdout, show.stdout, JSON.stringify(listed)]) {
      expect(out).not.toContain("argon2");
      expect(out).not.toContain("password_hash");
      expect(out).not.toContain("totp_secret");
    }
    const shown = (await box.run(["users", "show", "alice", "--json"])).json<Record<string, unknown>>();
    expect(shown.email).toBe("alice@example.com");
    expect(shown.status).toBe("active");
    expect(Object.keys(shown)).not.toContain("password_hash");
  });

  test("duplicate username (any case) fails with exit 1", async () => {
    expect((await add_alice()).code).toBe(0);
    const again = await box.run(["users", "add", "Alice", "--password-stdin"], { stdin: "another password" });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('username "Alice" is already taken');
    expect(again.stdout).toBe("");
  });

  test("password rules: empty, short, missing --password-stdin", async () => {
    const empty = await box.run(["users", "add", "carol", "--password-stdin"], { stdin: "\n" });
    expect([empty.code, empty.stderr]).toEqual([1, "error: the password on standard input is empty\n"]);
    const short = await box.run(["users", "add", "carol", "--password-stdin"], { stdin: "short" });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("at least 10 characters");
    const missing = await box.run(["users", "add", "carol"], { stdin: "long enough" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--password-stdin");
    expect((await box.run(["users", "list", "--json"])).json()).toEqual([]);
  });

  test("bad profile values are rejected", async () => {
    const cases: [string[], string][] = [
      [["--email", "not-an-email"], '--email "not-an-email" is not valid'],
      [["--picture", "javascript:alert(1)"], "--picture"],
      [["--address-json", "{"], "--address-json is not valid JSON"],
      [["--address-json", '{"planet":"Mars"}'], "--address-json"],
      [["--email-verified"], "--email-verified needs --email"],
    ];
    for (const [extra, message] of cases) {
      const result = await add_alice(extra);
      expect(result.code).toBeGreaterThan(0);
      expect(result.stderr).toContain(message);
    }
    const bad_name = await box.run(["users", "add", "a b", "--password-stdin"], { stdin: "long enough" });
    expect(bad_name.code).toBe(1);
    expect(bad_name.stderr).toContain("is not valid");
  });

  test("one spelling per account: a name that NFKC changes is refused, naming its normal form; an NFD name is stored as NFC", async () => {
    const fullwidth = await box.run(["users", "add", "\uFF41lice", "--password-stdin"], { stdin: "long enough" });
    expect(fullwidth.code).toBe(1);
    expect(fullwidth.stderr).toContain('username "\uFF41lice" is not in its Unicode normal form (NFKC): it would sign in as "alice"; create it as "alice" instead');
    expect((await box.run(["users", "list", "--json"])).json()).toEqual([]);

    const nfd = await box.run(["users", "add", "jose\u0301", "--password-stdin", "--json"], { stdin: "long enough" });
    expect(nfd.code).toBe(0);
    expect(nfd.json<{ username: string }>().username).toBe("jos\u00E9");
    // Every spelling is the one account: taken.
    for (const spelling of ["jos\u00E9", "JOSE\u0301"]) {
      const again = await box.run(["users", "add", spelling, "--password-stdin"], { stdin: "long enough" });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("is already taken");
    }
  });

  test("remove deletes the user; unknown users are errors", async () => {
    await add_alice();
    const removed = await box.run(["users", "remove", "alice", "--json"]);
    expect(removed.code).toBe(0);
    expect(removed.json()).toMatchObject({ removed: true, username: "alice" });
    const again = await box.run(["users", "remove", "alice"]);
    expect([again.code, again.stderr]).toEqual([1, 'error: no user "alice"\n']);
    const show = await box.run(["users", "show", "nobody", "--json"]);
    expect(show.code).toBe(1);
    expect(JSON.parse(show.stderr)).toEqual({ error: 'no user "nobody"', exit_code: 1 });
  });

  test("set-password changes the hash and ends the user's sessions", async () => {
    await add_alice();
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      const user = (await store.get_user_by_username("alice"))!;
      const now = Math.floor(Date.now() / 1000);
      await store.create_session({ id_hash: "s1", user_id: user.id, auth_time: now, amr: ["pwd"], expires_at: now + 3600 });
      const changed = await box.run(["users", "set-password", "alice", "--password-stdin", "--json"], { stdin: "a new password\n" });
      expect(changed.code).toBe(0);
      expect(changed.json()).toMatchObject({ username: "alice", sessions_ended: 1 });
      const after = (await store.get_user_by_username("alice"))!;
      expect(await verify_password("a new password", after.password_hash)).toBe(true);
      expect(await store.list_sessions_for_user(user.id)).toEqual([]);
    } finally {
      await store.close();
    }
    const short = await box.run(["users", "set-password", "alice", "--password-stdin"], { stdin: "1234" });
    expect(short.code).toBe(1);
    const unknown = await box.run(["users", "set-password", "zed", "--password-stdin"], { stdin: "long enough" });
    expect(unknown.stderr).toContain('no user "zed"');
  });

  test("reset-2fa removes the TOTP secret and recovery codes, ends the sessions and records two_factor_removed", async () => {
    await add_alice();
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      const user = (await store.get_user_by_username("alice"))!;
      const now = Math.floor(Date.now() / 1000);
      await store.update_user(user.id, { totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: now });
      await store.set_recovery_codes(user.id, ["hash-1", "hash-2"]);
      await store.create_session({ id_hash: "s1", user_id: user.id, auth_time: now, amr: ["pwd", "otp"], expires_at: now + 3600 });
      await store.create_passkey({
        credential_id: `cred-${crypto.randomUUID()}`,
        user_id: user.id,
        public_key: "AA",
        counter: 0,
        transports: ["internal"],
        backup_eligible: false,
        backup_state: false,
        aaguid: null,
        name: "Phone",
      });
      const reset = await box.run(["users", "reset-2fa", "alice", "--json"]);
      expect(reset.code).toBe(0);
      expect(reset.json()).toMatchObject({ username: "alice", totp_enabled: false, totp_removed: true, passkeys_removed: 1, sessions_ended: 1 });
      expect(await store.count_passkeys_for_user(user.id)).toBe(0);
      const after = (await store.get_user_by_username("alice"))!;
      expect([after.totp_secret, after.totp_enabled_at]).toEqual([null, null]);
      expect(await store.count_recovery_codes(user.id)).toBe(0);
      expect(await store.list_sessions_for_user(user.id)).toEqual([]);
      const events = await store.list_audit_events({ user_id: user.id, type: "two_factor_removed" });
      expect(events.length).toBe(1);
      expect(events[0]).toMatchObject({ outcome: "success", details: { via: "cli" } });
    } finally {
      await store.close();
    }
    // Nothing left to reset, and unknown users: exit 1.
    const again = await box.run(["users", "reset-2fa", "alice"]);
    expect([again.code, again.stderr]).toEqual([1, 'error: user "alice" has no two-step verification or passkey to reset\n']);
    expect((await box.run(["users", "reset-2fa", "zed"])).stderr).toContain('no user "zed"');
  });

  test("unknown sub-command and unknown flag are usage errors (exit 2)", async () => {
    const sub = await box.run(["users", "rename", "alice"]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown users command "rename"');
    expect(sub.stderr).toContain("idp users --help");
    const flag = await box.run(["users", "list", "--all"]);
    expect([flag.code, flag.stderr.split("\n")[0]]).toEqual([2, "error: unknown option --all"]);
  });
});
