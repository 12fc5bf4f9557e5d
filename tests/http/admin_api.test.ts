/**
 * The admin REST API through real HTTP with real tokens, on SQLite and PostgreSQL: an admin
 * client made by `idp clients add --admin` gets a token with the admin scope from
 * client_credentials; other tokens are refused; problem documents (RFC 9457), ETags with
 * If-Match, cursor pages, the audit trail and the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { is_endpoint_class } from "../../src/fw/endpoint.ts";
import { build_items } from "../../src/http/routes.ts";
import { check_scope } from "../../src/oidc/claims/scopes.ts";
import { sign_in_refusal } from "../../src/oidc/accounts/account_status.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { test_databases } from "../store/pg.ts";

const API = "/admin/api/v1";

type Problem = { type: string; title: string; status: number; detail: string; instance: string; code: string; errors?: { field: string; message: string }[] };

function basic(id: string, secret: string): string {
  return `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;
}

test("the authorization endpoint's scope check never grants admin, whatever the client registered", () => {
  expect(check_scope("openid admin", { scope: "openid admin" })).toMatchObject({ ok: false, error: "invalid_scope" });
  expect(check_scope("openid admin", {})).toMatchObject({ ok: false, error: "invalid_scope" });
});

const databases = await test_databases();

for (const database of databases) {
  describe(`admin API (${database.name})`, () => {
    let cli: Sandbox;
    let op: TestProvider;
    let drop: () => Promise<void>;
    let admin: { client_id: string; client_secret: string };
    let token: string;

    const call = (method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string | null } = {}) => {
      const headers: Record<string, string> = { accept: "application/json", ...options.headers };
      const bearer = options.token === undefined ? token : options.token;
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
      let body: string | undefined;
      if (options.raw !== undefined || options.body !== undefined) {
        headers["content-type"] = "application/json";
        body = options.raw ?? JSON.stringify(options.body);
      }
      return fetch(`${op.url}${path}`, { method, headers, body });
    };

    const client_token = async (client_id: string, secret: string, scope?: string) => {
      const form = new URLSearchParams({ grant_type: "client_credentials", ...(scope !== undefined && { scope }) });
      const res = await fetch(`${op.url}/token`, {
        method: "POST",
        headers: { authorization: basic(client_id, secret), "content-type": "application/x-www-form-urlencoded" },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };

    const problem = async (res: Response, status: number): Promise<Problem> => {
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toStartWith("application/problem+json");
      const body = (await res.json()) as Problem;
      expect(body).toMatchObject({ type: "about:blank", status });
      expect(typeof body.title).toBe("string");
      expect(typeof body.detail).toBe("string");
      return body;
    };

    beforeAll(async () => {
      cli = sandbox();
      const db = await database.url();
      drop = db.drop;
      if (db.url !== "") cli.env.DATABASE_URL = db.url;
      const database_url = cli.env.DATABASE_URL!;
      // The migrations run once, by the CLI, before the server opens the same database.
      const added = await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"]);
      expect(added.stderr).toBe("");
      admin = added.json();
      expect(admin).toMatchObject({ admin: true, scope: "admin" });
      op = await start_provider({ database_url });
      const issued = await client_token(admin.client_id, admin.client_secret);
      expect(issued.status).toBe(200);
      expect(issued.body.scope).toBe("admin");
      token = issued.body.access_token!;
    });

    afterAll(async () => {
      await op?.stop();
      cli?.cleanup();
      await drop?.();
    });

    test("no token: 401 problem with a Bearer challenge; a bad token: invalid_token", async () => {
      const none = await call("GET", `${API}/users`, { token: null });
      const body = await problem(none, 401);
      expect(body.code).toBe("unauthorized");
      // RFC 6750 §3.1: no error code in the challenge when no token was sent.
      expect(none.headers.get("www-authenticate")).not.toContain("error=");
      // Unknown paths too: nothing under /admin/api is told to a caller without a token.
      await problem(await call("GET", `${API}/nothing-here`, { token: null }), 401);
      expect((await problem(await call("GET", `${API}/nothing-here`), 404)).code).toBe("not_found");
      expect((await problem(await call("PUT", `${API}/users`, { body: {} }), 405)).code).toBe("method_not_allowed");
      expect(none.headers.get("www-authenticate")).toStartWith("Bearer realm=");
      expect(none.headers.get("cache-control")).toBe("no-store");
      expect(body.instance).toBe(`${API}/users`);
      const bad = await call("GET", `${API}/users`, { token: "not-a-token-we-issued" });
      expect((await problem(bad, 401)).code).toBe("invalid_token");
      expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    });

    test("a token without the admin scope is refused (403 insufficient_scope); only a flagged client gets the scope", async () => {
      // Registered with the scope admin, but not flagged by an operator.
      const { client, secret } = await op.add_client({
        client_name: "reports",
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        scope: "admin reports",
      });
      const asked = await client_token(client.client_id, secret!, "admin");
      expect(asked.status).toBe(400);
      expect(asked.body.error).toBe("invalid_scope");
      const plain = await client_token(client.client_id, secret!);
      expect(plain.body.scope).toBe("reports");
      const res = await call("GET", `${API}/users`, { token: plain.body.access_token! });
      expect((await problem(res, 403)).code).toBe("insufficient_scope");
      expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
      // The attempt is in the audit log, with the client whose token it was.
      const attempts = await op.store.list_audit_events({ type: "admin_api", client_id: client.client_id });
      expect(attempts.map((e) => [e.outcome, e.details?.status])).toEqual([["failure", 403]]);
    });

    test("users: create, read with an ETag, PATCH needs the current ETag (428, 412), delete", async () => {
      const created = await call("POST", `${API}/users`, { body: { username: "bob", password: "a long enough passphrase 42", email: "bob@example.com", name: "Bob" } });
      expect(created.status).toBe(201);
      const bob = (await created.json()) as { id: string; username: string; status: string; email_verified: boolean; groups: string[] };
      expect(bob).toMatchObject({ username: "bob", status: "active", email_verified: false, groups: [] });
      expect(bob).not.toHaveProperty("password_hash");
      expect(created.headers.get("location")).toBe(`${API}/users/${bob.id}`);

      const read = await call("GET", `${API}/users/${bob.id}`);
      const etag = read.headers.get("etag")!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(created.headers.get("etag")).toBe(etag);
      // By username too.
      expect(((await (await call("GET", `${API}/users/bob`)).json()) as { id: string }).id).toBe(bob.id);

      expect((await problem(await call("PATCH", `${API}/users/${bob.id}`, { body: { name: "Robert" } }), 428)).code).toBe("precondition_required");
      const changed = await call("PATCH", `${API}/users/${bob.id}`, { body: { name: "Robert" }, headers: { "if-match": etag } });
      expect(changed.status).toBe(200);
      expect(((await changed.json()) as { name: string }).name).toBe("Robert");
      const new_etag = changed.headers.get("etag")!;
      expect(new_etag).not.toBe(etag);
      // The tag read before the change is stale now: refused, and nothing changes.
      expect((await problem(await call("PATCH", `${API}/users/${bob.id}`, { body: { name: "Bobby" }, headers: { "if-match": etag } }), 412)).code).toBe("precondition_failed");
      expect((await op.store.get_user_by_id(bob.id))!.name).toBe("Robert");

      expect((await problem(await call("DELETE", `${API}/users/${bob.id}`, { headers: { "if-match": etag } }), 412)).code).toBe("precondition_failed");
      const removed = await call("DELETE", `${API}/users/${bob.id}`, { headers: { "if-match": new_etag } });
      expect(removed.status).toBe(204);
      expect((await problem(await call("GET", `${API}/users/${bob.id}`), 404)).code).toBe("not_found");
    });

    test("bad input gets a problem naming the field, and changes nothing", async () => {
      const typed = await problem(await call("POST", `${API}/users`, { body: { username: "carol", password: "a long enough passphrase 42", email: 123 } }), 422);
      expect(typed.errors?.map((e) => e.field)).toEqual(["email"]);
      expect(typed.detail).toContain("email");
      const unknown = await problem(await call("POST", `${API}/users`, { body: { username: "carol", password: "a long enough passphrase 42", admin: true } }), 422);
      expect(unknown.errors?.[0]?.message).toContain("admin");
      const weak = await problem(await call("POST", `${API}/users`, { body: { username: "carol", password: "carol" } }), 422);
      expect(weak.errors?.map((e) => e.field)).toEqual(["password"]);
      const malformed = await problem(await call("POST", `${API}/users`, { raw: '{"username": "carol",' }), 400);
      expect(malformed.detail.length).toBeGreaterThan(0);
      const taken = await problem(await call("POST", `${API}/users`, { body: { username: "ALICE", password: "a long enough passphrase 42" } }), 409);
      expect(taken.errors?.map((e) => e.field)).toEqual(["username"]);
      expect(await op.store.get_user_by_username("carol")).toBeNull();
      const cursor = await problem(await call("GET", `${API}/users?cursor=nonsense`), 422);
      expect(cursor.errors?.map((e) => e.field)).toEqual(["cursor"]);
      expect((await problem(await call("GET", `${API}/users?limit=500`), 422)).errors?.map((e) => e.field)).toEqual(["limit"]);
    });

    test("malformed bodies and queries never give a 5xx, always a problem document", async () => {
      const bodies = [
        "[]",
        "null",
        "42",
        '"x"',
        "{",
        '{"username": {"a": 1}}',
        '{"username": "x", "password": ["p"]}',
        `{"name": "${"n".repeat(5000)}"}`,
        '{"__proto__": {"admin": true}}',
      ];
      const targets = [`${API}/users`, `${API}/clients`, `${API}/groups`, `${API}/keys/rotate`];
      for (const target of targets) {
        for (const raw of bodies) {
          const res = await call("POST", target, { raw });
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(res.headers.get("content-type")).toStartWith("application/problem+json");
        }
      }
      for (const query of ["limit=0", "limit=abc", "cursor=%00", "cursor=W10", "q=", "limit=1&limit=2"]) {
        const res = await call("GET", `${API}/users?${query}`);
        expect(res.status).toBe(422);
      }
    });

    test("users list: cursor pages in username order and a prefix search", async () => {
      for (const name of ["page-c", "page-a", "page-b"]) {
        expect((await call("POST", `${API}/users`, { body: { username: name, password: "a long enough passphrase 42", email: `${name}@pages.example` } })).status).toBe(201);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await call("GET", `${API}/users?q=page-&limit=2${cursor === null ? "" : `&cursor=${cursor}`}`);
        const page = (await res.json()) as { items: { username: string }[]; next_cursor: string | null };
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((u) => u.username));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(["page-a", "page-b", "page-c"]);
      const by_mail = (await (await call("GET", `${API}/users?q=ALICE@`)).json()) as { items: { username: string }[] };
      expect(by_mail.items.map((u) => u.username)).toEqual(["alice"]);
    });

    test("sessions listed and ended, grants listed and revoked with their tokens", async () => {
      const erin = await op.add_user({ username: "erin" });
      await op.store.create_session({ id_hash: `s-${erin.id}`, user_id: erin.id, auth_time: op.clock.now(), amr: ["pwd"], expires_at: op.clock.now() + 3600 });
      const sessions = (await (await call("GET", `${API}/users/${erin.id}/sessions`)).json()) as { items: { id: string; amr: string[] }[] };
      expect(sessions.items).toMatchObject([{ id: `s-${erin.id}`, amr: ["pwd"] }]);
      const ended = (await (await call("DELETE", `${API}/users/${erin.id}/sessions`)).json()) as { sessions_ended: number };
      expect(ended.sessions_ended).toBe(1);
      expect(await op.store.list_sessions_for_user(erin.id)).toEqual([]);

      await op.store.upsert_grant({ user_id: erin.id, client_id: op.client.client_id, scopes: ["openid", "profile"] });
      const grants = (await (await call("GET", `${API}/users/erin/grants`)).json()) as { items: { client_id: string; scopes: string[] }[] };
      expect(grants.items).toMatchObject([{ client_id: op.client.client_id, scopes: ["openid", "profile"] }]);
      expect((await call("DELETE", `${API}/users/erin/grants/${op.client.client_id}`)).status).toBe(204);
      expect(await op.store.get_grant(erin.id, op.client.client_id)).toBeNull();
      expect((await problem(await call("DELETE", `${API}/users/erin/grants/${op.client.client_id}`), 404)).code).toBe("not_found");
    });

    test("second factors reset; a reset link mailed (never in the answer)", async () => {
      const fay = await op.add_user({ username: "fay", email: "fay@example.com", totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: op.clock.now() });
      await op.store.set_recovery_codes(fay.id, ["code-hash-1"]);
      const reset = await call("POST", `${API}/users/fay/reset-second-factors`);
      expect(reset.status).toBe(200);
      const after = (await op.store.get_user_by_id(fay.id))!;
      expect([after.totp_secret, after.totp_enabled_at]).toEqual([null, null]);
      expect(await op.store.count_recovery_codes(fay.id)).toBe(0);
      expect((await problem(await call("POST", `${API}/users/fay/reset-second-factors`), 409)).code).toBe("conflict");

      const sent = await call("POST", `${API}/users/fay/send-reset`);
      expect(sent.status).toBe(202);
      const answer = await sent.text();
      expect(answer).not.toContain("http");
      const mail = await op.store.list_mail();
      expect(mail.some((m) => m.recipient === "fay@example.com" && m.template === "password_reset")).toBe(true);
      const nomail = await op.add_user({ username: "gus" });
      expect((await problem(await call("POST", `${API}/users/${nomail.id}/send-reset`), 409)).detail).toContain("e-mail");
    });

    test("second factors reset removes passkeys too, says so, and refuses only a user with neither", async () => {
      const passkey = (user_id: string, name: string) =>
        op.store.create_passkey({
          credential_id: `cred-${crypto.randomUUID()}`,
          user_id,
          public_key: "AA",
          counter: 0,
          transports: ["internal"],
          backup_eligible: false,
          backup_state: false,
          aaguid: null,
          name,
        });
      // A passkey as the only second factor (no authenticator app).
      const hal = await op.add_user({ username: "hal", email: "hal@example.com" });
      await passkey(hal.id, "Laptop");
      await passkey(hal.id, "Phone");
      await op.store.create_session({ id_hash: `s-${hal.id}`, user_id: hal.id, auth_time: op.clock.now(), amr: ["pwd", "hwk"], expires_at: op.clock.now() + 3600 });
      const reset = await call("POST", `${API}/users/hal/reset-second-factors`);
      expect(reset.status).toBe(200);
      expect(await reset.json()).toEqual({ totp_removed: false, passkeys_removed: 2, sessions_ended: 1, tokens_revoked: 0 });
      expect(await op.store.count_passkeys_for_user(hal.id)).toBe(0);
      expect(await op.store.list_sessions_for_user(hal.id)).toEqual([]);
      const events = await op.store.list_audit_events({ type: "admin_api", user_id: hal.id });
      expect(events.at(-1)?.details).toMatchObject({ action: "two_factor_removed", passkeys_removed: 2, totp_removed: false });
      // Nothing left: 409 naming both.
      expect((await problem(await call("POST", `${API}/users/hal/reset-second-factors`), 409)).detail).toContain("passkey");
      // TOTP and a passkey: both go.
      const ida = await op.add_user({ username: "ida", totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: op.clock.now() });
      await passkey(ida.id, "Key");
      const both = (await (await call("POST", `${API}/users/ida/reset-second-factors`)).json()) as Record<string, unknown>;
      expect(both).toMatchObject({ totp_removed: true, passkeys_removed: 1 });
      const after = (await op.store.get_user_by_id(ida.id))!;
      expect([after.totp_secret, after.totp_enabled_at, await op.store.count_passkeys_for_user(ida.id)]).toEqual([null, null, 0]);
    });

    test("disabling a user refuses sign-in and ends their sessions", async () => {
      const dave = await op.add_user({ username: "dave", email: "dave@example.com" });
      await op.store.create_session({ id_hash: `s-${dave.id}`, user_id: dave.id, auth_time: op.clock.now(), amr: ["pwd"], expires_at: op.clock.now() + 3600 });
      const etag = (await call("GET", `${API}/users/${dave.id}`)).headers.get("etag")!;
      const res = await call("PATCH", `${API}/users/${dave.id}`, { body: { status: "disabled" }, headers: { "if-match": etag } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe("disabled");
      expect(await op.store.list_sessions_for_user(dave.id)).toEqual([]);
      // The sign-in rules refuse the account from now on.
      expect(sign_in_refusal((await op.store.get_user_by_id(dave.id))!)?.status).toBe("disabled");
      const enabled = await call("PATCH", `${API}/users/${dave.id}`, { body: { status: "active" }, headers: { "if-match": res.headers.get("etag")! } });
      expect(((await enabled.json()) as { status: string }).status).toBe("active");
      const events = await op.store.list_audit_events({ type: "admin_api", user_id: dave.id });
      expect(events.map((e) => e.details?.action)).toContain("user_disabled");
    });

    test("clients: create answers the secret once (and it works), rotate, PATCH with If-Match, delete", async () => {
      const created = await call("POST", `${API}/clients`, {
        body: { client_name: "batch", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "reports" },
      });
      expect(created.status).toBe(201);
      const client = (await created.json()) as { client_id: string; client_secret: string; has_secret: boolean };
      expect(client.has_secret).toBe(true);
      expect((await client_token(client.client_id, client.client_secret)).status).toBe(200);
      const read = await call("GET", `${API}/clients/${client.client_id}`);
      expect(await read.clone().json()).not.toHaveProperty("client_secret");

      const rotated = (await (await call("POST", `${API}/clients/${client.client_id}/rotate-secret`)).json()) as { client_secret: string };
      expect((await client_token(client.client_id, client.client_secret)).status).toBe(401);
      expect((await client_token(client.client_id, rotated.client_secret)).status).toBe(200);

      const etag = (await call("GET", `${API}/clients/${client.client_id}`)).headers.get("etag")!;
      const bad = await problem(await call("PATCH", `${API}/clients/${client.client_id}`, { body: { redirect_uris: "x" }, headers: { "if-match": etag } }), 422);
      expect(bad.errors?.map((e) => e.field)).toEqual(["redirect_uris"]);
      const refused = await problem(
        await call("PATCH", `${API}/clients/${client.client_id}`, {
          body: { grant_types: ["authorization_code"], response_types: ["code"], redirect_uris: ["https://rp.example/cb#x"] },
          headers: { "if-match": etag },
        }),
        422,
      );
      expect(refused.errors?.map((e) => e.field)).toEqual(["redirect_uris"]);
      const patched = await call("PATCH", `${API}/clients/${client.client_id}`, { body: { client_name: "batch jobs" }, headers: { "if-match": etag } });
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({ client_name: "batch jobs", scope: "reports" });

      const listed = (await (await call("GET", `${API}/clients?limit=200`)).json()) as { items: { client_id: string }[] };
      expect(listed.items.map((c) => c.client_id)).toContain(client.client_id);
      expect((await call("DELETE", `${API}/clients/${client.client_id}`, { headers: { "if-match": patched.headers.get("etag")! } })).status).toBe(204);
      expect(await op.store.get_client(client.client_id)).toBeNull();

      // No secret ever reaches the audit log.
      const log = JSON.stringify(await op.store.list_audit_events({ limit: 10_000 }));
      expect(log).not.toContain(client.client_secret);
      expect(log).not.toContain(rotated.client_secret);
      expect(log).not.toContain(token);
    });

    test("groups and members", async () => {
      expect((await call("POST", `${API}/groups`, { body: { name: "operators", description: "on call" } })).status).toBe(201);
      expect((await problem(await call("POST", `${API}/groups`, { body: { name: "Operators" } }), 409)).code).toBe("conflict");
      expect((await call("PUT", `${API}/groups/operators/members/alice`)).status).toBe(201);
      expect((await call("PUT", `${API}/groups/operators/members/alice`)).status).toBe(200);
      const members = (await (await call("GET", `${API}/groups/operators/members`)).json()) as { items: { username: string }[] };
      expect(members.items.map((m) => m.username)).toEqual(["alice"]);
      expect((await call("DELETE", `${API}/groups/operators/members/alice`)).status).toBe(204);
      expect((await problem(await call("DELETE", `${API}/groups/operators/members/alice`), 404)).code).toBe("not_found");
      expect((await call("DELETE", `${API}/groups/operators`)).status).toBe(204);
    });

    test("signing keys: list and rotate", async () => {
      const before = (await (await call("GET", `${API}/keys`)).json()) as { items: { kid: string; status: string; alg: string }[] };
      const active = before.items.find((k) => k.alg === "ES256" && k.status === "active")!;
      const res = await call("POST", `${API}/keys/rotate`, { body: { alg: "ES256" } });
      expect(res.status).toBe(200);
      const rotated = (await res.json()) as { rotated: Record<string, string> };
      expect(rotated.rotated.ES256).toBeDefined();
      expect(rotated.rotated.ES256).not.toBe(active.kid);
      expect((await problem(await call("POST", `${API}/keys/rotate`, { body: { alg: "HS256" } }), 422)).errors?.map((e) => e.field)).toEqual(["alg"]);
    });

    test("every call is audited with the client that made it; the audit log filters by type, user, client and time, in pages", async () => {
      const events = (await (await call("GET", `${API}/audit-events?type=admin_api&client=${admin.client_id}&limit=200`)).json()) as {
        items: { type: string; client_id: string; client_name: string; details: { method: string; path: string; status: number } }[];
      };
      expect(events.items.length).toBeGreaterThan(10);
      expect(events.items.every((e) => e.type === "admin_api" && e.client_id === admin.client_id && e.client_name === "ops")).toBe(true);
      expect(events.items.some((e) => e.details.method === "PATCH" && e.details.status === 412)).toBe(true);
      const first = (await (await call("GET", `${API}/audit-events?type=admin_api&limit=1`)).json()) as { items: { id: number }[]; next_cursor: string };
      const second = (await (await call("GET", `${API}/audit-events?type=admin_api&limit=1&cursor=${first.next_cursor}`)).json()) as { items: { id: number }[] };
      expect(second.items[0]!.id).toBeLessThan(first.items[0]!.id);
      const future = (await (await call("GET", `${API}/audit-events?since=2999-01-01`)).json()) as { items: unknown[] };
      expect(future.items).toEqual([]);
      expect((await problem(await call("GET", `${API}/audit-events?type=nonsense`), 422)).errors?.map((e) => e.field)).toEqual(["type"]);
      const by_user = (await (await call("GET", `${API}/audit-events?user=dave&until=${op.clock.now() + 60}`)).json()) as { items: { username: string }[] };
      expect(by_user.items.length).toBeGreaterThan(0);
      expect(by_user.items.every((e) => e.username === "dave")).toBe(true);
    });

    test("an admin client (flagged by the command line, never by the API) loses its tokens' power at once when the flag goes", async () => {
      const refused = await problem(
        await call("POST", `${API}/clients`, { body: { client_name: "deputy", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], admin: true } }),
        422,
      );
      expect(refused.errors?.map((e) => e.field)).toEqual(["admin"]);
      const created = await cli.run(["clients", "add", "--name", "deputy", "--grant-type", "client_credentials", "--admin", "--json"]);
      expect(created.code).toBe(0);
      const deputy = created.json<{ client_id: string; client_secret: string; admin: boolean; scope: string }>();
      expect(deputy).toMatchObject({ admin: true, scope: "admin" });
      const issued = await client_token(deputy.client_id, deputy.client_secret);
      const deputy_token = issued.body.access_token!;
      expect((await call("GET", `${API}/keys`, { token: deputy_token })).status).toBe(200);
      const off = await cli.run(["clients", "update", deputy.client_id, "--admin", "off", "--json"]);
      expect(off.code).toBe(0);
      expect(off.json<Record<string, unknown>>()).not.toHaveProperty("admin");
      expect((await problem(await call("GET", `${API}/keys`, { token: deputy_token }), 401)).code).toBe("invalid_token");
      expect((await client_token(deputy.client_id, deputy.client_secret, "admin")).body.error).toBe("invalid_scope");
    });

    test("IDP_ADMIN_API=off mounts nothing under /admin/api", () => {
      const off = Object.create(op.provider, { config: { value: { ...op.provider.config, admin_api: false } } });
      const routes = build_items(off)
        .filter(is_endpoint_class)
        .map((endpoint) => endpoint.route ?? "");
      expect(routes.filter((route) => route.includes("/admin/api")).length).toBe(0);
      expect(
        build_items(op.provider)
          .filter(is_endpoint_class)
          .filter((e) => (e.route ?? "").includes("/admin/api")).length,
      ).toBeGreaterThan(20);
    });

    test("the OpenAPI 3.1 document lists every admin route and nothing else, and is served without a token", async () => {
      const res = await call("GET", `${API}/openapi.json`, { token: null });
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        openapi: string;
        info: { title: string; version: string };
        paths: Record<string, Record<string, { responses: Record<string, unknown>; operationId: string }>>;
        components: { schemas: Record<string, unknown> };
      };
      expect(doc.openapi).toBe("3.1.0");
      expect(typeof doc.info.title).toBe("string");
      expect(typeof doc.info.version).toBe("string");
      const documented = Object.entries(doc.paths)
        .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
        .sort();
      const routed = build_items(op.provider)
        .filter(is_endpoint_class)
        .flatMap((endpoint) => {
          const [methods, path] = (endpoint.route ?? "").split(" ") as [string, string];
          if (!path.startsWith(`${API}/`)) return [];
          return methods.split("|").map((method) => `${method} ${path.replace(/:([A-Za-z_]+)/g, "{$1}")}`);
        })
        .sort();
      expect(documented).toEqual(routed);
      // Valid 3.1 shape: every operation has responses and a unique operationId; every $ref resolves.
      const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
      expect(new Set(ids).size).toBe(ids.length);
      for (const ops of Object.values(doc.paths)) for (const o of Object.values(ops)) expect(Object.keys(o.responses).length).toBeGreaterThan(0);
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(doc.components.schemas[ref]).toBeDefined();
      expect(JSON.stringify(doc)).not.toContain("#/$defs/");
    });
  });
}
