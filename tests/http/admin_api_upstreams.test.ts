/**
 * The admin API's upstream identity providers and client operator settings, through real HTTP
 * with a real admin token, on SQLite and PostgreSQL; the server runs with the console off
 * (IDP_ADMIN_CONSOLE=off): /admin answers 404 while the API works.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import { open_secret } from "../../src/oidc/federation/secret_box.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { test_databases } from "../store/pg.ts";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";

const API = "/admin/api/v1";
const KEY = randomBytes(32).toString("base64url");
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

type Problem = { status: number; code: string; detail: string; errors?: { field: string; message: string }[] };
type Upstream = Record<string, unknown> & { name: string; redirect_uri: string; has_client_secret: boolean; enabled: boolean };

const databases = await test_databases();

for (const database of databases) {
  describe(`admin API: upstreams and client settings (${database.name})`, () => {
    let cli: Sandbox;
    let op: TestProvider;
    let drop: () => Promise<void>;
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

    beforeAll(async () => {
      cli = sandbox();
      const db = await database.url();
      drop = db.drop;
      if (db.url !== "") cli.env.DATABASE_URL = db.url;
      const added = await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"]);
      expect(added.stderr).toBe("");
      const admin = added.json<{ client_id: string; client_secret: string }>();
      op = await start_provider({ database_url: cli.env.DATABASE_URL!, config: { admin_console: { enabled: false }, federation: { secret_key: KEY } } });
      const res = await fetch(`${op.url}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`${admin.client_id}:${admin.client_secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      token = ((await res.json()) as { access_token: string }).access_token;
      await op.store.create_group({ name: "Ops", description: null });
    });

    afterAll(async () => {
      await op?.stop();
      cli?.cleanup();
      await drop?.();
    });

    test("IDP_ADMIN_CONSOLE=off: nothing under /admin answers but 404, and the API still works", async () => {
      for (const path of ["/admin", "/admin/users", "/admin/clients", "/admin/keys"]) {
        const res = await fetch(`${op.url}${path}`, { redirect: "manual" });
        expect(res.status).toBe(404);
        await res.body?.cancel();
      }
      expect((await fetch(`${op.url}/admin/users`, { method: "POST", redirect: "manual", body: new URLSearchParams({ csrf: "x" }) })).status).toBe(404);
      expect((await call("GET", `${API}/users`)).status).toBe(200);
    });

    test("upstreams: add from a preset (the secret stored encrypted, never answered), read with the redirect URI, list", async () => {
      const created = await call("POST", `${API}/upstreams`, {
        body: { name: "gitlab", preset: "gitlab", client_id: "gl-client", client_secret: "gl-secret-value", group_map: { "acme/ops": "ops" } },
      });
      expect(created.status).toBe(201);
      const body = (await created.json()) as Upstream;
      expect(body).toMatchObject({
        name: "gitlab",
        kind: "oidc",
        display_name: "GitLab",
        issuer: "https://gitlab.com",
        client_id: "gl-client",
        has_client_secret: true,
        enabled: true,
        policy: "jit",
        trust_upstream_mfa: false,
        redirect_uri: `${op.issuer}/federation/gitlab/callback`,
      });
      // The local group as it is spelled here.
      expect(body.group_map).toEqual({ "acme/ops": "Ops" });
      expect(JSON.stringify(body)).not.toContain("gl-secret-value");
      expect(body).not.toHaveProperty("client_secret_enc");
      expect(created.headers.get("location")).toBe(`${API}/upstreams/gitlab`);
      const row = (await op.store.get_upstream("gitlab"))!;
      expect(row.client_secret_enc).not.toContain("gl-secret-value");
      expect(open_secret(KEY, "gitlab", row.client_secret_enc!)).toBe("gl-secret-value");

      const read = await call("GET", `${API}/upstreams/gitlab`);
      expect(read.headers.get("etag")).toBe(created.headers.get("etag"));
      // The create answer may add `warnings` (the issuer's name did not resolve here: preflight.ts); the rest is the upstream.
      const { warnings: _warnings, ...representation } = body;
      expect(await read.json()).toEqual(representation);
      // The CLI sees the same upstream.
      const shown = await cli.run(["upstreams", "show", "gitlab", "--json"], { env: { IDP_SECRET_KEY: KEY } });
      expect(shown.json<Record<string, unknown>>()).toMatchObject({ name: "gitlab", client_id: "gl-client", client_secret: "(encrypted)" });

      const explicit = await call("POST", `${API}/upstreams`, {
        body: {
          name: "corp",
          kind: "oauth2",
          display_name: "Corp SSO",
          authorization_endpoint: "https://sso.corp.example/authorize",
          token_endpoint: "https://sso.corp.example/token",
          userinfo_endpoint: "https://sso.corp.example/user",
          client_id: "corp",
          client_secret: "corp-secret",
          policy: "link",
          enabled: false,
        },
      });
      expect(explicit.status).toBe(201);
      const page = (await (await call("GET", `${API}/upstreams?limit=1`)).json()) as { items: Upstream[]; next_cursor: string };
      expect(page.items.map((u) => u.name)).toEqual(["corp"]);
      const next = (await (await call("GET", `${API}/upstreams?limit=1&cursor=${page.next_cursor}`)).json()) as { items: Upstream[]; next_cursor: string | null };
      expect([next.items.map((u) => u.name), next.next_cursor]).toEqual([["gitlab"], null]);
      // A disabled upstream is no button on the sign-in page.
      const login = await (await fetch(`${op.url}/account/login`)).text();
      expect(login).toContain("/federation/gitlab/start");
      expect(login).not.toContain("/federation/corp/start");

      const events = await op.store.list_audit_events({ type: "admin_api" });
      expect(events.some((e) => e.details?.action === "upstream_created" && e.details?.upstream === "gitlab")).toBe(true);
      expect(JSON.stringify(await op.store.list_audit_events({ limit: 10_000 }))).not.toContain("gl-secret-value");
    });

    test("upstreams: bad input names the field and stores nothing", async () => {
      const cases: [unknown, string][] = [
        [{ name: "Bad Name", preset: "google", client_id: "x" }, "name"],
        [{ name: "ms", preset: "microsoft", client_id: "x" }, "tenant"],
        [{ name: "x1", preset: "yahoo", client_id: "x" }, "preset"],
        [{ name: "x2", kind: "oauth2", client_id: "x", authorization_endpoint: "https://a.example/a" }, "token_endpoint"],
        [{ name: "x3", issuer: "ftp://idp.example", client_id: "x" }, "issuer"],
        [{ name: "x4", issuer: "https://idp.example", client_id: "x", scopes: ["email"] }, "scopes"],
        [{ name: "x5", issuer: "https://idp.example", client_id: "x", group_map: { staff: "nobody-here" } }, "group_map"],
        [{ name: "x6", issuer: "https://idp.example", client_id: "x", token_endpoint_auth_method: "private_key_jwt", client_secret: "s" }, "client_secret"],
        [{ name: "x7", issuer: "https://idp.example", client_id: "x", client_secret_enc: "v1.a.b" }, "client_secret_enc"],
        [{ name: "x8", issuer: "https://idp.example" }, "client_id"],
      ];
      for (const [body, field] of cases) {
        const refused = await problem(await call("POST", `${API}/upstreams`, { body }), 422);
        expect(refused.errors?.map((e) => e.field)).toContain(field);
      }
      expect((await problem(await call("POST", `${API}/upstreams`, { body: { name: "gitlab", preset: "gitlab", client_id: "again" } }), 409)).errors?.map((e) => e.field)).toEqual([
        "name",
      ]);
      // The microsoft preset with its tenant, and without IDP_SECRET_KEY's help needed: no secret.
      const ms = await call("POST", `${API}/upstreams`, { body: { name: "entra", preset: "microsoft", tenant: "contoso.example", client_id: "ms" } });
      expect(await ms.json()).toMatchObject({ issuer: "https://login.microsoftonline.com/contoso.example/v2.0", has_client_secret: false });
      expect((await call("DELETE", `${API}/upstreams/entra`, { headers: { "if-match": ms.headers.get("etag")! } })).status).toBe(204);
      expect((await op.store.list_upstreams()).map((u) => u.name)).toEqual(["corp", "gitlab"]);
      expect((await op.store.get_upstream("gitlab"))!.client_id).toBe("gl-client");
    });

    test("upstreams: PATCH with If-Match (enable, policy, MFA trust, acr values, group map, a new secret), 428 and 412", async () => {
      const path = `${API}/upstreams/corp`;
      const etag = await etag_of(path);
      expect((await problem(await call("PATCH", path, { body: { enabled: true } }), 428)).code).toBe("precondition_required");
      const enabled = await call("PATCH", path, { body: { enabled: true }, headers: { "if-match": etag } });
      expect(enabled.status).toBe(200);
      expect(((await enabled.json()) as Upstream).enabled).toBe(true);
      expect((await problem(await call("PATCH", path, { body: { enabled: false }, headers: { "if-match": etag } }), 412)).code).toBe("precondition_failed");
      expect((await op.store.get_upstream("corp"))!.enabled).toBe(true);

      const before = (await op.store.get_upstream("corp"))!.client_secret_enc!;
      const changed = await call("PATCH", path, {
        body: {
          display_name: "Corporate",
          policy: "jit",
          auto_link: true,
          trust_upstream_mfa: true,
          mfa_acr_values: ["urn:corp:mfa"],
          group_map: { staff: "ops" },
          scopes: ["read:user"],
          client_secret: "rotated-secret",
        },
        headers: { "if-match": enabled.headers.get("etag")! },
      });
      expect(changed.status).toBe(200);
      const after = (await changed.json()) as Upstream;
      expect(after).toMatchObject({
        display_name: "Corporate",
        policy: "jit",
        auto_link: true,
        trust_upstream_mfa: true,
        mfa_acr_values: ["urn:corp:mfa"],
        group_map: { staff: "Ops" },
        scopes: ["read:user"],
        has_client_secret: true,
        kind: "oauth2",
      });
      expect(JSON.stringify(after)).not.toContain("rotated-secret");
      const row = (await op.store.get_upstream("corp"))!;
      expect(row.client_secret_enc).not.toBe(before);
      expect(open_secret(KEY, "corp", row.client_secret_enc!)).toBe("rotated-secret");

      // A change that breaks a rule is refused whole: nothing changes.
      const current = changed.headers.get("etag")!;
      const bad = await problem(await call("PATCH", path, { body: { display_name: "Changed", token_endpoint: null }, headers: { "if-match": current } }), 422);
      expect(bad.errors?.map((e) => e.field)).toEqual(["token_endpoint"]);
      expect((await problem(await call("PATCH", path, { body: { name: "other" }, headers: { "if-match": current } }), 422)).errors?.map((e) => e.field)).toEqual(["name"]);
      expect((await op.store.get_upstream("corp"))!.display_name).toBe("Corporate");

      // The secret removed (a public client at the upstream).
      const cleared = await call("PATCH", path, { body: { client_secret: null }, headers: { "if-match": current } });
      expect(((await cleared.json()) as Upstream).has_client_secret).toBe(false);
      expect((await op.store.get_upstream("corp"))!.client_secret_enc).toBeNull();
      const events = await op.store.list_audit_events({ type: "admin_api" });
      expect(events.some((e) => e.details?.action === "upstream_enabled")).toBe(true);
      expect(events.some((e) => e.details?.action === "upstream_updated" && ((e.details?.changed ?? []) as string[]).includes("client_secret"))).toBe(true);
    });

    test("upstreams: DELETE with If-Match removes the upstream and the identities linked through it; the user stays", async () => {
      const user = await op.add_user({ username: "linked-user" });
      await op.store.link_identity({ upstream: "corp", subject: "42", user_id: user.id, email: null, ...identity_source((await op.store.get_upstream("corp"))!) });
      const path = `${API}/upstreams/corp`;
      expect((await problem(await call("DELETE", path), 428)).code).toBe("precondition_required");
      expect((await call("DELETE", path, { headers: { "if-match": await etag_of(path) } })).status).toBe(204);
      expect(await op.store.get_upstream("corp")).toBeNull();
      expect(await op.store.get_identity("corp", "42")).toBeNull();
      expect(await op.store.get_user_by_id(user.id)).not.toBeNull();
      expect((await problem(await call("GET", path), 404)).code).toBe("not_found");
    });

    test("upstreams: a new issuer, kind or subject claim while accounts are linked is refused (409) unless drop_links, which deletes the links and audits how many", async () => {
      const created = await call("POST", `${API}/upstreams`, { body: { name: "moving", kind: "oidc", issuer: "https://old-sso.example", client_id: "ours" } });
      expect(created.status).toBe(201);
      const path = `${API}/upstreams/moving`;
      const source = identity_source((await op.store.get_upstream("moving"))!);
      const [ann, ben] = [await op.add_user({ username: "ann-moving" }), await op.add_user({ username: "ben-moving" })];
      await op.store.link_identity({ upstream: "moving", subject: "1", user_id: ann.id, email: null, ...source });
      await op.store.link_identity({ upstream: "moving", subject: "2", user_id: ben.id, email: null, ...source });
      for (const [body, field] of [
        [{ issuer: "https://new-sso.example" }, "issuer"],
        [{ claim_mapping: { subject: "oid" } }, "claim_mapping.subject"],
        [
          { kind: "oauth2", authorization_endpoint: "https://hub.example/authorize", token_endpoint: "https://hub.example/token", userinfo_endpoint: "https://hub.example/user" },
          "kind",
        ],
      ] as const) {
        const refused = await problem(await call("PATCH", path, { body, headers: { "if-match": await etag_of(path) } }), 409);
        expect(refused.code).toBe("conflict");
        expect(refused.errors?.map((e) => e.field)).toContain(field);
        expect(refused.detail).toContain("2 accounts are linked");
      }
      expect((await op.store.get_upstream("moving"))!.issuer).toBe("https://old-sso.example");
      expect(await op.store.count_stale_identities("moving", source)).toBe(0);
      // What does not move the subjects' source changes as before, links kept.
      expect((await call("PATCH", path, { body: { display_name: "Moving SSO" }, headers: { "if-match": await etag_of(path) } })).status).toBe(200);
      expect(await op.store.get_identity("moving", "1")).not.toBeNull();

      const moved = await call("PATCH", path, { body: { issuer: "https://new-sso.example", drop_links: true }, headers: { "if-match": await etag_of(path) } });
      expect(moved.status).toBe(200);
      expect(((await moved.json()) as Upstream).issuer).toBe("https://new-sso.example");
      expect(await op.store.get_identity("moving", "1")).toBeNull();
      expect(await op.store.get_identity("moving", "2")).toBeNull();
      const events = await op.store.list_audit_events({ type: "admin_api" });
      expect(events.some((e) => e.details?.action === "upstream_updated" && e.details?.links_dropped === 2 && ((e.details?.changed ?? []) as string[]).includes("issuer"))).toBe(
        true,
      );
      // No links left: the next change of issuer needs nothing dropped.
      expect((await call("PATCH", path, { body: { issuer: "https://old-sso.example" }, headers: { "if-match": await etag_of(path) } })).status).toBe(200);
    });

    test("clients: group settings, require_2fa and token exchange on create and PATCH, checked and removable", async () => {
      await op.store.create_resource_server({ uri: "https://api.example/", scopes: ["read"] });
      const created = await call("POST", `${API}/clients`, {
        body: {
          client_name: "portal",
          redirect_uris: ["https://portal.example/cb"],
          grant_types: ["authorization_code", TOKEN_EXCHANGE],
          groups_claim: "teams",
          groups_prefix: "app-",
          allowed_groups: ["ops"],
          roles: { OPS: "operator" },
          require_2fa: true,
          token_exchange: { subject_clients: ["*"], impersonation: false, delegation: true, resources: ["https://api.example/"] },
        },
      });
      expect(created.status).toBe(201);
      const client = (await created.json()) as Record<string, unknown> & { client_id: string };
      expect(client).toMatchObject({
        groups_claim: "teams",
        groups_prefix: "app-",
        allowed_groups: ["Ops"],
        roles: { Ops: "operator" },
        require_2fa: true,
        token_exchange: { subject_clients: ["*"], impersonation: false, delegation: true, resources: ["https://api.example/"] },
      });
      const stored = (await op.store.get_client(client.client_id))!.metadata;
      expect([stored.allowed_groups, stored.require_2fa, stored.token_exchange?.delegation]).toEqual([["Ops"], true, true]);

      const path = `${API}/clients/${client.client_id}`;
      const refusals: [unknown, string][] = [
        [{ groups_claim: "sub" }, "groups_claim"],
        [{ allowed_groups: ["nobody-here"] }, "allowed_groups"],
        [{ roles: { "nobody-here": "x" } }, "roles"],
        [{ groups_prefix: null, groups_prefix_strip: true }, "groups_prefix_strip"],
        [{ require_2fa: "yes" }, "require_2fa"],
        [{ token_exchange: { subject_clients: [], impersonation: true, delegation: false, resources: ["https://api.example/"] } }, "token_exchange"],
        [{ token_exchange: { subject_clients: ["*"], impersonation: true, delegation: false, resources: ["https://unknown.example/"] } }, "token_exchange"],
        [{ token_exchange: { subject_clients: ["*"], impersonation: false, delegation: false, resources: ["https://api.example/"] } }, "token_exchange"],
        [{ grant_types: ["authorization_code"] }, "token_exchange"],
      ];
      const etag = await etag_of(path);
      for (const [body, field] of refusals) {
        const refused = await problem(await call("PATCH", path, { body, headers: { "if-match": etag } }), 422);
        expect(refused.errors?.map((e) => e.field.split(".")[0])).toContain(field);
      }
      expect((await op.store.get_client(client.client_id))!.metadata).toEqual(stored);

      // FAPI 2.0 (registrable: it only tightens) is checked as a registration: this client uses no private_key_jwt.
      const fapi = await problem(await call("PATCH", path, { body: { fapi_profile: "2.0" }, headers: { "if-match": etag } }), 422);
      expect(fapi.errors?.map((e) => e.field)).toEqual(["token_endpoint_auth_method"]);

      // Members sent replace; the others stay; null removes.
      const patched = await call("PATCH", path, {
        body: { groups_claim: null, allowed_groups: null, require_2fa: false, token_exchange: null, client_name: "portal 2" },
        headers: { "if-match": etag },
      });
      expect(patched.status).toBe(200);
      const after = (await patched.json()) as Record<string, unknown>;
      expect(after).toMatchObject({ client_name: "portal 2", groups_prefix: "app-", roles: { Ops: "operator" } });
      for (const gone of ["groups_claim", "allowed_groups", "require_2fa", "token_exchange"]) expect(after).not.toHaveProperty(gone);
    });

    test("the admin flag is granted only by the command line: the API may keep it or remove it", async () => {
      const refused = await problem(
        await call("POST", `${API}/clients`, { body: { client_name: "deputy", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], admin: true } }),
        422,
      );
      expect(refused.errors?.map((e) => e.field)).toEqual(["admin"]);
      expect((await op.store.list_clients()).some((c) => c.metadata.client_name === "deputy")).toBe(false);
      const made = await cli.run(["clients", "add", "--name", "deputy", "--grant-type", "client_credentials", "--admin", "--json"]);
      const deputy = made.json<{ client_id: string }>();
      const path = `${API}/clients/${deputy.client_id}`;
      const kept = await call("PATCH", path, { body: { client_name: "deputy 2", admin: true }, headers: { "if-match": await etag_of(path) } });
      expect(await kept.json()).toMatchObject({ client_name: "deputy 2", admin: true, scope: "admin" });
      const off = await call("PATCH", path, { body: { admin: false }, headers: { "if-match": kept.headers.get("etag")! } });
      expect(off.status).toBe(200);
      expect(await off.json()).not.toHaveProperty("admin");
      const again = await problem(await call("PATCH", path, { body: { admin: true }, headers: { "if-match": off.headers.get("etag")! } }), 422);
      expect(again.errors?.map((e) => e.field)).toEqual(["admin"]);
    });

    test("the OpenAPI document describes the upstream routes and the client settings", async () => {
      const doc = (await (await fetch(`${op.url}${API}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
        components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      };
      expect(Object.keys(doc.paths[`${API}/upstreams`]!).sort()).toEqual(["get", "post"]);
      expect(Object.keys(doc.paths[`${API}/upstreams/{name}`]!).sort()).toEqual(["delete", "get", "patch"]);
      expect(Object.keys(doc.components.schemas.Upstream!.properties!)).not.toContain("client_secret");
      expect(Object.keys(doc.components.schemas.UpstreamCreate!.properties!)).toContain("client_secret");
      for (const member of ["groups_claim", "groups_prefix", "roles", "allowed_groups", "require_2fa", "token_exchange", "fapi_profile"])
        expect(Object.keys(doc.components.schemas.ClientInput!.properties!)).toContain(member);
    });
  });
}
