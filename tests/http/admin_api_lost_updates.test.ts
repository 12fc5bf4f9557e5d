/**
 * If-Match prevents lost updates (RFC 9110 §13.1.1, SECURITY.md "Admin API"): requests sent at
 * once with the same ETag are checked against the same row, and the write is compare-and-set on
 * the version that was checked (store/types/common.ts IfVersion), so exactly one PATCH wins and
 * the others are answered 412, never all 200 with the last write silently replacing the others.
 * Likewise a DELETE with an ETag a PATCH just outdated. Through real HTTP with a real admin
 * token, on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { test_databases } from "../store/pg.ts";

const API = "/admin/api/v1";
const WRITERS = 10;

const databases = await test_databases();

for (const database of databases) {
  describe(`admin API: If-Match prevents lost updates (${database.name})`, () => {
    let cli: Sandbox;
    let op: TestProvider;
    let drop: () => Promise<void>;
    let token: string;

    const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${token}`, ...options.headers };
      if (options.body !== undefined) headers["content-type"] = "application/json";
      return fetch(`${op.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    };
    const etag_of = async (path: string) => (await call("GET", path)).headers.get("etag")!;

    /** Sends WRITERS PATCHes of `path` at once, each with its own body and the same If-Match; returns the statuses and the winner's body. */
    const race = async (path: string, body: (i: number) => Record<string, unknown>) => {
      const etag = await etag_of(path);
      const answers = await Promise.all(Array.from({ length: WRITERS }, (_, i) => call("PATCH", path, { body: body(i), headers: { "if-match": etag } })));
      const bodies = await Promise.all(answers.map(async (res) => ({ status: res.status, code: (await res.json()) as Record<string, unknown> })));
      const statuses = bodies.map((b) => b.status).sort();
      const winner = bodies.find((b) => b.status === 200)?.code;
      for (const lost of bodies.filter((b) => b.status !== 200)) expect(lost.code.code).toBe("precondition_failed");
      return { statuses, winner };
    };
    const one_winner = [200, ...Array<number>(WRITERS - 1).fill(412)];

    beforeAll(async () => {
      cli = sandbox();
      const db = await database.url();
      drop = db.drop;
      if (db.url !== "") cli.env.DATABASE_URL = db.url;
      const added = await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"]);
      expect(added.stderr).toBe("");
      const admin = added.json<{ client_id: string; client_secret: string }>();
      op = await start_provider({ database_url: cli.env.DATABASE_URL! });
      const res = await fetch(`${op.url}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`${admin.client_id}:${admin.client_secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      token = ((await res.json()) as { access_token: string }).access_token;
    });

    afterAll(async () => {
      await op?.stop();
      cli?.cleanup();
      await drop?.();
    });

    test("ten concurrent PATCHes of one user with the same If-Match: exactly one 200, 412 for the rest; the winner's change is the one stored", async () => {
      const user = await op.store.create_user({ username: `racer-${database.name}`, password_hash: "" });
      const path = `${API}/users/${user.id}`;
      const { statuses, winner } = await race(path, (i) => ({ name: `Writer ${i}` }));
      expect(statuses).toEqual(one_winner);
      expect((await op.store.get_user_by_id(user.id))!.name).toBe(winner!.name as string);
      // The ETag the winner answered is current: the next change with it succeeds.
      expect((await call("PATCH", path, { body: { name: "After" }, headers: { "if-match": await etag_of(path) } })).status).toBe(200);
    });

    test("ten concurrent PATCHes of one client with the same If-Match: exactly one 200, 412 for the rest", async () => {
      const { client } = await op.add_client({ client_name: "racing", grant_types: ["client_credentials"], response_types: [], redirect_uris: [] });
      const path = `${API}/clients/${client.client_id}`;
      const { statuses, winner } = await race(path, (i) => ({ client_name: `Writer ${i}` }));
      expect(statuses).toEqual(one_winner);
      expect((await op.store.get_client(client.client_id))!.metadata.client_name).toBe(winner!.client_name as string);
    });

    test("ten concurrent PATCHes of one upstream with the same If-Match: exactly one 200, 412 for the rest", async () => {
      const created = await call("POST", `${API}/upstreams`, { body: { name: `race-${database.name}`, kind: "oidc", issuer: "https://sso.example.com", client_id: "our-client" } });
      expect(created.status).toBe(201);
      const path = `${API}/upstreams/race-${database.name}`;
      const { statuses, winner } = await race(path, (i) => ({ display_name: `Writer ${i}` }));
      expect(statuses).toEqual(one_winner);
      expect((await op.store.get_upstream(`race-${database.name}`))!.display_name).toBe(winner!.display_name as string);
    });

    test("a PATCH and a DELETE sent at once with the same If-Match: one wins; a DELETE that lost is 412 (the user changed), a PATCH that lost is 404 (gone)", async () => {
      const user = await op.store.create_user({ username: `doomed-${database.name}`, password_hash: "" });
      const path = `${API}/users/${user.id}`;
      const etag = await etag_of(path);
      const [patched, deleted] = await Promise.all([
        call("PATCH", path, { body: { name: "Kept?" }, headers: { "if-match": etag } }),
        call("DELETE", path, { headers: { "if-match": etag } }),
      ]);
      expect({ patched: patched.status, deleted: deleted.status }).toEqual(patched.status === 200 ? { patched: 200, deleted: 412 } : { patched: 404, deleted: 204 });
      expect((await op.store.get_user_by_id(user.id)) === null).toBe(deleted.status === 204);
    });
  });
}
