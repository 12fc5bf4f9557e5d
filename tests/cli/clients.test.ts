import { afterEach, beforeEach, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { load_config } from "../../src/app/config.ts";
import { create_provider } from "../../src/app/provider.ts";
import { build_app } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

type Added = { client_id: string; client_secret?: string; has_secret: boolean } & Record<string, unknown>;

async function add(...extra: string[]) {
  return box.run(["clients", "add", "--name", "My App", "--redirect-uri", "https://app.example.com/cb", ...extra]);
}

async function stored(client_id: string) {
  const store = await open_store(box.env.DATABASE_URL!);
  try {
    return await store.get_client(client_id);
  } finally {
    await store.close();
  }
}

describe("idp clients add", () => {
  test("defaults: client_secret_basic, code + refresh, response type code; secret stored as sha256", async () => {
    const result = await add("--json");
    expect(result.code).toBe(0);
    const client = result.json<Added>();
    expect(client).toMatchObject({
      client_name: "My App",
      redirect_uris: ["https://app.example.com/cb"],
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      application_type: "web",
      has_secret: true,
      client_secret_expires_at: 0,
    });
    expect(client.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes base64url
    const row = await stored(client.client_id);
    expect(row?.client_secret_hash).toBe(sha256(client.client_secret!));
    expect(JSON.stringify(row)).not.toContain(client.client_secret!);
  });

  test("human output prints client_id and secret once; list and show never show it again", async () => {
    const result = await add();
    expect(result.code).toBe(0);
    const client_id = result.stdout.match(/client_id:\s+(\S+)/)?.[1];
    const secret = result.stdout.match(/client_secret:\s+(\S+)/)?.[1];
    expect(client_id).toBeDefined();
    expect(secret).toHaveLength(43);
    expect(result.stdout).toContain("shown only once");

    const row = await stored(client_id!);
    for (const argv of [
      ["clients", "list"],
      ["clients", "list", "--json"],
      ["clients", "show", client_id!],
      ["clients", "show", client_id!, "--json"],
    ]) {
      const out = await box.run(argv);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(client_id!);
      expect(out.stdout).not.toContain(secret!);
      expect(out.stdout).not.toContain(row!.client_secret_hash!);
      expect(out.stdout).not.toContain("client_secret_hash");
    }
    const shown = (await box.run(["clients", "show", client_id!, "--json"])).json<Added>();
    expect(shown).toMatchObject({ client_id, client_name: "My App", has_secret: true });
    expect(shown).not.toHaveProperty("client_secret");
  });

  test("all options are stored in the metadata", async () => {
    const result = await box.run([
      "clients",
      "add",
      "--json",
      "--name",
      "Native",
      "--application-type",
      "native",
      "--redirect-uri",
      "com.example.app:/cb",
      "--redirect-uri",
      "http://127.0.0.1/cb",
      "--post-logout-redirect-uri",
      "com.example.app:/bye",
      "--auth-method",
      "none",
      "--scope",
      "openid profile  email",
      "--skip-consent",
    ]);
    expect(result.code).toBe(0);
    const client = result.json<Added>();
    expect(client).toMatchObject({
      application_type: "native",
      redirect_uris: ["com.example.app:/cb", "http://127.0.0.1/cb"],
      post_logout_redirect_uris: ["com.example.app:/bye"],
      token_endpoint_auth_method: "none",
      scope: "openid profile email",
      skip_consent: true,
      has_secret: false,
    });
    expect(client).not.toHaveProperty("client_secret");
    expect((await stored(client.client_id))?.client_secret_hash).toBeNull();
  });

  test("client_credentials only needs no redirect URI", async () => {
    const result = await box.run(["clients", "add", "--json", "--name", "Daemon", "--grant-type", "client_credentials", "--auth-method", "client_secret_post"]);
    expect(result.code).toBe(0);
    expect(result.json<Added>()).toMatchObject({ grant_types: ["client_credentials"], response_types: [], redirect_uris: [] });
  });

  test("the device grant (RFC 8628) needs no redirect URI, and allows refresh_token without authorization_code", async () => {
    const device = "urn:ietf:params:oauth:grant-type:device_code";
    const result = await box.run(["clients", "add", "--json", "--name", "TV", "--grant-type", device, "--grant-type", "refresh_token", "--auth-method", "none"]);
    expect(result.code).toBe(0);
    expect(result.json<Added>()).toMatchObject({ grant_types: [device, "refresh_token"], response_types: [], redirect_uris: [] });
    const refresh_alone = await box.run(["clients", "add", "--name", "X", "--grant-type", "client_credentials", "--grant-type", "refresh_token"]);
    expect([refresh_alone.code, refresh_alone.stderr.includes("--grant-type refresh_token needs authorization_code or urn:ietf:params:oauth:grant-type:device_code")]).toEqual([
      1,
      true,
    ]);
  });

  test("private_key_jwt takes public keys only", async () => {
    const jwks = JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }] });
    const ok = await add("--json", "--auth-method", "private_key_jwt", "--jwks-json", jwks);
    expect(ok.code).toBe(0);
    expect(ok.json<Added>()).toMatchObject({ token_endpoint_auth_method: "private_key_jwt", has_secret: false });
    const missing = await add("--auth-method", "private_key_jwt");
    expect(missing.stderr).toContain("--jwks-uri or --jwks-json");
    const private_key = await add("--auth-method", "private_key_jwt", "--jwks-json", JSON.stringify({ keys: [{ kty: "oct", k: "c2VjcmV0" }] }));
    expect([private_key.code, private_key.stderr]).toEqual([1, 'error: --jwks-json key 1: has the private member "k"; register public keys only\n']);
    const http_uri = await add("--auth-method", "private_key_jwt", "--jwks-uri", "http://keys.example/jwks");
    expect(http_uri.stderr).toContain("must be an https URL");
  });

  test("bad redirect URIs are rejected with a clear error and nothing is stored", async () => {
    const cases: [string[], string][] = [
      [["--redirect-uri", "not a url"], 'redirect URI "not a url" is not an absolute URI'],
      [["--redirect-uri", "http://app.example.com/cb"], "uses http on a host that is not loopback"],
      [["--redirect-uri", "https://app.example.com/cb#x"], "must not contain a fragment"],
      [["--redirect-uri", "com.example.app:/cb"], "only native applications"],
      [["--redirect-uri", "https://ok.example/cb", "--post-logout-redirect-uri", "javascript:alert(1)"], 'post_logout_redirect_uris: "javascript:alert(1)"'],
    ];
    for (const [uris, message] of cases) {
      const result = await box.run(["clients", "add", "--name", "Bad", ...uris]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe("");
    }
    expect((await box.run(["clients", "list", "--json"])).json()).toEqual([]);
  });

  test("a redirect URI that POST /register refuses is refused with the registration's own message", async () => {
    // One provider in process, open registration, to ask POST /register about the same URIs.
    const store = await open_store("sqlite::memory:");
    try {
      const config = load_config({}, { issuer: "https://id.example.com", database_url: "sqlite::memory:", signing_algs: ["RS256"], log_requests: false, registration: "open" });
      const app = build_app(await create_provider(config, { store, log: () => {} }));
      const cases: { redirect_uris: string[]; post_logout_redirect_uris?: string[]; error: string }[] = [
        { redirect_uris: ["https://*.example.com/cb"], error: "invalid_redirect_uri" },
        { redirect_uris: ["https://app.example.com/*"], error: "invalid_redirect_uri" },
        { redirect_uris: ["https://app.example.com/cb#frag"], error: "invalid_redirect_uri" },
        { redirect_uris: ["https://app.example.com/cb"], post_logout_redirect_uris: ["https://*.example.com/bye"], error: "invalid_client_metadata" },
      ];
      for (const { redirect_uris, post_logout_redirect_uris = [], error } of cases) {
        const answer = await app.fetch(
          new Request("https://id.example.com/register", {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json" },
            body: JSON.stringify({ redirect_uris, post_logout_redirect_uris }),
          }),
        );
        const body = (await answer.json()) as { error: string; error_description: string };
        expect([answer.status, body.error]).toEqual([400, error]);
        const argv = [...redirect_uris.flatMap((uri) => ["--redirect-uri", uri]), ...post_logout_redirect_uris.flatMap((uri) => ["--post-logout-redirect-uri", uri])];
        const result = await box.run(["clients", "add", "--name", "Bad", ...argv]);
        expect([result.code, result.stderr]).toEqual([1, `error: ${body.error_description}\n`]);
        expect(result.stdout).toBe("");
      }
      expect(await store.list_clients()).toEqual([]);
      expect((await box.run(["clients", "list", "--json"])).json()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test("bad option values and missing options", async () => {
    const checks: [string[], number, string][] = [
      [["clients", "add", "--redirect-uri", "https://a.example/cb"], 2, "needs --name"],
      [["clients", "add", "--name", "X"], 2, "at least one --redirect-uri"],
      [["clients", "add", "--name", "X", "--redirect-uri", "https://a.example/cb", "--auth-method", "magic"], 1, '--auth-method "magic" is not one of'],
      [["clients", "add", "--name", "X", "--redirect-uri", "https://a.example/cb", "--grant-type", "password"], 1, '--grant-type "password"'],
      [["clients", "add", "--name", "X", "--redirect-uri", "https://a.example/cb", "--application-type", "tv"], 1, "--application-type"],
      [["clients", "add", "--name", "X", "--grant-type", "client_credentials", "--auth-method", "none"], 1, "needs an authenticating client"],
      // The rule the admin API and the console keep too (oidc/admin/clients.ts operator_metadata_problem).
      [
        ["clients", "add", "--name", "X", "--grant-type", "client_credentials", "--grant-type", "refresh_token"],
        1,
        "--grant-type refresh_token needs authorization_code or urn:ietf:params:oauth:grant-type:device_code too (refresh tokens are issued with those)",
      ],
      [["clients", "add", "--name", "X", "--redirect-uri", "https://a.example/cb", "--scope", 'openid "x"'], 1, "not a valid scope"],
      [["clients", "add", "--name", "X", "--redirect-uri", "https://a.example/cb", "--secret", "x"], 2, "unknown option --secret"],
    ];
    for (const [argv, code, message] of checks) {
      const result = await box.run(argv);
      expect([result.code, result.stderr.includes(message)]).toEqual([code, true]);
    }
  });
});

describe("idp clients list/show/remove/rotate-secret", () => {
  test("rotate-secret prints a new secret once and invalidates the old hash", async () => {
    const client = (await add("--json")).json<Added>();
    const rotated = await box.run(["clients", "rotate-secret", client.client_id, "--json"]);
    expect(rotated.code).toBe(0);
    const { client_secret } = rotated.json<{ client_secret: string }>();
    expect(client_secret).toHaveLength(43);
    expect(client_secret).not.toBe(client.client_secret);
    expect((await stored(client.client_id))?.client_secret_hash).toBe(sha256(client_secret));
    const human = await box.run(["clients", "rotate-secret", client.client_id]);
    expect(human.stdout).toMatch(/client_secret:\s+[A-Za-z0-9_-]{43}/);
    const show = await box.run(["clients", "show", client.client_id]);
    expect(show.stdout).not.toContain(client_secret);
  });

  test("rotate-secret refuses clients without a secret", async () => {
    const pub = (await add("--json", "--auth-method", "none")).json<Added>();
    const result = await box.run(["clients", "rotate-secret", pub.client_id]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("authenticates with none and has no secret to rotate");
  });

  test("remove deletes; unknown ids are errors with exit 1", async () => {
    const a = (await add("--json")).json<Added>();
    const b = (await box.run(["clients", "add", "--json", "--name", "Other", "--redirect-uri", "http://localhost:8080/cb"])).json<Added>();
    const listed = (await box.run(["clients", "list", "--json"])).json<Added[]>();
    expect(listed.map((c) => c.client_id).sort()).toEqual([a.client_id, b.client_id].sort());
    expect(listed.every((c) => !("client_secret" in c) && !("client_secret_hash" in c))).toBe(true);

    const removed = await box.run(["clients", "remove", a.client_id, "--json"]);
    expect(removed.json()).toEqual({ removed: true, client_id: a.client_id });
    for (const sub of ["show", "remove", "rotate-secret"]) {
      const result = await box.run(["clients", sub, a.client_id]);
      expect([result.code, result.stderr]).toEqual([1, `error: no client "${a.client_id}"\n`]);
    }
    const human = await box.run(["clients", "list"]);
    expect(human.stdout).toMatch(/^CLIENT_ID\s+NAME\s+AUTH METHOD/);
    expect(human.stdout).toContain("Other");
    expect(human.stdout).not.toContain("My App");
  });

  test("actions are recorded in the audit log", async () => {
    const client = (await add("--json")).json<Added>();
    await box.run(["clients", "rotate-secret", client.client_id]);
    await box.run(["clients", "remove", client.client_id]);
    const events = (await box.run(["audit", "list", "--client", client.client_id, "--json"])).json<{ type: string; outcome: string }[]>();
    expect(events.map((e) => e.type)).toEqual(["client_deleted", "client_secret_rotated", "client_registered"]);
    expect(events.every((e) => e.outcome === "success")).toBe(true);
    expect(JSON.stringify(events)).not.toContain(client.client_secret!);
  });
});

describe("idp clients add --resource-server / --backchannel-logout-uri", () => {
  test("--resource-server marks the client allowed to introspect others' tokens; show displays it", async () => {
    const api = (await box.run(["clients", "add", "--json", "--name", "API", "--grant-type", "client_credentials", "--resource-server"])).json<Added>();
    expect(api.resource_server).toBe(true);
    expect((await stored(api.client_id))?.metadata.resource_server).toBe(true);
    expect((await box.run(["clients", "show", api.client_id, "--json"])).json<Added>().resource_server).toBe(true);
    expect((await box.run(["clients", "show", api.client_id])).stdout).toMatch(/^resource_server:\s+yes$/m);
    // Not marked: show says so, and the metadata does not carry it.
    const app = (await add("--json")).json<Added>();
    expect((await stored(app.client_id))?.metadata).not.toHaveProperty("resource_server");
    expect((await box.run(["clients", "show", app.client_id])).stdout).toMatch(/^resource_server:\s+no$/m);
  });

  test("--resource-server needs an authenticating client", async () => {
    const result = await add("--auth-method", "none", "--resource-server");
    expect([result.code, result.stderr]).toEqual([1, "error: --resource-server needs an authenticating client (not --auth-method none)\n"]);
  });

  test("--backchannel-logout-uri is stored when https or loopback http, refused otherwise", async () => {
    const ok = (await add("--json", "--backchannel-logout-uri", "https://app.example.com/bcl")).json<Added>();
    expect(ok.backchannel_logout_uri).toBe("https://app.example.com/bcl");
    expect((await stored(ok.client_id))?.metadata.backchannel_logout_uri).toBe("https://app.example.com/bcl");
    expect((await add("--json", "--backchannel-logout-uri", "http://127.0.0.1:9000/bcl")).code).toBe(0);
    const cases: [string, string][] = [
      ["http://app.example.com/bcl", "is neither https nor http on a loopback host"],
      ["https://app.example.com/bcl#x", "has a fragment"],
      ["not a url", "is not an absolute URL"],
    ];
    for (const [uri, message] of cases) {
      const result = await add("--backchannel-logout-uri", uri);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`--backchannel-logout-uri "${uri}" ${message}`);
    }
  });
});

describe("idp clients add --require-par / --dpop-bound", () => {
  test("store require_pushed_authorization_requests (RFC 9126 §6) and dpop_bound_access_tokens (RFC 9449 §5.2)", async () => {
    const strict = (await add("--json", "--auth-method", "none", "--require-par", "--dpop-bound")).json<Added>();
    expect(strict.require_pushed_authorization_requests).toBe(true);
    expect(strict.dpop_bound_access_tokens).toBe(true);
    expect((await stored(strict.client_id))?.metadata).toMatchObject({ require_pushed_authorization_requests: true, dpop_bound_access_tokens: true });
    // Not given: not in the metadata.
    const plain = (await add("--json")).json<Added>();
    expect((await stored(plain.client_id))?.metadata).not.toHaveProperty("require_pushed_authorization_requests");
    expect((await stored(plain.client_id))?.metadata).not.toHaveProperty("dpop_bound_access_tokens");
  });
});
