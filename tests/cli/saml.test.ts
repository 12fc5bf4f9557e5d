/**
 * `idp saml add|list|show|update|remove`: a service provider registered from its metadata (a
 * file, or a URL fetched through the outbound fence), the operator's settings checked, bad input
 * refused naming the option and changing nothing, every change audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { serve_fetch } from "../helpers/serve_fetch.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";
import { sp_key, sp_metadata } from "../helpers/saml.ts";

type Shown = {
  entity_id: string;
  name: string;
  idp_metadata_url: string;
  assertion_consumer_services: string[];
  authn_requests_signed: boolean;
  nameid_format: string;
  attributes: Record<string, string>;
  allowed_groups: string[];
  idp_initiated: boolean;
  sign: string;
  metadata_url: string | null;
};

let box: Sandbox;
let file: string;
const ENTITY = "https://wiki.example.com/saml/metadata";
beforeAll(async () => {
  box = sandbox();
  box.env.IDP_ISSUER = "https://idp.example.com";
  const key = await sp_key("wiki.example.com");
  file = join(box.dir, "sp.xml");
  writeFileSync(file, sp_metadata({ entity_id: ENTITY, acs: ["https://wiki.example.com/saml/acs"], certificate: key.certificate, authn_requests_signed: true }));
  expect((await box.run(["groups", "add", "Staff"])).code).toBe(0);
});
afterAll(() => box.cleanup());

describe("idp saml", () => {
  test("add prints the service provider's entityID and our metadata URL; list, show, update, remove; audited", async () => {
    const added = await box.run([
      "saml",
      "add",
      "--metadata-file",
      file,
      "--name",
      "Team wiki",
      "--attribute",
      "employeeType=groups",
      "--attribute",
      "urn:oid:2.5.4.12=nickname",
      "--allowed-group",
      "staff",
      "--sign",
      "both",
      "--json",
    ]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.json<Shown>()).toMatchObject({
      entity_id: ENTITY,
      name: "Team wiki",
      idp_metadata_url: "https://idp.example.com/saml/metadata",
      assertion_consumer_services: ["https://wiki.example.com/saml/acs"],
      authn_requests_signed: true,
      nameid_format: "persistent",
      attributes: { employeeType: "groups", "urn:oid:2.5.4.12": "nickname" },
      // As the group spells itself.
      allowed_groups: ["Staff"],
      idp_initiated: false,
      sign: "both",
      metadata_url: null,
    });
    expect(added.stdout).not.toContain("salt");

    const list = await box.run(["saml", "list"]);
    expect(list.stdout).toMatch(/ENTITY ID\s+NAME\s+NAMEID\s+SIGN\s+IDP-INITIATED\s+GROUPS\s+CREATED/);
    expect(list.stdout).toMatch(/https:\/\/wiki\.example\.com\/saml\/metadata\s+Team wiki\s+persistent\s+both\s+off\s+Staff/);
    const show = await box.run(["saml", "show", ENTITY]);
    expect(show.stdout).toMatch(/idp_metadata_url:\s+https:\/\/idp\.example\.com\/saml\/metadata/);
    expect(show.stdout).toMatch(/attributes:\s+employeeType=groups urn:oid:2\.5\.4\.12=nickname/);

    const updated = await box.run(["saml", "update", ENTITY, "--nameid-format", "email", "--idp-initiated", "--clear-allowed-groups", "--sign", "assertion", "--json"]);
    expect(updated.code).toBe(0);
    expect(updated.json<Shown>()).toMatchObject({
      nameid_format: "email",
      idp_initiated: true,
      allowed_groups: [],
      sign: "assertion",
      name: "Team wiki",
      attributes: { employeeType: "groups" },
    });
    const off = await box.run(["saml", "update", ENTITY, "--no-idp-initiated", "--clear-attributes"]);
    expect(off.stdout).toContain(`Updated SAML service provider ${ENTITY} (attributes, idp_initiated)`);
    const stored = await with_store(box, (store) => store.get_saml_service_provider(ENTITY));
    expect(stored).toMatchObject({ idp_initiated: false, attributes: {}, nameid_format: "email" });
    expect(stored!.nameid_salt.length).toBeGreaterThanOrEqual(43);

    expect((await box.run(["saml", "remove", ENTITY])).stdout).toContain(`Removed SAML service provider ${ENTITY}.`);
    const gone = await box.run(["saml", "show", ENTITY]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`no SAML service provider "${ENTITY}"`);
    const events = await with_store(box, (store) => store.list_audit_events({}));
    expect(events.filter((e) => e.type.startsWith("saml_sp_")).map((e) => [e.type, e.details?.entity_id])).toEqual([
      ["saml_sp_deleted", ENTITY],
      ["saml_sp_updated", ENTITY],
      ["saml_sp_updated", ENTITY],
      ["saml_sp_created", ENTITY],
    ]);
  });

  test("--encrypt needs an RSA encryption certificate in the metadata; --no-encrypt turns it off; new metadata without one is refused while on", async () => {
    const entity = "https://crypt.example.com/sp";
    const key = await sp_key("crypt.example.com");
    const plain = join(box.dir, "crypt-plain.xml");
    const keyed = join(box.dir, "crypt-keyed.xml");
    writeFileSync(plain, sp_metadata({ entity_id: entity, acs: ["https://crypt.example.com/acs"], certificate: key.certificate }));
    writeFileSync(keyed, sp_metadata({ entity_id: entity, acs: ["https://crypt.example.com/acs"], certificate: key.certificate, encryption_certificate: key.certificate }));
    const refused = await box.run(["saml", "add", "--metadata-file", plain, "--encrypt"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("encrypt: the service provider's metadata has no RSA encryption certificate");
    expect(await with_store(box, (store) => store.get_saml_service_provider(entity))).toBeNull();
    const added = await box.run(["saml", "add", "--metadata-file", keyed, "--encrypt", "--json"]);
    expect(added.code).toBe(0);
    expect(added.json<Shown & { encrypt: boolean }>().encrypt).toBe(true);
    const swapped = await box.run(["saml", "update", entity, "--metadata-file", plain]);
    expect(swapped.code).toBe(1);
    expect(swapped.stderr).toContain("no RSA encryption certificate");
    expect((await box.run(["saml", "update", entity, "--encrypt", "--no-encrypt"])).stderr).toContain("give --encrypt or --no-encrypt, not both");
    const off = await box.run(["saml", "update", entity, "--no-encrypt", "--metadata-file", plain, "--json"]);
    expect(off.code).toBe(0);
    expect(off.json<Shown & { encrypt: boolean }>().encrypt).toBe(false);
    expect((await with_store(box, (store) => store.get_saml_service_provider(entity)))?.encrypt).toBe(false);
    expect((await box.run(["saml", "remove", entity])).code).toBe(0);
  });

  test("--metadata-file - reads the metadata from standard input", async () => {
    const entity = "https://stdin.example.com/sp";
    const added = await box.run(["saml", "add", "--metadata-file", "-", "--name", "From stdin", "--json"], {
      stdin: sp_metadata({ entity_id: entity, acs: ["https://stdin.example.com/acs"] }),
    });
    expect(added.stderr).toBe("");
    expect(added.json<Shown>()).toMatchObject({ entity_id: entity, name: "From stdin", assertion_consumer_services: ["https://stdin.example.com/acs"] });
    expect((await box.run(["saml", "remove", entity])).code).toBe(0);
  });

  test("bad input names the option and registers nothing", async () => {
    const write = (name: string, xml: string) => {
      const path = join(box.dir, name);
      writeFileSync(path, xml);
      return path;
    };
    const other = "https://other.example.com/sp";
    const good = write("good.xml", sp_metadata({ entity_id: other, acs: ["https://other.example.com/acs"] }));
    const cases: [string[], string][] = [
      [["saml", "add"], "give the service provider's metadata: --metadata-file FILE or --metadata-url URL"],
      [["saml", "add", "--metadata-file", join(box.dir, "missing.xml")], "cannot read"],
      [["saml", "add", "--metadata-file", good, "--metadata-url", "https://x.example/"], "not both"],
      [
        ["saml", "add", "--metadata-file", write("xxe.xml", `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`)],
        "metadata: the metadata cannot be read: the document has a DTD",
      ],
      [["saml", "add", "--metadata-file", write("idp.xml", `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>`)], "one md:SPSSODescriptor"],
      [["saml", "add", "--metadata-file", write("http.xml", sp_metadata({ entity_id: other, acs: ["http://other.example.com/acs"] }))], "uses http on a host that is not loopback"],
      [
        [
          "saml",
          "add",
          "--metadata-file",
          write("redirect.xml", sp_metadata({ entity_id: other, acs: [{ location: "https://o.example/acs", binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" }] })),
        ],
        "no AssertionConsumerService for the HTTP-POST binding",
      ],
      [
        ["saml", "add", "--metadata-file", write("nokey.xml", sp_metadata({ entity_id: other, acs: ["https://o.example/acs"], authn_requests_signed: true }))],
        "no signing certificate",
      ],
      [["saml", "add", "--metadata-file", good, "--nameid-format", "kerberos"], '--nameid-format: "kerberos" is not one of persistent, email, transient, unspecified'],
      [["saml", "add", "--metadata-file", good, "--sign", "none"], '--sign: "none" is not one of assertion, response, both'],
      [["saml", "add", "--metadata-file", good, "--attribute", "employee"], "--attribute must be NAME=CLAIM"],
      [["saml", "add", "--metadata-file", good, "--attribute", "x=password_hash"], '--attribute: claim "password_hash" is not one of'],
      [["saml", "add", "--metadata-file", good, "--attribute", "bad name=email"], "--attribute: attribute name"],
      [["saml", "add", "--metadata-file", good, "--allowed-group", "nobody"], '--allowed-group: no group "nobody" (create it first)'],
      [
        [
          "saml",
          "add",
          "--metadata-file",
          write("want.xml", sp_metadata({ entity_id: other, acs: ["https://o.example/acs"], want_assertions_signed: true })),
          "--sign",
          "response",
        ],
        "--sign: the service provider's metadata asks for signed assertions",
      ],
    ];
    for (const [argv, message] of cases) {
      const result = await box.run(argv);
      expect({ argv, code: result.code }).toEqual({ argv, code: 1 });
      expect(result.stderr).toContain(message);
    }
    expect(await with_store(box, (store) => store.get_saml_service_provider(other))).toBeNull();
    // Registered twice: a conflict; and an update cannot change the entityID.
    expect((await box.run(["saml", "add", "--metadata-file", good])).code).toBe(0);
    const twice = await box.run(["saml", "add", "--metadata-file", good]);
    expect(twice.stderr).toContain(`service provider ${other} is already registered`);
    const moved = await box.run(["saml", "update", other, "--metadata-file", file]);
    expect(moved.stderr).toContain(`the metadata describes ${ENTITY}, not ${other}`);
    expect((await box.run(["saml", "update", "https://nobody.example/", "--name", "x"])).stderr).toContain('no service provider "https://nobody.example/"');
  });

  test("--metadata-url goes through the outbound fence: a loopback address is refused unless allowed", async () => {
    const entity = "https://fetched.example.com/sp";
    const server = await serve_fetch(() => new Response(sp_metadata({ entity_id: entity, acs: ["https://fetched.example.com/acs"] })));
    try {
      const url = `http://127.0.0.1:${server.port}/metadata`;
      const refused = await box.run(["saml", "add", "--metadata-url", url], { env: { IDP_OUTBOUND_ALLOW_HTTP: "true" } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("--metadata-url:");
      expect(refused.stderr).toContain("loopback");
      const allowed = await box.run(["saml", "add", "--metadata-url", url, "--json"], { env: { IDP_OUTBOUND_ALLOW_HTTP: "true", IDP_OUTBOUND_ALLOW: "127.0.0.1" } });
      expect(allowed.stderr).toBe("");
      expect(allowed.json<Shown>()).toMatchObject({ entity_id: entity, metadata_url: url });
      const events = await with_store(box, (store) => store.list_audit_events({ type: "outbound_refused" }));
      expect(events[0]?.details).toMatchObject({ purpose: "saml_metadata" });
    } finally {
      await server.stop();
    }
  });
});
