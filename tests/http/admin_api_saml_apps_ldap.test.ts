/**
 * The admin API's SAML service providers, protected applications (forward authentication) and
 * LDAP service accounts, through real HTTP with a real admin token, on SQLite and PostgreSQL:
 * the rules of `idp saml`, `idp apps` and `idp ldap service-accounts` (oidc/admin/), ETags and
 * If-Match, passwords answered once and never listed, every call audited without a secret.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { sp_key, sp_metadata } from "../helpers/saml.ts";
import { serve_fetch } from "../helpers/serve_fetch.ts";
import { test_databases } from "../store/pg.ts";

const API = "/admin/api/v1";
const SAML = `${API}/saml/service-providers`;
const ENTITY = "https://wiki.example.com/saml/metadata";

type Problem = { status: number; code: string; detail: string; errors?: { field: string; message: string }[] };

const databases = await test_databases();

for (const database of databases) {
  describe(`admin API: SAML service providers, protected applications, LDAP service accounts (${database.name})`, () => {
    let cli: Sandbox;
    let op: TestProvider;
    let drop: () => Promise<void>;
    let token: string;
    let metadata: string;
    let encrypted_metadata: string;

    const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; token?: string } = {}) => {
      const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${options.token ?? token}`, ...options.headers };
      if (options.body !== undefined) headers["content-type"] = "application/json";
      return fetch(`${op.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    };
    const problem = async (res: Response, status: number): Promise<Problem> => {
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toStartWith("application/problem+json");
      return (await res.json()) as Problem;
    };
    const client_token = async (client_id: string, secret: string) => {
      const res = await fetch(`${op.url}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`${client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      return (await res.json()) as { access_token: string; scope?: string };
    };

    beforeAll(async () => {
      cli = sandbox();
      const db = await database.url();
      drop = db.drop;
      if (db.url !== "") cli.env.DATABASE_URL = db.url;
      const added = await cli.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--admin", "--json"]);
      expect(added.stderr).toBe("");
      const admin = added.json<{ client_id: string; client_secret: string }>();
      op = await start_provider({
        database_url: cli.env.DATABASE_URL!,
        config: { admin_console: { enabled: false }, outbound: { allow_http: true, allow: ["127.0.0.1"] } },
      });
      token = (await client_token(admin.client_id, admin.client_secret)).access_token;
      await op.store.create_group({ name: "Staff", description: null });
      await op.store.create_group({ name: "Ops", description: null });
      const key = await sp_key("wiki.example.com");
      metadata = sp_metadata({ entity_id: ENTITY, acs: ["https://wiki.example.com/saml/acs"], certificate: key.certificate, authn_requests_signed: true });
      encrypted_metadata = sp_metadata({
        entity_id: ENTITY,
        acs: ["https://wiki.example.com/saml/acs"],
        certificate: key.certificate,
        encryption_certificate: key.certificate,
        authn_requests_signed: true,
      });
    });

    afterAll(async () => {
      await op?.stop();
      cli?.cleanup();
      await drop?.();
    });

    test("a token without the admin scope is refused on each area (403 insufficient_scope), nothing is made", async () => {
      const { client, secret } = await op.add_client({ client_name: "reports", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "reports" });
      const plain = await client_token(client.client_id, secret!);
      for (const [method, path, body] of [
        ["GET", SAML, undefined],
        ["POST", SAML, { metadata_xml: metadata }],
        ["GET", `${API}/apps`, undefined],
        ["POST", `${API}/apps`, { name: "grafana", url: "https://grafana.example.com" }],
        ["GET", `${API}/ldap/service-accounts`, undefined],
        ["POST", `${API}/ldap/service-accounts`, { name: "nextcloud" }],
      ] as const) {
        expect((await problem(await call(method, path, { body, token: plain.access_token }), 403)).code).toBe("insufficient_scope");
      }
      expect(await op.store.list_saml_service_providers()).toEqual([]);
      expect(await op.store.list_protected_apps()).toEqual([]);
      expect(await op.store.list_ldap_service_accounts()).toEqual([]);
    });

    test("SAML: create from metadata XML with the CLI's options, read with an ETag, list, PATCH (428, 412, 200), delete", async () => {
      const created = await call("POST", SAML, {
        body: { metadata_xml: metadata, name: "Team wiki", attributes: { employeeType: "groups" }, allowed_groups: ["staff"], sign: "both", idp_initiated: true },
      });
      expect(created.status).toBe(201);
      const body = (await created.json()) as Record<string, unknown>;
      expect(body).toEqual({
        entity_id: ENTITY,
        name: "Team wiki",
        idp_metadata_url: `${op.issuer}/saml/metadata`,
        assertion_consumer_services: ["https://wiki.example.com/saml/acs"],
        authn_requests_signed: true,
        nameid_format: "persistent",
        attributes: { employeeType: "groups" },
        // As the group spells itself.
        allowed_groups: ["Staff"],
        idp_initiated: true,
        sign: "both",
        encrypt: false,
        metadata_url: null,
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
      expect(JSON.stringify(body)).not.toContain("salt");
      const path = `${SAML}/${encodeURIComponent(ENTITY)}`;
      expect(created.headers.get("location")).toBe(path);
      const read = await call("GET", path);
      expect(read.status).toBe(200);
      expect(read.headers.get("etag")).toBe(created.headers.get("etag"));
      expect(await read.json()).toEqual(body);
      const listed = (await (await call("GET", SAML)).json()) as { items: unknown[] };
      expect(listed.items).toEqual([body]);

      // Registered twice: 409, naming the metadata.
      const twice = await problem(await call("POST", SAML, { body: { metadata_xml: metadata } }), 409);
      expect(twice.errors).toEqual([{ field: "metadata", message: "entityID is taken" }]);

      expect((await problem(await call("PATCH", path, { body: { nameid_format: "email" } }), 428)).code).toBe("precondition_required");
      expect((await problem(await call("PATCH", path, { body: { nameid_format: "email" }, headers: { "if-match": '"stale"' } }), 412)).code).toBe("precondition_failed");
      const patched = await call("PATCH", path, { body: { nameid_format: "email", allowed_groups: [], attributes: {} }, headers: { "if-match": read.headers.get("etag")! } });
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({ nameid_format: "email", allowed_groups: [], attributes: {}, sign: "both", name: "Team wiki" });
      expect(patched.headers.get("etag")).not.toBe(read.headers.get("etag"));
      // Encrypted assertions once the metadata has an encryption certificate (refused without one: below).
      const encrypted = await call("PATCH", path, { body: { metadata_xml: encrypted_metadata, encrypt: true }, headers: { "if-match": patched.headers.get("etag")! } });
      expect(encrypted.status).toBe(200);
      expect(await encrypted.json()).toMatchObject({ encrypt: true, nameid_format: "email" });
      expect((await op.store.get_saml_service_provider(ENTITY))?.encrypt).toBe(true);
      const plain_again = await call("PATCH", path, { body: { metadata_xml: metadata }, headers: { "if-match": encrypted.headers.get("etag")! } });
      expect((await problem(plain_again, 422)).errors?.map((e) => e.field)).toContain("encrypt");
      // The old ETag no longer matches: a lost update is refused.
      expect((await problem(await call("DELETE", path, { headers: { "if-match": read.headers.get("etag")! } }), 412)).code).toBe("precondition_failed");
      expect((await call("DELETE", path, { headers: { "if-match": encrypted.headers.get("etag")! } })).status).toBe(204);
      expect((await problem(await call("GET", path), 404)).code).toBe("not_found");
      expect(await op.store.get_saml_service_provider(ENTITY)).toBeNull();

      const actions = (await op.store.list_audit_events({ type: "admin_api" })).map((event) => event.details?.action);
      for (const action of ["saml_sp_created", "saml_sp_read", "saml_sps_listed", "saml_sp_updated", "saml_sp_deleted"]) expect(actions).toContain(action);
    });

    test("SAML: bad input is refused naming the field (422) and nothing is stored", async () => {
      const cases: [unknown, string][] = [
        [{}, "metadata_xml"],
        [{ metadata_xml: metadata, metadata_url: "https://wiki.example.com/md" }, "metadata_xml"],
        [{ metadata_xml: "<not-metadata/>" }, "metadata"],
        [{ metadata_xml: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>` }, "metadata"],
        [{ metadata_xml: metadata, nameid_format: "kerberos" }, "nameid_format"],
        [{ metadata_xml: metadata, sign: "nothing" }, "sign"],
        // No encryption certificate in the metadata: nothing to encrypt the Assertion to.
        [{ metadata_xml: metadata, encrypt: true }, "encrypt"],
        [{ metadata_xml: metadata, encrypt: "yes" }, "encrypt"],
        [{ metadata_xml: metadata, allowed_groups: ["nobody-has-this"] }, "allowed_groups"],
        [{ metadata_xml: metadata, unknown: 1 }, ""],
        // SAML Metadata §2.4.4: it asks for signed assertions, so the Response alone is not enough.
        [
          { metadata_xml: sp_metadata({ entity_id: "https://strict.example.com/sp", acs: ["https://strict.example.com/acs"], want_assertions_signed: true }), sign: "response" },
          "sign",
        ],
      ];
      for (const [body, field] of cases) {
        const refused = await problem(await call("POST", SAML, { body }), 422);
        if (field !== "") expect(refused.errors?.map((e) => e.field)).toContain(field);
      }
      // A body over IDP_BODY_LIMIT (64 KiB by default) is refused before it is parsed.
      const huge = await call("POST", SAML, { body: { metadata_xml: "x".repeat(600 * 1024) } });
      expect(huge.status).toBe(413);
      await huge.body?.cancel();
      expect(await op.store.list_saml_service_providers()).toEqual([]);
    });

    test("SAML: create from a metadata URL through the outbound fence; a private address is refused", async () => {
      const entity = "https://fetched.example.com/sp";
      const server = await serve_fetch(() => new Response(sp_metadata({ entity_id: entity, acs: ["https://fetched.example.com/acs"] })));
      try {
        const url = `http://127.0.0.1:${server.port}/metadata`;
        const created = await call("POST", SAML, { body: { metadata_url: url } });
        expect(created.status).toBe(201);
        expect(await created.json()).toMatchObject({ entity_id: entity, name: entity, metadata_url: url, assertion_consumer_services: ["https://fetched.example.com/acs"] });
        // 192.168.0.0/16 is not in IDP_OUTBOUND_ALLOW: refused before any connection.
        const refused = await problem(await call("POST", SAML, { body: { metadata_url: "http://192.168.0.1/metadata" } }), 422);
        expect(refused.errors?.[0]?.field).toBe("metadata_url");
        const path = `${SAML}/${encodeURIComponent(entity)}`;
        expect((await call("DELETE", path, { headers: { "if-match": "*" } })).status).toBe(204);
      } finally {
        await server.stop();
      }
    });

    test("protected applications: create with rules, read with an ETag, list, PATCH with If-Match, delete; bad rules refused", async () => {
      const created = await call("POST", `${API}/apps`, {
        body: { name: "grafana", url: "https://grafana.example.com", allowed_groups: ["staff"], rules: ["/admin=ops+2fa"] },
      });
      expect(created.status).toBe(201);
      const body = (await created.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        name: "grafana",
        url: "https://grafana.example.com",
        host: "grafana.example.com",
        path: "/",
        allowed_groups: ["Staff"],
        require_2fa: false,
        rules: ["/admin=Ops+2fa"],
      });
      const read = await call("GET", `${API}/apps/grafana`);
      expect(read.headers.get("etag")).toBe(created.headers.get("etag"));
      expect(await read.json()).toEqual(body);
      expect(((await (await call("GET", `${API}/apps`)).json()) as { items: unknown[] }).items).toEqual([body]);

      for (const [input, field, status] of [
        [{ name: "grafana", url: "https://other.example.com" }, "name", 409],
        [{ name: "grafana2", url: "https://grafana.example.com" }, "url", 409],
        [{ name: "x", url: "ftp://x.example.com" }, "url", 422],
        [{ name: "x", url: "https://x.example.com", rules: ["admin"] }, "rules", 422],
        [{ name: "x", url: "https://x.example.com/app", rules: ["/other=*"] }, "rules", 422],
        [{ name: "x", url: "https://x.example.com", allowed_groups: ["nobody-has-this"] }, "allowed_groups", 422],
      ] as const) {
        const refused = await problem(await call("POST", `${API}/apps`, { body: input }), status);
        expect(refused.errors?.map((e) => e.field)).toContain(field);
      }

      expect((await problem(await call("PATCH", `${API}/apps/grafana`, { body: { require_2fa: true } }), 428)).code).toBe("precondition_required");
      const patched = await call("PATCH", `${API}/apps/grafana`, { body: { require_2fa: true, rules: [] }, headers: { "if-match": read.headers.get("etag")! } });
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({ require_2fa: true, rules: [] });
      expect((await problem(await call("PATCH", `${API}/apps/grafana`, { body: { require_2fa: false }, headers: { "if-match": read.headers.get("etag")! } }), 412)).code).toBe(
        "precondition_failed",
      );
      expect((await call("DELETE", `${API}/apps/grafana`, { headers: { "if-match": patched.headers.get("etag")! } })).status).toBe(204);
      expect(await op.store.get_protected_app("grafana")).toBeNull();
      expect((await problem(await call("DELETE", `${API}/apps/grafana`, { headers: { "if-match": "*" } }), 404)).code).toBe("not_found");
    });

    test("LDAP service accounts: the password answered once (its SHA-256 stored), never listed; rotate needs If-Match; delete", async () => {
      const created = await call("POST", `${API}/ldap/service-accounts`, { body: { name: "nextcloud", group: "staff" } });
      expect(created.status).toBe(201);
      const body = (await created.json()) as Record<string, unknown> & { password: string };
      expect(body).toMatchObject({ name: "nextcloud", group: "Staff", bind_dn: expect.stringMatching(/^cn=nextcloud,ou=services,/) });
      expect(body.password).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const row = (await op.store.get_ldap_service_account("nextcloud"))!;
      expect(row.secret_hash).toBe(sha256(body.password));
      const path = `${API}/ldap/service-accounts/nextcloud`;
      const read = await call("GET", path);
      const shown = await read.text();
      expect(read.headers.get("etag")).toBe(created.headers.get("etag"));
      const listed = await (await call("GET", `${API}/ldap/service-accounts`)).text();
      for (const text of [shown, listed]) {
        expect(text).not.toContain(body.password);
        expect(text).not.toContain(row.secret_hash);
        expect(text).not.toContain('password"');
      }

      expect((await problem(await call("POST", `${API}/ldap/service-accounts`, { body: { name: "nextcloud" } }), 409)).code).toBe("conflict");
      expect((await problem(await call("POST", `${API}/ldap/service-accounts`, { body: { name: "bad,name" } }), 422)).errors?.[0]?.field).toBe("name");
      expect((await problem(await call("POST", `${API}/ldap/service-accounts`, { body: { name: "x", group: "nobody-has-this" } }), 404)).code).toBe("not_found");

      expect((await problem(await call("POST", `${path}/rotate`), 428)).code).toBe("precondition_required");
      const rotated = await call("POST", `${path}/rotate`, { headers: { "if-match": read.headers.get("etag")! } });
      expect(rotated.status).toBe(200);
      const fresh = (await rotated.json()) as { password: string };
      expect(fresh.password).not.toBe(body.password);
      expect((await op.store.get_ldap_service_account("nextcloud"))!.secret_hash).toBe(sha256(fresh.password));
      expect((await call("DELETE", path, { headers: { "if-match": rotated.headers.get("etag")! } })).status).toBe(204);
      expect(await op.store.get_ldap_service_account("nextcloud")).toBeNull();

      // No password, hash or metadata document in the audit log.
      const log = JSON.stringify(await op.store.list_audit_events({ limit: 10_000 }));
      for (const secret of [body.password, fresh.password, row.secret_hash]) expect(log).not.toContain(secret);
      const actions = (await op.store.list_audit_events({ type: "admin_api" })).map((event) => event.details?.action);
      for (const action of ["ldap_service_account_created", "ldap_service_account_rotated", "ldap_service_account_removed", "ldap_service_accounts_listed"]) {
        expect(actions).toContain(action);
      }
    });
  });
}
