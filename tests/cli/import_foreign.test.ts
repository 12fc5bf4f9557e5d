/**
 * `idp import --from keycloak|auth0|csv` through the real CLI, then the imported users sign in
 * over real HTTP (an authorization code flow, with the imported client and its kept secret) with
 * their old passwords: the stored hash becomes argon2id, `password_rehashed` is audited once, and
 * the metric of users on foreign hashes drops. The fixtures' hashes were computed with python3
 * hashlib (PBKDF2, scrypt), crypt_blowfish's published vector and the argon2 reference vector.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, with_store } from "./helpers.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { Browser, authorize } from "../helpers/browser.ts";
import { basic, pkce } from "../helpers/flow.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import type { ImportReport } from "../../src/oidc/foreign_import/apply.ts";

const FIXTURES = join(import.meta.dirname!, "../fixtures/import");
const KEYCLOAK = join(FIXTURES, "keycloak-realm.json");
const METRICS_TOKEN = "metrics-token-0123456789";

async function foreign_gauge(t: TestProvider): Promise<number> {
  const response = await fetch(new URL("/metrics", t.url), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.text();
  const line = /^idp_users_foreign_password_hashes (\d+)$/m.exec(text);
  if (line === null) throw new Error("no idp_users_foreign_password_hashes in /metrics");
  return Number(line[1]);
}

/** A full authorization code flow as `username` with the given client; the token response. */
async function sign_in(t: TestProvider, username: string, password: string, client_id = "test-app", secret = t.secret): Promise<Response> {
  const challenge = pkce();
  const url = new URL("/authorize", t.url);
  const params = {
    client_id,
    response_type: "code",
    redirect_uri: REDIRECT_URI,
    scope: "openid",
    state: "s",
    nonce: "n",
    code_challenge: challenge.challenge,
    code_challenge_method: "S256",
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const { callback } = await authorize(new Browser(), url.href, { username, password, callback_prefix: REDIRECT_URI });
  const code = callback.searchParams.get("code")!;
  return fetch(new URL("/token", t.url), {
    method: "POST",
    headers: { authorization: basic(client_id, secret), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: challenge.verifier }),
  });
}

describe("idp import --from keycloak: a realm export's users sign in with their old passwords", () => {
  const box = sandbox();
  let t: TestProvider | undefined;
  afterAll(async () => {
    await t?.stop();
    box.cleanup();
  });

  test("--dry-run reports and writes nothing", async () => {
    const result = await box.run(["import", "--from", "keycloak", KEYCLOAK, "--dry-run", "--json"]);
    expect(result.code).toBe(0);
    const report = result.json<ImportReport>();
    expect(report.written).toBe(false);
    expect(report.users_created).toEqual(["bob", "carol", "dave"]);
    expect(report.groups_created).toEqual(["engineering", "engineering/backend", "Sales-Team"]);
    expect(report.clients_created.map((c) => c.client_id)).toEqual(["grafana", "spa"]);
    expect(await with_store(box, (store) => store.get_user_by_username("bob"))).toBeNull();
  });

  test("imports users, groups and clients; reports what it ignored", async () => {
    const result = await box.run(["import", "--from", "keycloak", KEYCLOAK]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Created 3 user(s), 3 group(s), 2 client(s) from keycloak.");
    expect(result.stdout).toContain("2 user(s) keep their password hash");
    expect(result.stdout).toContain("Without a password (they reset it: idp users send-reset): dave");
    expect(result.stdout).toMatch(/ignored users\[0\] \(bob\): realm roles auditor/);
    expect(result.stdout).toContain("redirect URI https://grafana.acme.example/* dropped");
    expect(result.stdout).toContain("client account: Keycloak's own");
    expect(result.stdout).toContain("client old-api: bearer-only");
    await with_store(box, async (store) => {
      const bob = (await store.get_user_by_username("bob"))!;
      expect(bob).toMatchObject({ email: "bob@acme.example", email_verified: true, given_name: "Bob", family_name: "Builder", name: "Bob Builder", status: "active" });
      expect(bob.password_hash).toStartWith("$pbkdf2-sha256$i=27500$");
      expect((await store.get_user_by_username("carol"))!.password_hash).toStartWith("$pbkdf2-sha512$i=210000$");
      expect((await store.get_user_by_username("dave"))!).toMatchObject({ status: "disabled", password_hash: "" });
      expect(await store.list_user_groups(bob.id)).toEqual(["engineering/backend"]);
      const grafana = (await store.get_client("grafana"))!;
      // The secret in the export is kept (hashed at rest): the application needs no change.
      expect(grafana.client_secret_hash).toBe(sha256("kc-grafana-secret-0123456789abcdef"));
      expect(grafana.metadata).toMatchObject({
        redirect_uris: [REDIRECT_URI],
        post_logout_redirect_uris: ["https://rp.example.com/bye"],
        token_endpoint_auth_method: "client_secret_basic",
      });
      expect((await store.get_client("spa"))!.metadata.token_endpoint_auth_method).toBe("none");
      const [event] = await store.list_audit_events({ type: "users_imported" });
      expect(event?.details).toMatchObject({ via: "cli", from: "keycloak", users: 3, groups: 3, clients: 2 });
    });
  });

  test("importing again skips what exists and changes nothing", async () => {
    const result = await box.run(["import", "--from", "keycloak", KEYCLOAK, "--json"]);
    expect(result.code).toBe(0);
    const report = result.json<ImportReport>();
    expect(report.users_created).toEqual([]);
    expect(report.skipped.map((s) => s.name)).toEqual(["bob", "carol", "dave", "grafana", "spa"]);
  });

  test("over HTTP: wrong password refused, old passwords accepted and rehashed to argon2id, metric drops", async () => {
    t = await start_provider({ database_url: box.env.DATABASE_URL!, config: { metrics_token: METRICS_TOKEN } });
    expect(await foreign_gauge(t)).toBe(2);
    await expect(sign_in(t, "bob", "bob's new password")).rejects.toThrow();
    expect((await t.store.get_user_by_username("bob"))!.password_hash).toStartWith("$pbkdf2-sha256$");

    const bob = await sign_in(t, "bob", "bob's old password", "grafana", "kc-grafana-secret-0123456789abcdef");
    expect(bob.status).toBe(200);
    expect(((await bob.json()) as { id_token?: string }).id_token).toBeString();
    const rehashed = (await t.store.get_user_by_username("bob"))!;
    expect(rehashed.password_hash).toStartWith("$argon2id$");
    expect(await foreign_gauge(t)).toBe(1);

    expect((await sign_in(t, "carol", "Carol's pässword 2019")).status).toBe(200);
    expect((await t.store.get_user_by_username("carol"))!.password_hash).toStartWith("$argon2id$");
    expect(await foreign_gauge(t)).toBe(0);

    // Audited once each, naming the old kind; the argon2id hash keeps working.
    const events = await t.store.list_audit_events({ type: "password_rehashed" });
    expect(events.map((e) => [e.user_id, e.details?.from]).sort()).toEqual(
      [
        [rehashed.id, "pbkdf2-sha256"],
        [(await t.store.get_user_by_username("carol"))!.id, "pbkdf2-sha512"],
      ].sort(),
    );
    expect((await sign_in(t, "bob", "bob's old password")).status).toBe(200);
    expect(await t.store.list_audit_events({ type: "password_rehashed" })).toHaveLength(2);
  }, 60_000);
});

describe("idp import --from auth0 and --from csv", () => {
  const box = sandbox();
  let t: TestProvider | undefined;
  afterAll(async () => {
    await t?.stop();
    box.cleanup();
  });

  test("Auth0 NDJSON (bcrypt) and a CSV table (scrypt, argon2i, none) import, and their users sign in", async () => {
    const auth0 = await box.run(["import", "--from", "auth0", join(FIXTURES, "auth0-users.ndjson")]);
    expect(auth0.stderr).toBe("");
    expect(auth0.stdout).toContain("Created 2 user(s)");
    expect(auth0.stdout).toContain("ignored file: fields _tmp_is_unique, connection, password_set_date, tenant");
    const csv = await box.run(["import", "--from", "csv", join(FIXTURES, "users.csv")]);
    expect(csv.stderr).toBe("");
    expect(csv.stdout).toContain("Created 3 user(s), 2 group(s)");
    await with_store(box, async (store) => {
      expect((await store.get_user_by_username("erin@acme.example"))!.password_hash).toStartWith("$2b$10$");
      expect((await store.get_user_by_username("frank@acme.example"))!).toMatchObject({ name: "Frank Castle", email_verified: false });
      const grace = (await store.get_user_by_username("grace"))!;
      expect(grace).toMatchObject({ name: "Hopper, Grace", email_verified: true });
      expect(await store.list_user_groups(grace.id)).toEqual(["engineering", "ops"]);
      expect((await store.get_user_by_username("ivan"))!).toMatchObject({ name: 'Ivan "the admin"', password_hash: "" });
    });
    t = await start_provider({ database_url: box.env.DATABASE_URL!, config: { metrics_token: METRICS_TOKEN } });
    expect(await foreign_gauge(t)).toBe(4);
    expect((await sign_in(t, "erin@acme.example", "erin's auth0 password")).status).toBe(200);
    expect((await sign_in(t, "frank@acme.example", "U*U*")).status).toBe(200);
    expect((await sign_in(t, "grace", "grace scrypt password")).status).toBe(200);
    expect((await sign_in(t, "heidi", "password")).status).toBe(200);
    expect(await foreign_gauge(t)).toBe(0);
    for (const name of ["erin@acme.example", "frank@acme.example", "grace", "heidi"]) {
      expect((await t.store.get_user_by_username(name))!.password_hash).toStartWith("$argon2id$");
    }
  }, 60_000);

  test("a file with a bad row imports nothing; errors name the lines", async () => {
    const file = join(box.dir, "bad.csv");
    writeFileSync(
      file,
      [
        "username,email,password_hash",
        "zoe,zoe@acme.example,$2b$10$WVTyYB.ra0DqbAyvLkH3b.Gj6/6sXrjwlSzMKDMtZ2n43kz0EHrvS",
        "yann,not-an-address,",
        "xena,,$2b$31$WVTyYB.ra0DqbAyvLkH3b.Gj6/6sXrjwlSzMKDMtZ2n43kz0EHrvS",
        '"pbkdf2",,"$pbkdf2-sha256$i=999999999$c2FsdA$aGFzaGhhc2hoYXNoaGFzaA"',
        "zoe,,",
      ].join("\n"),
    );
    const result = await box.run(["import", "--from", "csv", file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("Nothing imported: 4 row(s) cannot be read.");
    expect(result.stdout).toContain('error line 3: email "not-an-address" is not an e-mail address');
    expect(result.stdout).toContain("error line 4: password_hash: bcrypt cost 31 (4 to 14 taken)");
    expect(result.stdout).toContain("error line 5: password_hash: PBKDF2 iterations 999999999");
    expect(result.stdout).toContain('error line 6: username "zoe" appears twice in the file');
    expect(await with_store(box, (store) => store.get_user_by_username("zoe"))).toBeNull();
  });

  test("refused before reading: an unknown --from, a missing file, an unknown column", async () => {
    expect((await box.run(["import", "--from", "okta", KEYCLOAK])).code).toBe(2);
    expect((await box.run(["import", KEYCLOAK])).stderr).toContain('not an idp export (no "format": "idp-export"; a file of another provider takes --from keycloak|auth0|csv)');
    expect((await box.run(["import", "--from", "csv", join(box.dir, "missing.csv")])).stderr).toContain("cannot read");
    const file = join(box.dir, "typo.csv");
    writeFileSync(file, "username,emial\nzed,zed@acme.example\n");
    const result = await box.run(["import", "--from", "csv", file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("unknown: emial");
  });
});
