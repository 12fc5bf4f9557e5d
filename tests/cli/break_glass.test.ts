/**
 * Break-glass from the command line: `idp users disable` (sessions and tokens end, as the API
 * does; the last active administrator only with --force), `idp users enable`, and `idp admin
 * grant` (enables the account, makes the admin group if missing, adds the user, and says what
 * they must still do before the console lets them in).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  for (const name of ["root", "bob"]) expect((await box.run(["users", "add", name, "--password-stdin"], { stdin: "correct horse\n" })).code).toBe(0);
});
afterAll(() => box.cleanup());

const now = () => Math.floor(Date.now() / 1000);

describe("idp users enable|disable, idp admin grant", () => {
  test("disable ends the user's sessions and revokes their tokens; enable lets them back", async () => {
    const { client_id } = (await box.run(["clients", "add", "--name", "App", "--redirect-uri", "https://rp.example/cb", "--json"])).json<{ client_id: string }>();
    const bob = (await with_store(box, (store) => store.get_user_by_username("bob")))!;
    await with_store(box, async (store) => {
      await store.create_session({
        id_hash: sha256("bob-session"),
        user_id: bob.id,
        auth_time: now(),
        amr: ["pwd"],
        expires_at: now() + 3600,
        created_at: now(),
        last_seen_at: now(),
      });
      await store.insert_token({
        token_hash: sha256("bob-token"),
        kind: "refresh",
        client_id,
        user_id: bob.id,
        scope: "openid offline_access",
        grant_id: "g1",
        expires_at: now() + 3600,
      });
    });
    const disabled = await box.run(["users", "disable", "bob", "--json"]);
    expect(disabled.code).toBe(0);
    expect(disabled.json()).toMatchObject({ username: "bob", status: "disabled", changed: true, sessions_ended: 1, tokens_revoked: 1 });
    await with_store(box, async (store) => {
      expect((await store.get_user_by_id(bob.id))!.status).toBe("disabled");
      expect(await store.get_session(sha256("bob-session"))).toBeNull();
      expect((await store.get_token(sha256("bob-token")))!.revoked_at).not.toBeNull();
      expect((await store.list_audit_events({ type: "user_disabled" })).map((e) => e.user_id)).toEqual([bob.id]);
    });
    expect((await box.run(["users", "disable", "bob"])).stdout).toBe("bob already is disabled.\n");

    const enabled = await box.run(["users", "enable", "bob"]);
    expect(enabled.stdout).toBe("Enabled bob: they may sign in again.\n");
    expect((await with_store(box, (store) => store.get_user_by_id(bob.id)))!.status).toBe("active");
  });

  test("disable refuses the last active administrator without --force, and says so with it", async () => {
    expect((await box.run(["groups", "add", "admins"])).code).toBe(0);
    expect((await box.run(["groups", "members", "add", "admins", "root"])).code).toBe(0);
    const refused = await box.run(["users", "disable", "root"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("root is the last active administrator");
    expect((await with_store(box, (store) => store.get_user_by_username("root")))!.status).toBe("active");
    const forced = await box.run(["users", "disable", "root", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("root was the last active administrator: nobody can use the admin console until idp admin grant NAME makes another.");
  });

  test("admin grant enables the account, adds it to the admin group, and says what is left to do", async () => {
    // Disabled above, and now out of the group too: nobody is left.
    expect((await box.run(["groups", "members", "remove", "admins", "root"])).code).toBe(0);
    const granted = await box.run(["admin", "grant", "root"]);
    expect(granted.code).toBe(0);
    expect(granted.stdout).toContain("root is an administrator: enabled the account, added them to admins.");
    expect(granted.stdout).toContain("set up two-step verification or a passkey");
    const root = (await with_store(box, (store) => store.get_user_by_username("root")))!;
    expect(root.status).toBe("active");
    expect(await with_store(box, (store) => store.list_user_groups(root.id))).toEqual(["admins"]);
    const again = (await box.run(["admin", "grant", "root", "--json"])).json<{ enabled: boolean; added: boolean; still_to_do: string[] }>();
    expect(again).toMatchObject({ enabled: false, added: false, still_to_do: ["second_factor"] });
  });

  test("admin grant makes the admin group when it is missing, and names a missing password", async () => {
    const other = sandbox();
    try {
      await with_store(other, (store) => store.create_user({ username: "keyless", password_hash: "" }));
      const granted = await other.run(["admin", "grant", "keyless", "--json"], { env: { IDP_ADMIN_GROUP: "operators" } });
      expect(granted.code).toBe(0);
      expect(granted.json()).toMatchObject({ group: "operators", group_created: true, added: true, still_to_do: ["password", "second_factor"] });
      const user = (await with_store(other, (store) => store.get_user_by_username("keyless")))!;
      expect(await with_store(other, (store) => store.list_user_groups(user.id))).toEqual(["operators"]);
      expect((await with_store(other, (store) => store.list_audit_events({ type: "admin_granted" }))).length).toBe(1);
    } finally {
      other.cleanup();
    }
  });

  test("admin grant refuses an invited account, saying why", async () => {
    await with_store(box, (store) => store.create_user({ username: "invitee", password_hash: "", status: "invited" }));
    const refused = await box.run(["admin", "grant", "invitee"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("invitee is invited: the account becomes active when its link is followed");
  });
});
