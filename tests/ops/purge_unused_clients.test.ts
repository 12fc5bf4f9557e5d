/**
 * The background purge deletes the clients registered anonymously (IDP_REGISTRATION=open) that
 * were never issued a token, `registration_unused_client_days` (30) after they registered, and
 * audits each (oidc/registration/unused_clients.ts); a used client, a client registered with an
 * initial access token, and a recent one stay. A running server with an injected clock, on
 * SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { open_store } from "../../src/store/open.ts";
import { WEB_CLIENT, registered } from "../http/register_helpers.ts";
import { token_request } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { setTimeout as sleep } from "node:timers/promises";

const DAY = 24 * 3600;

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(50);
  }
}

function unused_clients_suite(name: string, database: () => Promise<{ url: string; drop(): Promise<void> }>) {
  describe(`the purge of anonymous clients never used, on ${name}`, () => {
    let t: TestProvider;
    let db: { url: string; drop(): Promise<void> };
    const logs: Record<string, unknown>[] = [];
    let by_token = "";

    beforeAll(async () => {
      db = await database();
      // First a server where registration needs an initial access token registers one client ...
      const token_server = await start_provider({ database_url: db.url, config: { registration: "token" } });
      try {
        const token = random_token(32);
        await token_server.store.create_initial_access_token({ token_hash: sha256(token), expires_at: null });
        by_token = (await registered(token_server, { ...WEB_CLIENT, client_name: "By token" }, { token })).client_id;
      } finally {
        await token_server.stop();
      }
      // ... then the same database opens for anyone (the seeded user and client made again).
      const store = await open_store(db.url);
      await store.delete_user((await store.get_user_by_username("alice"))!.id);
      await store.delete_client("test-app");
      await store.close();
      t = await start_provider({ database_url: db.url, config: { registration: "open", purge_interval_seconds: 1 }, log: (line) => void logs.push(line) });
    }, 30_000);
    afterAll(async () => {
      await t?.stop();
      await db?.drop();
    });

    test("deleted 30 days after registering when never used, audited; a used one, a token-registered one and a recent one stay", async () => {
      const unused = (await registered(t, { ...WEB_CLIENT, client_name: "Never used" })).client_id;
      const service = await registered(t, { client_name: "Used", grant_types: ["client_credentials"], response_types: [], token_endpoint_auth_method: "client_secret_basic" });
      expect((await token_request(t, { grant_type: "client_credentials" }, { method: "basic", client_id: service.client_id, secret: service.client_secret! })).status).toBe(200);
      const exists = async (client_id: string) => (await t.store.get_client(client_id)) !== null;

      // A minute short of 30 days: two purge runs go by and nothing is deleted.
      t.clock.advance(30 * DAY - 60);
      await sleep(2_200);
      expect(await exists(unused)).toBe(true);
      expect(logs.filter((l) => l.msg === "deleted clients never used")).toEqual([]);

      // Past 30 days: the next run deletes the one never used.
      t.clock.advance(120);
      const recent = (await registered(t, { ...WEB_CLIENT, client_name: "Recent" })).client_id;
      await eventually(async () => !(await exists(unused)));
      await eventually(async () => logs.some((l) => l.msg === "deleted clients never used"));
      expect(logs.find((l) => l.msg === "deleted clients never used")).toMatchObject({ clients: 1 });
      expect({ used: await exists(service.client_id), by_token: await exists(by_token), recent: await exists(recent) }).toEqual({ used: true, by_token: true, recent: true });
      const events = await t.store.list_audit_events({ client_id: unused, type: "client_deleted" });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ outcome: "success", user_id: null, details: { client_name: "Never used", reason: "never_used", days: 30, via: "purge" } });
      expect(logs.filter((l) => l.msg === "purge failed")).toEqual([]);
    }, 20_000);
  });
}

unused_clients_suite("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-unused-clients-"));
  return { url: `sqlite:${join(dir, "idp.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
});
if (await use_postgres()) unused_clients_suite("PostgreSQL", create_temp_database);
