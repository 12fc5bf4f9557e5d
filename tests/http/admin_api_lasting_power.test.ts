/**
 * A leaked admin token cannot mint lasting admin credentials (SECURITY.md, "Admin API"): through
 * /admin/api/v1 the credentials of an admin-flagged client, the membership of the console's admin
 * group and the ways into an admin's account do not change (403 problems that say where they
 * can); the command line can. The configured admin group is never deleted. SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { test_databases } from "../store/pg.ts";

const API = "/admin/api/v1";
type Problem = { status: number; code: string; detail: string };

const databases = await test_databases();

for (const database of databases) {
  describe(`admin API: no lasting admin power from an admin token (${database.name})`, () => {
    let cli: Sandbox;
    let op: TestProvider;
    let drop: () => Promise<void>;
    let admin: { client_id: string; client_secret: string };
    let token: string;

    const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${token}`, ...options.headers };
      if (options.body !== undefined) headers["content-type"] = "application/json";
      return fetch(`${op.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    };
    const problem = async (res: Response, status: number): Promise<Problem> => {
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toStartWith("application/problem+json");
      return (await res.json()) as Problem;
    };
    const etag_of = async (path: string) => (await call("GET", path)).headers.get("etag")!;
    const client_token = (id: string, secret: string) =>
      fetch(`${op.url}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`${id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });

    beforeAll(async () => {
      cli = sandbox();
      const db = await database.url();
      drop = db.drop;
      if (db.url !== "") cli.env.DATABASE_URL = db.url;
      admin = (await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"])).json<{ client_id: string; client_secret: string }>();
      op = await start_provider({ database_url: cli.env.DATABASE_URL!, config: { admin_console: { helpdesk_group: "helpdesk", auditor_group: "auditors" } } });
      token = ((await (await client_token(admin.client_id, admin.client_secret)).json()) as { access_token: string }).access_token;
      await op.store.create_group({ name: "admins", description: null });
      await op.store.create_group({ name: "staff", description: null });
      await op.store.create_group({ name: "helpdesk", description: null });
      await op.store.create_group({ name: "auditors", description: null });
    });

    afterAll(async () => {
      await op?.stop();
      cli?.cleanup();
      await drop?.();
    });

    test("an admin client's secret cannot be rotated through the API; the old secret keeps working", async () => {
      const refused = await problem(await call("POST", `${API}/clients/${admin.client_id}/rotate-secret`), 403);
      expect(refused.code).toBe("forbidden");
      expect(refused.detail).toContain("admin console");
      expect((await client_token(admin.client_id, admin.client_secret)).status).toBe(200);
    });

    test("an admin client's authentication method and keys do not change through the API; its name does", async () => {
      const path = `${API}/clients/${admin.client_id}`;
      const jwks = { keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }] };
      for (const body of [
        { token_endpoint_auth_method: "private_key_jwt", jwks },
        { jwks_uri: "https://attacker.example/jwks" },
        { token_endpoint_auth_method: "client_secret_post" },
      ]) {
        const refused = await problem(await call("PATCH", path, { body, headers: { "if-match": await etag_of(path) } }), 403);
        expect(refused.code).toBe("forbidden");
      }
      const renamed = await call("PATCH", path, {
        body: { client_name: "ops 2", token_endpoint_auth_method: "client_secret_basic" },
        headers: { "if-match": await etag_of(path) },
      });
      expect(renamed.status).toBe(200);
      expect((await op.store.get_client(admin.client_id))!.metadata.token_endpoint_auth_method ?? "client_secret_basic").toBe("client_secret_basic");
    });

    test("a client without the flag still gets a new secret through the API", async () => {
      const made = (await cli.run(["clients", "add", "--name", "worker", "--grant-type", "client_credentials", "--json"])).json<{ client_id: string }>();
      const rotated = await call("POST", `${API}/clients/${made.client_id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      const { client_secret } = (await rotated.json()) as { client_secret: string };
      expect((await client_token(made.client_id, client_secret)).status).toBe(200);
    });

    test("nobody joins or leaves the admin group through the API; other groups change as before", async () => {
      const mallory = await op.add_user({ username: "mallory" });
      const refused = await problem(await call("PUT", `${API}/groups/admins/members/mallory`), 403);
      expect(refused.code).toBe("forbidden");
      expect(await op.store.list_user_groups(mallory.id)).toEqual([]);
      await cli.run(["groups", "members", "add", "admins", "mallory"]);
      expect(await op.store.list_user_groups(mallory.id)).toEqual(["admins"]);
      await problem(await call("DELETE", `${API}/groups/ADMINS/members/mallory`), 403);
      expect(await op.store.list_user_groups(mallory.id)).toEqual(["admins"]);
      expect((await call("PUT", `${API}/groups/staff/members/mallory`)).status).toBe(201);
    });

    test("nobody joins the console's delegated roles (helpdesk, auditors) through the API either", async () => {
      const eve = await op.add_user({ username: "eve" });
      for (const group of ["helpdesk", "auditors"]) {
        expect((await problem(await call("PUT", `${API}/groups/${group}/members/eve`), 403)).code).toBe("forbidden");
      }
      expect(await op.store.list_user_groups(eve.id)).toEqual([]);
    });

    test("an admin's e-mail and second factors do not change through the API; another user's do", async () => {
      const alice = await op.add_user({ username: "alice-admin", email: "alice@example.com", email_verified: true });
      expect((await cli.run(["groups", "members", "add", "admins", "alice-admin"])).code).toBe(0);
      const path = `${API}/users/${alice.id}`;
      for (const body of [{ email: "attacker@example.net" }, { email_verified: false }]) {
        expect((await problem(await call("PATCH", path, { body, headers: { "if-match": await etag_of(path) } }), 403)).code).toBe("forbidden");
      }
      expect((await problem(await call("POST", `${path}/reset-second-factors`), 403)).code).toBe("forbidden");
      expect((await op.store.get_user_by_id(alice.id))!.email).toBe("alice@example.com");
      const named = await call("PATCH", path, { body: { name: "Alice" }, headers: { "if-match": await etag_of(path) } });
      expect(named.status).toBe(200);
      const bob = await op.add_user({ username: "bob-staff", email: "bob@example.com", email_verified: true });
      const other = `${API}/users/${bob.id}`;
      expect((await call("PATCH", other, { body: { email: "bob@example.org" }, headers: { "if-match": await etag_of(other) } })).status).toBe(200);
    });

    test("the configured admin group cannot be deleted: not through the API, not by the command line", async () => {
      const refused = await problem(await call("DELETE", `${API}/groups/admins`), 409);
      expect(refused.detail).toContain("IDP_ADMIN_GROUP");
      const cli_refused = await cli.run(["groups", "remove", "admins"]);
      expect(cli_refused.code).toBe(1);
      expect(cli_refused.stderr).toContain("admin group");
      expect(await op.store.get_group_by_name("admins")).not.toBeNull();
      expect((await call("DELETE", `${API}/groups/staff`)).status).toBe(204);
    });

    test("every refusal is audited as the admin client's call", async () => {
      const events = await op.store.list_audit_events({ type: "admin_api" });
      expect(events.some((event) => event.client_id === admin.client_id && event.details?.status === 403)).toBe(true);
    });
  });
}
