/**
 * `idp resources add|list|show|remove` (RFC 8707 resource servers) and the token exchange
 * policy flags of `idp clients add|update` (RFC 8693): bad input is refused naming the flag and
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { AuditEvent, ClientMetadata, ResourceServerRow } from "../../src/store/types.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

const EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

describe("idp resources", () => {
  test("add (opaque by default, jwt with --format), list, show, remove; audited", async () => {
    const added = await box.run(["resources", "add", "https://api.example.com/docs", "--scope", "read:docs write:docs", "--format", "jwt", "--ttl", "300", "--json"]);
    expect(added.code).toBe(0);
    expect(added.json<ResourceServerRow>()).toMatchObject({
      uri: "https://api.example.com/docs",
      scopes: ["read:docs", "write:docs"],
      access_token_format: "jwt",
      access_token_ttl: 300,
    });
    const plain = await box.run(["resources", "add", "https://mail.example.com/", "--scope", "read:mail", "--scope", "send:mail"]);
    expect(plain.stdout).toContain("Registered resource https://mail.example.com/ (opaque access tokens; scopes read:mail send:mail)");

    const list = await box.run(["resources", "list"]);
    expect(list.stdout).toMatch(/URI\s+FORMAT\s+SCOPES\s+TTL\s+CREATED/);
    expect(list.stdout).toMatch(/https:\/\/api\.example\.com\/docs\s+jwt\s+read:docs write:docs\s+300/);
    expect((await box.run(["resources", "list", "--json"])).json<ResourceServerRow[]>().map((r) => r.uri)).toEqual(["https://api.example.com/docs", "https://mail.example.com/"]);
    expect((await box.run(["resources", "show", "https://mail.example.com/"])).stdout).toMatch(/access_token_ttl:\s+default/);

    expect((await box.run(["resources", "remove", "https://mail.example.com/"])).stdout).toContain("Removed resource https://mail.example.com/");
    const gone = await box.run(["resources", "show", "https://mail.example.com/"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no resource "https://mail.example.com/"');
    const events = await with_store(box, (store) => store.list_audit_events({}));
    expect(events.map((e: AuditEvent) => e.type)).toEqual(expect.arrayContaining(["resource_created", "resource_deleted"]));
  });

  test("bad input names the flag and registers nothing", async () => {
    const cases: [string[], string][] = [
      [["resources", "add", "https://x.example.com/#frag", "--scope", "a"], "URI: must not include a fragment"],
      [["resources", "add", "relative/path", "--scope", "a"], "URI: must be an absolute URI"],
      [["resources", "add", "https://x.example.com/"], "--scope: needs at least one scope"],
      [["resources", "add", "https://x.example.com/", "--scope", 'bad"scope'], '--scope: "bad"scope" is not a valid scope name'],
      [["resources", "add", "https://x.example.com/", "--scope", "a", "--format", "xml"], '--format: "xml" is not one of opaque, jwt'],
      [["resources", "add", "https://x.example.com/", "--scope", "a", "--ttl", "10"], "--ttl: must be a whole number of seconds from 60 to 86400"],
      [["resources", "add", "https://api.example.com/docs", "--scope", "a"], "resource https://api.example.com/docs is already registered"],
    ];
    for (const [argv, message] of cases) {
      const result = await box.run(argv);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
    }
    expect(await with_store(box, (store) => store.get_resource_server("https://x.example.com/"))).toBeNull();
  });
});

describe("idp clients --token-exchange", () => {
  test("add sets the policy, update replaces it and off removes it", async () => {
    const added = await box.run([
      "clients",
      "add",
      "--name",
      "Gateway",
      "--grant-type",
      EXCHANGE,
      "--token-exchange",
      "delegation",
      "--token-exchange-from",
      "*",
      "--token-exchange-resource",
      "https://api.example.com/docs",
      "--json",
    ]);
    expect(added.code).toBe(0);
    const client_id = added.json<{ client_id: string }>().client_id;
    const metadata = async (): Promise<ClientMetadata> => with_store(box, async (store) => (await store.get_client(client_id))!.metadata);
    expect((await metadata()).token_exchange).toEqual({ subject_clients: ["*"], impersonation: false, delegation: true, resources: ["https://api.example.com/docs"] });

    const updated = await box.run([
      "clients",
      "update",
      client_id,
      "--token-exchange",
      "both",
      "--token-exchange-from",
      "web-app",
      "--token-exchange-resource",
      "https://api.example.com/docs",
    ]);
    expect(updated.stdout).toContain("token_exchange");
    expect((await metadata()).token_exchange).toEqual({ subject_clients: ["web-app"], impersonation: true, delegation: true, resources: ["https://api.example.com/docs"] });
    expect((await box.run(["clients", "update", client_id, "--token-exchange", "off"])).code).toBe(0);
    expect((await metadata()).token_exchange).toBeUndefined();
  });

  test("refusals name the flag: no grant, an unknown resource, a missing --token-exchange-from, a bad mode", async () => {
    const cases: [string[], string][] = [
      [
        [
          "clients",
          "add",
          "--name",
          "A",
          "--redirect-uri",
          "https://a.example.com/cb",
          "--token-exchange",
          "both",
          "--token-exchange-from",
          "*",
          "--token-exchange-resource",
          "https://api.example.com/docs",
        ],
        `needs the client registered for the grant ${EXCHANGE}`,
      ],
      [
        [
          "clients",
          "add",
          "--name",
          "B",
          "--grant-type",
          EXCHANGE,
          "--token-exchange",
          "both",
          "--token-exchange-from",
          "*",
          "--token-exchange-resource",
          "https://nope.example.com/",
        ],
        '--token-exchange-resource: no resource "https://nope.example.com/"',
      ],
      [
        ["clients", "add", "--name", "C", "--grant-type", EXCHANGE, "--token-exchange", "both", "--token-exchange-resource", "https://api.example.com/docs"],
        "--token-exchange needs --token-exchange-from",
      ],
      [
        [
          "clients",
          "add",
          "--name",
          "D",
          "--grant-type",
          EXCHANGE,
          "--token-exchange",
          "sometimes",
          "--token-exchange-from",
          "*",
          "--token-exchange-resource",
          "https://api.example.com/docs",
        ],
        '--token-exchange "sometimes" is not one of impersonation, delegation, both',
      ],
    ];
    for (const [argv, message] of cases) {
      const result = await box.run(argv);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
    }
    const names = await with_store(box, async (store) => (await store.list_clients()).map((c) => c.metadata.client_name));
    expect(names).not.toContain("B");
  });
});
