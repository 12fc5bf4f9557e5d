/**
 * The console's user page (http/endpoints/admin_console/user.ts): the consents a user gave
 * applications, each withdrawable by an administrator or the helpdesk (user_action.ts
 * `revoke_consent`: the grant goes and the application's tokens with it, audited), never by an
 * auditor (no button, a forged POST refused with 403); the linked upstream identities, passkeys,
 * TOTP enrolment and the last sign-in (from the audit log), read-only. Plain HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { create_upstream } from "../../src/oidc/admin/upstreams.ts";
import type { UserRow } from "../../src/store/types.ts";
import { console_browser, console_page } from "../helpers/admin_console.ts";
import { Browser, authorize } from "../helpers/browser.ts";
import { authorization_url, pkce, redeem, token_request, type ClientAuth } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let root: UserRow;
let auditor: UserRow;
let helper: UserRow;

beforeAll(async () => {
  t = await start_provider({ config: { admin_console: { auditor_group: "auditors", helpdesk_group: "helpdesk" } } });
  root = await t.add_user({ username: "root", email: "root@example.com", email_verified: true });
  auditor = await t.add_user({ username: "audrey" });
  helper = await t.add_user({ username: "hal" });
  for (const [group, user] of [
    ["admins", root],
    ["auditors", auditor],
    ["helpdesk", helper],
  ] as const) {
    const row = await t.store.create_group({ name: group, description: null });
    await t.store.add_group_member(row.id, user.id, t.clock.now());
  }
});

afterAll(async () => {
  await t.stop();
});

/** The page's own content (the footer's language switcher is a form of every page). */
function main(html: string): string {
  return /<main[\s\S]*<\/main>/.exec(html)![0];
}

/** `username` signs in to a new application with offline access: its client and the tokens. */
async function consent(username: string, client_name: string) {
  const { client, secret } = await t.add_client({ client_name, grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "client_secret_basic" });
  const auth: ClientAuth = { method: "basic", client_id: client.client_id, secret: secret! };
  const p = pkce();
  const url = authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256", scope: "openid email offline_access", prompt: "consent" }, client.client_id);
  const { callback } = await authorize(new Browser(), url, { username, password: t.password, callback_prefix: REDIRECT_URI });
  const answer = await redeem(t, callback.searchParams.get("code")!, p.verifier, auth);
  expect(answer.status).toBe(200);
  const tokens = (await answer.json()) as { access_token: string; refresh_token?: string };
  expect(tokens.refresh_token).toBeDefined();
  return { client_id: client.client_id, auth, refresh_token: tokens.refresh_token! };
}

function refresh(auth: ClientAuth, refresh_token: string): Promise<Response> {
  return token_request(t, { grant_type: "refresh_token", refresh_token }, auth);
}

describe("the user's consents", () => {
  test("an administrator sees a consent and withdraws it: the grant goes, its refresh token fails, audited", async () => {
    const user = await t.add_user({ username: "gina", email: "gina@example.com", email_verified: true });
    const given = await consent("gina", "Photo Album");
    const admin = await console_browser(t, root);
    const { html, csrf } = await console_page(admin, `${t.url}/admin/users/${user.id}`);
    const page = main(html);
    expect(page).toContain("Photo Album");
    expect(page).toContain("openid email offline_access");
    expect(page).toContain('name="action" value="revoke_consent"');
    expect(page).toContain(`name="client" value="${given.client_id}"`);
    // The sign-in was just now: the audit log's `login` success.
    expect(page).toContain("Last sign-in (audit log)");
    expect(page).not.toContain("none in the audit log");

    // Without the form token: refused, nothing changed.
    const forged = await admin.post(`${t.url}/admin/users/${user.id}/actions`, { action: "revoke_consent", client: given.client_id });
    expect(forged.status).toBe(403);
    expect(await t.store.get_grant(user.id, given.client_id)).not.toBeNull();

    const revoked = await admin.post(`${t.url}/admin/users/${user.id}/actions`, { csrf: csrf!, action: "revoke_consent", client: given.client_id });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe(`${t.issuer}/admin/users/${user.id}?done=consent_revoked`);
    expect(await t.store.get_grant(user.id, given.client_id)).toBeNull();
    const refreshed = await refresh(given.auth, given.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant");
    const events = await t.store.list_audit_events({ user_id: user.id, type: "admin_console" });
    expect(events[0]!.details).toMatchObject({ action: "consent_revoked", actor: `user:${root.id}`, target_client_id: given.client_id });
    expect((events[0]!.details as { tokens_revoked: number }).tokens_revoked).toBeGreaterThan(0);

    const after = main(await (await admin.get(revoked.headers.get("location")!)).text());
    expect(after).toContain("The consent was withdrawn and the application&#39;s tokens revoked.");
    expect(after).not.toContain("Photo Album");
    expect(after).toContain("No application holds a consent.");

    // Again: nothing to withdraw any more.
    const again = await admin.post(`${t.url}/admin/users/${user.id}/actions`, { csrf: csrf!, action: "revoke_consent", client: given.client_id });
    expect(again.status).toBe(409);
  });

  test("the helpdesk withdraws a consent of an ordinary user", async () => {
    const user = await t.add_user({ username: "hank" });
    const given = await consent("hank", "Calendar");
    const helpdesk = await console_browser(t, helper);
    const { html, csrf } = await console_page(helpdesk, `${t.url}/admin/users/${user.id}`);
    expect(main(html)).toContain('value="revoke_consent"');
    const revoked = await helpdesk.post(`${t.url}/admin/users/${user.id}/actions`, { csrf: csrf!, action: "revoke_consent", client: given.client_id });
    expect(revoked.status).toBe(303);
    expect(await t.store.get_grant(user.id, given.client_id)).toBeNull();
    expect((await refresh(given.auth, given.refresh_token)).status).toBe(400);
  });

  test("an auditor sees the consent without a button; a forged withdrawal is refused (403) and changes nothing", async () => {
    const user = await t.add_user({ username: "ivy" });
    const given = await consent("ivy", "Notes");
    const as_auditor = await console_browser(t, auditor);
    const { html, csrf } = await console_page(as_auditor, `${t.url}/admin/users/${user.id}`);
    const page = main(html);
    expect(page).toContain("Notes");
    expect(page).not.toContain("revoke_consent");
    expect(page).not.toContain("Withdraw consent");
    const forged = await as_auditor.post(`${t.url}/admin/users/${user.id}/actions`, { csrf: csrf ?? "", action: "revoke_consent", client: given.client_id });
    expect(forged.status).toBe(403);
    expect(await t.store.get_grant(user.id, given.client_id)).not.toBeNull();
    expect((await refresh(given.auth, given.refresh_token)).status).toBe(200);
  });
});

describe("identities, passkeys and TOTP, read-only", () => {
  test("the page lists linked identities, passkeys (synced or not) and the TOTP enrolment", async () => {
    const user = await t.add_user({ username: "jo", totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: t.clock.now() });
    await create_upstream(t.store, t.config, { name: "gitlab", client_id: "gl", preset: "gitlab" });
    await t.store.link_identity({ upstream: "gitlab", subject: "gl-4711", user_id: user.id, email: "jo@gitlab.example", issuer: "https://gitlab.com", subject_claim: "sub" });
    const base = { user_id: user.id, public_key: "AQID", counter: 0, transports: ["internal"], backup_eligible: true, aaguid: null };
    await t.store.create_passkey({ ...base, credential_id: "cred-synced", name: "Phone", backup_state: true });
    await t.store.create_passkey({ ...base, credential_id: "cred-device", name: "YubiKey", backup_eligible: false, backup_state: false });
    const { html } = await console_page(await console_browser(t, auditor), `${t.url}/admin/users/${user.id}`);
    const page = main(html);
    expect(page).toContain("gl-4711");
    expect(page).toContain("jo@gitlab.example");
    expect(page).toMatch(/Phone<\/strong>: added [^<]*, last used never, synced \(multi-device\)/);
    expect(page).toMatch(/YubiKey<\/strong>: added [^<]*, last used never, on one device only/);
    expect(page).toContain("Authenticator app (TOTP): enrolled.");
    expect(page).toContain("none in the audit log");
  });
});
