/**
 * Accounts never completed are deleted by the background purge (app/purge.ts →
 * oidc/accounts/stale_accounts.ts) after IDP_UNVERIFIED_ACCOUNT_DAYS: unverified sign-ups without a
 * live verification link, invitations whose last link expired that long ago. Each is audited
 * (user_deleted with its reason); the username is free again; the rest stays.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { start_purge } from "../../src/app/purge.ts";
import { load_config } from "../../src/app/config.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const DAY = 24 * 3600;
let t: TestProvider;

beforeAll(async () => {
  t = await start_provider({ config: { signup: { unverified_account_days: 30 } } });
});

afterAll(async () => {
  await t.stop();
});

describe("the purge of accounts never completed", () => {
  test("unverified after 30 days and invitations 30 days past their last link go, audited; the others stay", async () => {
    const now = t.clock.now();
    const make = (username: string, status: "unverified" | "invited" | "active", age_days: number) =>
      t.store.create_user({ username, password_hash: "", status, email: `${username}@example.org`, created_at: now - age_days * DAY });
    const link = (user_id: string, purpose: "email_verification" | "invitation", expires_in_days: number) =>
      t.store.create_user_token({ token_hash: sha256(random_token(32)), user_id, purpose, email: null, created_at: now - 40 * DAY, expires_at: now + expires_in_days * DAY });

    const old_signup = await make("old-signup", "unverified", 31);
    const new_signup = await make("new-signup", "unverified", 29);
    const resent = await make("resent", "unverified", 60);
    await link(resent.id, "email_verification", 1);
    const old_invite = await make("old-invite", "invited", 60);
    await link(old_invite.id, "invitation", -31);
    const lapsed_invite = await make("lapsed-invite", "invited", 60);
    await link(lapsed_invite.id, "invitation", -10);
    const active = await make("old-active", "active", 400);

    const purge = start_purge(t.provider, { interval_seconds: 3600 });
    await purge.run();
    await purge.stop();

    for (const gone of [old_signup, old_invite]) expect(await t.store.get_user_by_id(gone.id)).toBeNull();
    for (const kept of [new_signup, resent, lapsed_invite, active]) expect(await t.store.get_user_by_id(kept.id)).not.toBeNull();
    const events = await t.store.list_audit_events({ type: "user_deleted" });
    expect(events.map((e) => [e.user_id, e.details?.username, e.details?.reason]).sort()).toEqual(
      [
        [old_signup.id, "old-signup", "email_not_verified"],
        [old_invite.id, "old-invite", "invitation_not_accepted"],
      ].sort(),
    );
    // The usernames are free again.
    expect((await t.store.create_user({ username: "old-signup", password_hash: "" })).username).toBe("old-signup");

    // The lapsed invitation survived because the purge keeps its expired link (which dates it);
    // 21 days on, its link expired more than 30 days ago.
    t.clock.advance(21 * DAY);
    const later = start_purge(t.provider, { interval_seconds: 3600 });
    await later.run();
    await later.stop();
    expect(await t.store.get_user_by_id(lapsed_invite.id)).toBeNull();
    expect(await t.store.get_user_by_id(new_signup.id)).toBeNull();
    expect(await t.store.get_user_by_id(active.id)).not.toBeNull();
  });

  test("IDP_UNVERIFIED_ACCOUNT_DAYS: 30 by default, 0 keeps them, more than 365 refused naming the variable", () => {
    expect(load_config({}).signup.unverified_account_days).toBe(30);
    expect(load_config({ IDP_UNVERIFIED_ACCOUNT_DAYS: "0" }).signup.unverified_account_days).toBe(0);
    expect(() => load_config({ IDP_UNVERIFIED_ACCOUNT_DAYS: "400" })).toThrow("signup.unverified_account_days (IDP_UNVERIFIED_ACCOUNT_DAYS)");
  });
});
