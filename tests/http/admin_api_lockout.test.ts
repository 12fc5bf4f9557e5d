/**
 * No lockout through the admin API (oidc/admin/lockout.ts): the last active administrator (the
 * only active member of the admin group) is neither disabled nor deleted (409 problems that say
 * why); with a second active administrator both work. A disabled member does not count.
 * SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { test_databases } from "../store/pg.ts";

const API = "/admin/api/v1";

const databases = await test_databases();

for (const database of databases) {
  describe(`admin API: the last administrator stays (${database.name})`, () => {
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
    const disable = async (id: string) => call("PATCH", `${API}/users/${id}`, { body: { status: "disabled" }, headers: { "if-match": await etag_of(`${API}/users/${id}`) } });
    const remove = async (id: string) => call("DELETE", `${API}/users/${id}`, { headers: { "if-match": await etag_of(`${API}/users/${id}`) } });

    beforeAll(async () => {
      cli = sandbox();
      const db = await database.url();
      drop = db.drop;
      if (db.url !== "") cli.env.DATABASE_URL = db.url;
      const admin = (await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"])).json<{
        client_id: string;
        client_secret: string;
      }>();
      op = await start_provider({ database_url: cli.env.DATABASE_URL! });
      const answer = await fetch(`${op.url}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`${admin.client_id}:${admin.client_secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      token = ((await answer.json()) as { access_token: string }).access_token;
    });

    afterAll(async () => {
      await op?.stop();
      cli?.cleanup();
      await drop?.();
    });

    test("the last active administrator is neither disabled nor deleted; the problem says why", async () => {
      const admins = await op.store.create_group({ name: "admins", description: null });
      const root = await op.add_user({ username: "root" });
      const gone = await op.add_user({ username: "gone", status: "disabled" });
      await op.store.add_group_member(admins.id, root.id);
      await op.store.add_group_member(admins.id, gone.id);
      for (const answer of [await disable(root.id), await remove(root.id)]) {
        expect(answer.status).toBe(409);
        const problem = (await answer.json()) as { code: string; detail: string };
        expect(problem.code).toBe("conflict");
        expect(problem.detail).toContain("root is the last active administrator");
      }
      expect((await op.store.get_user_by_id(root.id))!.status).toBe("active");
    });

    test("with a second active administrator, one of them can be disabled and deleted", async () => {
      const admins = (await op.store.get_group_by_name("admins"))!;
      const second = await op.add_user({ username: "second" });
      await op.store.add_group_member(admins.id, second.id);
      const root = (await op.store.get_user_by_username("root"))!;
      expect((await disable(root.id)).status).toBe(200);
      // Now `second` is the last one.
      expect((await remove(second.id)).status).toBe(409);
      expect((await remove(root.id)).status).toBe(204);
      expect(await op.store.get_user_by_id(second.id)).not.toBeNull();
    });
  });
}
