/**
 * The store on Deno, through the drivers Deno loads (src/store/sqlite/node_sqlite.ts,
 * src/store/postgres/postgres_js.ts): a cross-section of the store's contract, run by
 * deno_drivers.test.ts with `deno run` and narrow permissions. Exits non-zero at the first failed
 * assertion. The whole shared suite (tests/store/suite.ts) runs under bun:test; Bun runs it on
 * these two drivers too (sqlite_node_driver.test.ts, postgres_js_driver.test.ts).
 *
 * Environment:
 * - STORE_CHECK_DIR: an empty directory for the SQLite file (required).
 * - STORE_CHECK_POSTGRES: a PostgreSQL URL; a database of its own is created there and dropped
 *   at the end. Unset: SQLite only.
 * - STORE_CHECK_CLOSED_PORT: a port of 127.0.0.1 nothing listens on (with STORE_CHECK_POSTGRES).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import postgres from "postgres";
import { RUNTIME } from "../../src/platform/which.ts";
import { load_postgres_driver } from "../../src/store/postgres/load_driver.ts";
import { load_sqlite_driver } from "../../src/store/sqlite/load_driver.ts";
import { migrate, open_store } from "../../src/store/open.ts";
import { StoreConflictError, StoreReferenceError, StoreUnavailableError, type OpenStoreOptions, type Store } from "../../src/store/types.ts";

const T0 = 1_700_000_000;

/** Until src/platform/crypto.ts has its Deno adapter (branch h-deno), mail ids need Bun.randomUUIDv7: a stand-in. */
function stand_in_for_the_platform(): void {
  const global = globalThis as { Bun?: { randomUUIDv7?: () => string } };
  if (global.Bun === undefined) global.Bun = { randomUUIDv7: () => crypto.randomUUID() };
}

function uid(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new assert.AssertionError({ message: "expected a rejection" });
}

async function step(label: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    console.error(`not ok: ${label}`);
    throw error;
  }
  console.log(`ok: ${label}`);
}

/** The same checks on each database: `open` gives a store on one empty database at `url`. */
async function check_store(kind: string, url: string, open: (options?: OpenStoreOptions) => Promise<Store>): Promise<void> {
  const store = await open();
  try {
    await step(`${kind}: migrations applied at open, none left; an up-to-date schema opens without migrating`, async () => {
      const again = await migrate(url);
      assert.deepEqual(again.applied, []);
      assert.ok(again.version >= 23);
      const other = await open({ migrate: false });
      await other.ping();
      await other.close();
    });

    const user = await store.create_user({ username: uid("Ada"), password_hash: "$argon2id$v=19$dummy", email: "ada@example.test" });
    await step(`${kind}: users: create, read by id and by username (case-folded), if_version compare-and-set, conflicts`, async () => {
      assert.deepEqual(await store.get_user_by_id(user.id), user);
      assert.deepEqual(await store.get_user_by_username(user.username.toUpperCase()), user);
      const updated = await store.update_user(user.id, { name: "Ada L." }, { if_version: user.version });
      assert.equal(updated?.version, user.version + 1);
      assert.equal(updated?.name, "Ada L.");
      assert.equal(await store.update_user(user.id, { name: "stale" }, { if_version: user.version }), null);
      assert.equal(await store.delete_user(user.id, { if_version: user.version }), false);
      const error = await rejection(store.create_user({ username: user.username, password_hash: "x" }));
      assert.ok(error instanceof StoreConflictError, String(error));
      // Concurrent writers of one version: exactly one wins.
      const current = (await store.get_user_by_id(user.id))!;
      const results = await Promise.all([1, 2, 3, 4].map((n) => store.update_user(user.id, { name: `writer ${n}` }, { if_version: current.version })));
      assert.equal(results.filter((row) => row !== null).length, 1);
    });

    const metadata = {
      client_name: "Ünïcode app ✓",
      redirect_uris: ["https://rp.example/cb", "https://rp.example/cb2"],
      grant_types: ["authorization_code", "refresh_token"],
      require_pushed_authorization_requests: true,
      default_max_age: 3600,
      jwks: { keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", use: "sig" }] },
      contacts: [],
    };
    const client = await store.create_client({ client_id: uid("client"), metadata });
    await step(`${kind}: clients: JSON metadata round-trips (nested, arrays, booleans, numbers, Unicode); update and list`, async () => {
      const read = await store.get_client(client.client_id);
      assert.deepEqual(read, client);
      assert.deepEqual(read?.metadata, metadata);
      const updated = await store.update_client(client.client_id, { metadata: { ...metadata, client_name: "Renamed" } }, { if_version: client.version });
      assert.equal(updated?.metadata.client_name, "Renamed");
      assert.deepEqual((await store.get_client(client.client_id))?.metadata.jwks, metadata.jwks);
      assert.ok((await store.list_clients()).some((row) => row.client_id === client.client_id));
    });

    await step(`${kind}: foreign keys: a code of an unknown client is a StoreReferenceError`, async () => {
      const error = await rejection(
        store.insert_code({
          code_hash: uid("code"),
          client_id: uid("missing"),
          user_id: user.id,
          redirect_uri: "https://rp.example/cb",
          scope: "openid",
          auth_time: T0,
          grant_id: uid("grant"),
          created_at: T0,
          expires_at: T0 + 60,
        }),
      );
      assert.ok(error instanceof StoreReferenceError, String(error));
    });

    await step(`${kind}: codes are single use: of 5 concurrent consumptions exactly one is ok`, async () => {
      const code = await store.insert_code({
        code_hash: uid("code"),
        client_id: client.client_id,
        user_id: user.id,
        redirect_uri: "https://rp.example/cb",
        scope: "openid profile",
        auth_time: T0,
        amr: ["pwd", "otp"],
        claims: { userinfo: { email: { essential: true } } },
        grant_id: uid("grant"),
        created_at: T0,
        expires_at: T0 + 60,
      });
      assert.deepEqual(await store.get_code(code.code_hash), code);
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => store.consume_code(code.code_hash, T0 + 1)));
      assert.deepEqual(results.map((r) => r.status).sort(), ["ok", "reused", "reused", "reused", "reused"]);
      const ok = results.find((r) => r.status === "ok");
      assert.ok(ok?.status === "ok" && ok.code.consumed_at === T0 + 1 && ok.code.amr.join() === "pwd,otp");
    });

    await step(`${kind}: tokens: expiry and rotation of a refresh token, revocation by grant`, async () => {
      const grant_id = uid("grant");
      const refresh = await store.insert_token({
        token_hash: uid("rt"),
        kind: "refresh",
        client_id: client.client_id,
        user_id: user.id,
        scope: "openid offline_access",
        grant_id,
        family_id: uid("family"),
        amr: ["pwd"],
        created_at: T0,
        expires_at: T0 + 100,
      });
      const access = await store.insert_token({
        token_hash: uid("at"),
        kind: "access",
        client_id: client.client_id,
        user_id: user.id,
        scope: "openid",
        grant_id,
        created_at: T0,
        expires_at: T0 + 60,
      });
      assert.deepEqual(await store.get_token(access.token_hash), access);
      assert.equal((await store.rotate_refresh_token(refresh.token_hash, T0 + 101)).status, "expired");
      assert.equal((await store.rotate_refresh_token(refresh.token_hash, T0 + 10)).status, "ok");
      assert.equal((await store.rotate_refresh_token(refresh.token_hash, T0 + 11)).status, "reused");
      assert.equal(await store.revoke_by_grant(grant_id, T0 + 12), 2);
      assert.equal((await store.get_token(access.token_hash))?.revoked_at, T0 + 12);
    });

    await step(`${kind}: groups: members, a user's groups, member counts as numbers`, async () => {
      const group = await store.create_group({ name: uid("staff") });
      assert.equal(await store.add_group_member(group.id, user.id, T0), true);
      assert.equal(await store.add_group_member(group.id, user.id, T0), false);
      const members = await store.list_group_members(group.id);
      assert.deepEqual(members, [{ user_id: user.id, username: user.username, added_at: T0 }]);
      assert.deepEqual(await store.list_user_groups(user.id), [group.name]);
      const summary = (await store.list_groups()).find((g) => g.id === group.id);
      assert.equal(summary?.members, 1);
    });

    await step(`${kind}: limit counters: hits in a window, a reservation refused at the limit, release`, async () => {
      const key = uid("limit");
      assert.deepEqual(await store.hit(key, 60, T0), { count: 1, reset_at: T0 + 60 });
      assert.deepEqual(await store.hit(key, 60, T0 + 1), { count: 2, reset_at: T0 + 60 });
      assert.deepEqual(await store.reserve(key, 2, 60, T0 + 2), { allowed: false, count: 2, reset_at: T0 + 60 });
      await store.release(key, T0 + 60);
      assert.deepEqual(await store.reserve(key, 2, 60, T0 + 3), { allowed: true, count: 2, reset_at: T0 + 60 });
      assert.deepEqual(await store.hit(key, 60, T0 + 61), { count: 1, reset_at: T0 + 121 });
    });

    await step(`${kind}: passkeys: booleans stored and read back; a counter that does not grow is refused`, async () => {
      const passkey = await store.create_passkey({
        credential_id: uid("cred"),
        user_id: user.id,
        public_key: "pk",
        counter: 5,
        transports: ["usb", "nfc"],
        backup_eligible: true,
        backup_state: false,
        aaguid: null,
        name: "Key",
      });
      assert.deepEqual(await store.get_passkey_by_credential_id(passkey.credential_id), passkey);
      assert.equal(await store.use_passkey(passkey.id, 6, true, T0), true);
      assert.equal(await store.use_passkey(passkey.id, 6, false, T0 + 1), false);
      const read = await store.get_passkey_by_credential_id(passkey.credential_id);
      assert.equal(read?.backup_state, true);
      assert.equal(read?.backup_eligible, true);
      const page = await store.browse_users({ q: user.username, second_factor: true, sort: "username", limit: 10, offset: 0 });
      assert.deepEqual(
        page.users.map((u) => u.id),
        [user.id],
      );
    });

    await step(`${kind}: mail outbox: a claim holds a lease; a lapsed one is claimed again; the outcome is fenced by attempts`, async () => {
      const mail = await store.enqueue_mail({
        recipient: "ada@example.test",
        template: "verify",
        subject: "Hi",
        text: "t",
        html: "<p>h</p>",
        give_up_at: T0 + 3600,
        created_at: T0,
        next_attempt_at: T0,
      });
      const [claimed] = await store.claim_mail(T0, { lease_seconds: 60, id: mail.id });
      assert.equal(claimed?.status, "sending");
      assert.equal(claimed?.attempts, 1);
      assert.equal(claimed?.locked_until, T0 + 60);
      assert.deepEqual(await store.claim_mail(T0 + 30, { lease_seconds: 60, id: mail.id }), []);
      const [again] = await store.claim_mail(T0 + 61, { lease_seconds: 60, id: mail.id });
      assert.equal(again?.attempts, 2);
      assert.equal(await store.mark_mail_sent(mail.id, 1, T0 + 62), false);
      assert.equal(await store.mark_mail_sent(mail.id, 2, T0 + 62), true);
      assert.equal((await store.get_mail(mail.id))?.status, "sent");
    });

    await step(`${kind}: audit: JSON details; sign-ins per day are whole days (integer division)`, async () => {
      const from = T0 - 86_400 * 3;
      for (const at of [from + 10, from + 86_400 + 5, from + 86_400 + 7_000]) {
        await store.add_audit_event({ type: "login", outcome: "failure", at, client_id: client.client_id, details: { reason: "bad_password", tries: [1, 2] } });
      }
      const events = await store.list_audit_events({ client_id: client.client_id });
      assert.deepEqual(events[0]?.details, { reason: "bad_password", tries: [1, 2] });
      const stats = await store.sign_in_stats({ failures_since: from, days_from: from, top: 5 });
      assert.deepEqual(stats.days, [
        { day: 0, successes: 0, failures: 1 },
        { day: 1, successes: 0, failures: 2 },
      ]);
      assert.deepEqual(
        stats.failed_by_client.find((row) => row.key === client.client_id),
        { key: client.client_id, count: 3 },
      );
    });
  } finally {
    await store.close();
  }

  await step(`${kind}: purge removes what expired, and only that`, async () => {
    const fresh = await open();
    try {
      const owner = await fresh.create_client({ client_id: uid("client"), metadata: { redirect_uris: ["https://rp.example/cb"] } });
      const token = (expires_at: number) => ({
        token_hash: uid("t"),
        kind: "access" as const,
        client_id: owner.client_id,
        scope: "openid",
        grant_id: uid("g"),
        created_at: T0,
        expires_at,
      });
      const expired = await fresh.insert_token(token(T0 + 10));
      const live = await fresh.insert_token(token(T0 + 10_000));
      const counts = await fresh.purge_expired(T0 + 100);
      assert.ok(counts.tokens >= 1);
      assert.equal(await fresh.get_token(expired.token_hash), null);
      assert.deepEqual(await fresh.get_token(live.token_hash), live);
    } finally {
      await fresh.close();
    }
  });

  await step(`${kind}: a closed store refuses calls with StoreUnavailableError`, async () => {
    const closing = await open();
    await closing.close();
    assert.ok((await rejection(closing.get_user_by_id("x"))) instanceof StoreUnavailableError);
  });
}

async function check_sqlite(dir: string): Promise<void> {
  assert.equal((await load_sqlite_driver()).name, "node:sqlite");
  const path = join(dir, "idp.db");
  await check_store("sqlite", `sqlite:${path}`, (options) => open_store(`sqlite:${path}`, options));
}

async function check_postgres(server: string, closed_port: string | undefined): Promise<void> {
  assert.equal((await load_postgres_driver()).name, "postgres.js");
  const name = `idp_deno_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  try {
    await check_store("postgres", url.toString(), (options) => open_store(url.toString(), { max: 4, ...options }));

    await step("postgres: objects and arrays are stored as jsonb objects and arrays, not as JSON strings", async () => {
      // A JSON string holding the text of an object would read back the same through codec.ts.
      const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        const [row] = await db`
          SELECT (SELECT array_agg(DISTINCT jsonb_typeof(metadata)) FROM clients) AS metadata,
                 (SELECT array_agg(DISTINCT jsonb_typeof(amr)) FROM tokens) AS amr,
                 (SELECT array_agg(DISTINCT jsonb_typeof(transports)) FROM passkeys) AS transports,
                 (SELECT array_agg(DISTINCT jsonb_typeof(details)) FROM audit_events) AS details`;
        assert.deepEqual({ ...row }, { metadata: ["object"], amr: ["array"], transports: ["array"], details: ["object"] });
      } finally {
        await db.end({ timeout: 1 });
      }
    });

    await step("postgres: connections killed by the server (pg_terminate_backend) are replaced; calls still succeed", async () => {
      const store = await open_store(url.toString(), { max: 3 });
      try {
        const user = await store.create_user({ username: uid("kill"), password_hash: "x" });
        await Promise.all([1, 2, 3, 4, 5, 6].map(() => store.ping()));
        const [killed] = await admin`SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`;
        assert.ok(Number(killed?.n) > 0);
        const reads = await Promise.all([1, 2, 3, 4, 5].map(() => store.get_user_by_id(user.id)));
        assert.deepEqual(reads, Array(5).fill(user));
      } finally {
        await store.close();
      }
    });

    if (closed_port !== undefined) {
      await step("postgres: a server that refuses connections is StoreUnavailableError (Deno's socket errors)", async () => {
        const refused = new URL(url);
        refused.port = closed_port;
        const error = await rejection(open_store(refused.toString(), { connection_timeout: 2 }));
        assert.ok(error instanceof StoreUnavailableError, String(error));
      });
    }
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end({ timeout: 1 });
  }
}

assert.equal(RUNTIME, "deno", "run this script with deno: deno_drivers.test.ts does");
stand_in_for_the_platform();
const dir = process.env.STORE_CHECK_DIR;
assert.ok(dir, "STORE_CHECK_DIR: an empty directory for the SQLite file");
await check_sqlite(dir);
const server = process.env.STORE_CHECK_POSTGRES;
if (server === undefined || server === "") console.log("skip: postgres (STORE_CHECK_POSTGRES is not set)");
else await check_postgres(server, process.env.STORE_CHECK_CLOSED_PORT);
console.log("all store checks passed on Deno");
