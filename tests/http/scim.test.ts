/**
 * SCIM 2.0 provisioning (RFC 7643, RFC 7644) through real HTTP with a real token of an admin
 * client granted the `scim` scope, on SQLite and PostgreSQL: the Entra ID and Okta sequences
 * (scim_fixtures.ts), discovery, errors in the §3.12 shape, ETags, Bulk, and the audit log.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { test_databases } from "../store/pg.ts";
import * as F from "./scim_fixtures.ts";

const BASE = "/scim/v2";
// biome-ignore lint/suspicious/noExplicitAny: the assertions read nested SCIM JSON
type Json = Record<string, any>;

for (const database of await test_databases()) {
  describe(`SCIM 2.0 (${database.name})`, () => {
    let cli: Sandbox;
    let op: TestProvider;
    let drop: () => Promise<void>;
    let token: string;
    let admin_token: string;
    let client_id: string;

    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, bearer = token) => {
      const res = await fetch(`${op.url}${BASE}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined && { "content-type": "application/scim+json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: (text === "" ? null : JSON.parse(text)) as Json };
    };
    const token_for = async (secret: string, scope: string) => {
      const res = await fetch(`${op.url}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`${client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=client_credentials&scope=${scope}`,
      });
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const expect_error = (res: { status: number; json: Json }, status: number, scim_type?: string) => {
      expect(res.status).toBe(status);
      expect(res.json.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
      expect(res.json.status).toBe(String(status));
      if (scim_type !== undefined) expect(res.json.scimType).toBe(scim_type);
      expect(typeof res.json.detail).toBe("string");
    };

    beforeAll(async () => {
      cli = sandbox();
      const db = await database.url();
      drop = db.drop;
      if (db.url !== "") cli.env.DATABASE_URL = db.url;
      const added = await cli.run(["clients", "add", "--name", "entra", "--grant-type", "client_credentials", "--admin", "--scope", "scim", "--json"]);
      expect(added.stderr).toBe("");
      const admin = added.json<{ client_id: string; client_secret: string }>();
      client_id = admin.client_id;
      op = await start_provider({ database_url: cli.env.DATABASE_URL! });
      token = await token_for(admin.client_secret, "scim");
      admin_token = await token_for(admin.client_secret, "admin");
    });

    afterAll(async () => {
      await op?.stop();
      cli?.cleanup();
      await drop?.();
    });

    test("discovery: ServiceProviderConfig with the limits, ResourceTypes, Schemas, in application/scim+json", async () => {
      const spc = await call("GET", "/ServiceProviderConfig");
      expect(spc.status).toBe(200);
      expect(spc.headers.get("content-type")).toContain("application/scim+json");
      expect(spc.headers.get("cache-control")).toBe("no-store");
      expect(spc.json.patch.supported).toBe(true);
      // maxPayloadSize: the smaller of 1 MiB and the request body limit (IDP_BODY_LIMIT, 64 KiB by default).
      expect(spc.json.bulk).toEqual({ supported: true, maxOperations: 100, maxPayloadSize: 65536 });
      expect(spc.json.filter).toEqual({ supported: true, maxResults: 200 });
      expect(spc.json.etag.supported).toBe(true);
      const types = await call("GET", "/ResourceTypes");
      expect(types.json.Resources.map((t: Json) => t.id)).toEqual(["User", "Group"]);
      expect((await call("GET", "/ResourceTypes/User")).json.schemaExtensions[0].schema).toBe(F.ENTERPRISE);
      const schemas = await call("GET", "/Schemas");
      expect(schemas.json.Resources.map((s: Json) => s.id)).toEqual([F.USER, F.GROUP, F.ENTERPRISE]);
      expect((await call("GET", `/Schemas/${F.USER}`)).json.attributes.find((a: Json) => a.name === "password").returned).toBe("never");
      expect_error(await call("GET", "/Schemas/urn:nope"), 404);
    });

    test("authentication: no token 401, a token without the scim scope 403, the scim token cannot call the admin API", async () => {
      const anonymous = await fetch(`${op.url}${BASE}/Users`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toContain("Bearer");
      expect(((await anonymous.json()) as Json).schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
      expect_error(await call("GET", "/Users", undefined, {}, admin_token), 403);
      expect_error(await call("GET", "/Users", undefined, {}, "not-a-token"), 401);
      const admin_api = await fetch(`${op.url}/admin/api/v1/users`, { headers: { authorization: `Bearer ${token}` } });
      expect(admin_api.status).toBe(403);
    });

    test("Entra ID: create, find by userName and externalId, PATCH profile and manager, disable, delete", async () => {
      const filter = encodeURIComponent(`userName eq "${F.entra_create_user.userName}"`);
      const none = await call("GET", `/Users?filter=${filter}`);
      expect(none.json).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
      const created = await call("POST", "/Users", F.entra_create_user);
      expect(created.status).toBe(201);
      const id = created.json.id as string;
      expect(created.headers.get("location")).toBe(`${op.url}${BASE}/Users/${id}`);
      expect(created.headers.get("etag")).toBe(created.json.meta.version);
      expect(created.json).toMatchObject({ userName: F.entra_create_user.userName, externalId: F.entra_create_user.externalId, active: true, displayName: "givenName familyName" });
      expect(created.json.emails).toEqual([{ value: F.entra_create_user.emails[0]!.value, type: "work", primary: true }]);
      expect(created.json.password).toBeUndefined();
      // The directory is the authority on its users' addresses (SECURITY.md "Provisioning (SCIM)").
      expect((await op.store.get_user_by_id(id))!.email_verified).toBe(true);
      const found = await call("GET", `/Users?filter=${filter}`);
      expect(found.json.totalResults).toBe(1);
      expect(found.json.Resources[0].id).toBe(id);
      const by_external = await call("GET", `/Users?filter=${encodeURIComponent(`externalId eq "${F.entra_create_user.externalId}"`)}`);
      expect(by_external.json.Resources.map((r: Json) => r.id)).toEqual([id]);
      expect((await call("POST", "/Users", F.entra_create_user)).json.scimType).toBe("uniqueness");

      const patched = await call("PATCH", `/Users/${id}`, F.entra_patch_profile);
      expect(patched.status).toBe(200);
      expect(patched.json.emails[0].value).toBe("updatedEmail@microsoft.com");
      expect(patched.json.name.familyName).toBe("updatedFamilyName");
      expect(patched.json.userName).toBe("5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com");
      const manager = await op.store.create_user({ username: `boss-${database.name}`, password_hash: "" });
      const managed = await call("PATCH", `/Users/${id}`, F.entra_manager(manager.id));
      expect(managed.json[F.ENTERPRISE]).toEqual({ manager: { value: manager.id } });
      expect(managed.json.schemas).toEqual([F.USER, F.ENTERPRISE]);

      const disabled = await call("PATCH", `/Users/${id}`, F.entra_disable);
      expect(disabled.status).toBe(200);
      expect(disabled.json.active).toBe(false);
      expect((await op.store.get_user_by_id(id))!.status).toBe("disabled");
      const events = await op.store.list_audit_events({ type: "scim", user_id: id });
      const disabling = events.find((event) => event.details?.action === "user_disabled")!;
      expect(disabling.client_id).toBe(client_id);
      expect(disabling.details).toMatchObject({ method: "PATCH", status: 200, sessions_ended: 0, tokens_revoked: 0 });

      expect((await call("DELETE", `/Users/${id}`)).status).toBe(204);
      expect(await op.store.get_user_by_id(id)).toBeNull();
      expect_error(await call("GET", `/Users/${id}`), 404);
    });

    test("Entra ID: create a group, find it by displayName without members, add and remove a member, delete", async () => {
      const user = (await call("POST", "/Users", { schemas: [F.USER], userName: `member-${database.name}` })).json;
      const group = await call("POST", "/Groups", F.entra_create_group);
      expect(group.status).toBe(201);
      const id = group.json.id as string;
      expect(group.json).toMatchObject({ displayName: "displayName", externalId: F.entra_create_group.externalId, members: [] });
      const found = await call("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`);
      expect(found.json.totalResults).toBe(1);
      expect(found.json.Resources[0].members).toBeUndefined();
      expect((await call("PATCH", `/Groups/${id}`, F.entra_add_member(user.id))).json.members.map((m: Json) => m.value)).toEqual([user.id]);
      expect(await op.store.list_user_groups(user.id)).toEqual(["displayName"]);
      expect((await call("GET", `/Users/${user.id}`)).json.groups[0]).toMatchObject({ value: id, display: "displayName" });
      expect((await call("PATCH", `/Groups/${id}`, F.entra_remove_member(user.id))).json.members).toEqual([]);
      expect((await call("DELETE", `/Groups/${id}`)).status).toBe(204);
      expect_error(await call("GET", `/Groups/${id}`), 404);
    });

    test("Okta: create with a password (the policy), get, PUT, deactivate and reactivate; groups push, rename, remove", async () => {
      const weak = await call("POST", "/Users", { ...F.okta_create_user, password: "short" });
      expect_error(weak, 400, "invalidValue");
      const list = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${F.okta_create_user.userName}"`)}&startIndex=1&count=100`);
      expect(list.json.totalResults).toBe(0);
      const created = await call("POST", "/Users", F.okta_create_user);
      expect(created.status).toBe(201);
      const id = created.json.id as string;
      expect((await op.store.get_user_by_id(id))!.password_hash).toMatch(/^\$argon2id\$/);
      expect((await call("GET", `/Users/${id}`)).json.displayName).toBe("Test User");
      const replaced = await call("PUT", `/Users/${id}`, F.okta_replace_user(id));
      expect(replaced.json.name).toEqual({ givenName: "Another", familyName: "User", formatted: "Another User" });
      expect((await call("PATCH", `/Users/${id}`, F.okta_active(false))).json.active).toBe(false);
      expect((await call("PATCH", `/Users/${id}`, F.okta_active(true))).json.active).toBe(true);
      expect((await op.store.get_user_by_id(id))!.status).toBe("active");

      const group = await call("POST", "/Groups", F.okta_create_group);
      expect(group.status).toBe(201);
      const gid = group.json.id as string;
      expect((await op.store.get_group_by_id(gid))!.name).toBe("Test-SCIMv2");
      expect((await call("PATCH", `/Groups/${gid}`, F.okta_add_members(id))).json.members[0]).toMatchObject({ value: id, display: "test.user@okta.local" });
      const renamed = await call("PATCH", `/Groups/${gid}`, F.okta_rename_group(gid));
      expect(renamed.json.displayName).toBe("Test SCIMv2 renamed");
      expect((await op.store.get_group_by_id(gid))!.name).toBe("Test-SCIMv2-renamed");
      expect((await call("PATCH", `/Groups/${gid}`, F.okta_remove_member(id))).json.members).toEqual([]);
      expect((await call("DELETE", `/Groups/${gid}`)).status).toBe(204);
    });

    test("ETags: If-Match with an old meta.version is 412, with the current one 200; W/ tags compare by their value", async () => {
      const user = (await call("POST", "/Users", { schemas: [F.USER], userName: `etag-${database.name}` })).json;
      const old = user.meta.version as string;
      const changed = await call("PATCH", `/Users/${user.id}`, { schemas: [F.PATCH_OP], Operations: [{ op: "replace", path: "displayName", value: "One" }] }, { "if-match": old });
      expect(changed.status).toBe(200);
      expect(changed.json.meta.version).not.toBe(old);
      expect_error(await call("PUT", `/Users/${user.id}`, { schemas: [F.USER], userName: user.userName }, { "if-match": old }), 412);
      expect_error(await call("DELETE", `/Users/${user.id}`, undefined, { "if-match": old }), 412);
      expect((await call("DELETE", `/Users/${user.id}`, undefined, { "if-match": changed.json.meta.version })).status).toBe(204);
    });

    test("filters, sorting, paging and attributes over the list; hostile or unknown filters are invalidFilter", async () => {
      for (const name of ["sort-c", "sort-a", "sort-b"])
        await call("POST", "/Users", { schemas: [F.USER], userName: `${name}-${database.name}`, emails: [{ value: `${name}@example.com` }] });
      const sorted = await call("GET", `/Users?filter=${encodeURIComponent('userName sw "sort-"')}&sortBy=userName&sortOrder=descending&attributes=userName`);
      expect(sorted.json.Resources.map((r: Json) => r.userName)).toEqual(["c", "b", "a"].map((x) => `sort-${x}-${database.name}`));
      expect(Object.keys(sorted.json.Resources[0]).sort()).toEqual(["id", "schemas", "userName"]);
      const page = await call("GET", `/Users?filter=${encodeURIComponent('userName sw "sort-"')}&sortBy=userName&startIndex=2&count=1`);
      expect(page.json).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
      expect(page.json.Resources[0].userName).toBe(`sort-b-${database.name}`);
      const by_mail = await call("GET", `/Users?filter=${encodeURIComponent('emails.value eq "SORT-A@example.com"')}`);
      expect(by_mail.json.Resources.map((r: Json) => r.userName)).toEqual([`sort-a-${database.name}`]);
      const complex = await call(
        "GET",
        `/Users?filter=${encodeURIComponent('emails[value co "sort-"] and not (userName ew "c-' + database.name + '") and meta.lastModified gt "2011-05-13T04:42:34Z"')}`,
      );
      expect(complex.json.totalResults).toBe(2);
      for (const bad of ['nickName eq "x"', "userName eq", "(".repeat(50) + 'userName eq "x"' + ")".repeat(50), `userName eq "${"x".repeat(3000)}"`, "active gt true"]) {
        expect_error(await call("GET", `/Users?filter=${encodeURIComponent(bad)}`), 400, "invalidFilter");
      }
    });

    test("Bulk (RFC 7644 §3.7.2): a user and a group naming it by bulkId; more than maxOperations is 413", async () => {
      const bulk = await call("POST", "/Bulk", {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        Operations: [
          { method: "POST", path: "/Users", bulkId: "qwerty", data: { schemas: [F.USER], userName: `Alice-${database.name}` } },
          {
            method: "POST",
            path: "/Groups",
            bulkId: "ytrewq",
            data: { schemas: [F.GROUP], displayName: `Tour Guides ${database.name}`, members: [{ type: "User", value: "bulkId:qwerty" }] },
          },
          { method: "DELETE", path: "/Users/b7c14771-226c-4d05-8860-134711653041" },
        ],
      });
      expect(bulk.status).toBe(200);
      const [user, group, missing] = bulk.json.Operations as Json[];
      expect(user).toMatchObject({ method: "POST", bulkId: "qwerty", status: "201" });
      expect(group).toMatchObject({ method: "POST", bulkId: "ytrewq", status: "201" });
      expect(missing!.status).toBe("404");
      const user_id = (user!.location as string).split("/").pop()!;
      expect(await op.store.list_user_groups(user_id)).toEqual([`Tour-Guides-${database.name}`]);
      const too_many = await call("POST", "/Bulk", {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        Operations: Array.from({ length: 101 }, () => ({ method: "DELETE", path: "/Users/x" })),
      });
      expect_error(too_many, 413);
    });

    test("errors in the §3.12 shape: a body that is not JSON, a bad PATCH path, a read-only attribute", async () => {
      const user = (await call("POST", "/Users", { schemas: [F.USER], userName: `errors-${database.name}` })).json;
      const res = await fetch(`${op.url}${BASE}/Users`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
        body: "{not json",
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).scimType).toBe("invalidSyntax");
      expect_error(await call("PATCH", `/Users/${user.id}`, { schemas: [F.PATCH_OP], Operations: [{ op: "replace", path: "nickName", value: "x" }] }), 400, "invalidPath");
      expect_error(await call("PATCH", `/Users/${user.id}`, { schemas: [F.PATCH_OP], Operations: [{ op: "add", path: "groups", value: [{ value: "x" }] }] }), 400, "mutability");
      expect_error(await call("PATCH", `/Users/${user.id}`, { schemas: [F.PATCH_OP], Operations: [{ op: "remove" }] }), 400, "noTarget");
      expect_error(await call("POST", "/Users", { schemas: [F.USER] }), 400, "invalidValue");
    });
  });
}
