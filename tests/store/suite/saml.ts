import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, type SamlServiceProviderPatch } from "../../../src/store/types.ts";
import { T0, seed_user, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function saml_tests(ctx: SuiteContext): void {
  describe("SAML service providers", () => {
    test("create with defaults, get, list in entityID order, delete; the entityID is unique", async () => {
      const store = ctx.store();
      const base = `https://${uid("sp").toLowerCase()}.example`;
      const plain = await store.create_saml_service_provider({ entity_id: `${base}/b`, name: "B", metadata_xml: "<md/>", nameid_salt: "salt-b", created_at: T0 });
      expect(plain).toEqual({
        entity_id: `${base}/b`,
        name: "B",
        metadata_xml: "<md/>",
        metadata_url: null,
        nameid_format: "persistent",
        attributes: {},
        allowed_groups: [],
        idp_initiated: false,
        sign: "assertion",
        encrypt: false,
        nameid_salt: "salt-b",
        created_at: T0,
        updated_at: T0,
      });
      const full = await store.create_saml_service_provider({
        entity_id: `${base}/a`,
        name: "A",
        metadata_xml: "<md a='1'/>",
        metadata_url: `${base}/metadata`,
        nameid_format: "email",
        attributes: { employeeNumber: "employee_number", "urn:oid:2.5.4.12": "title" },
        allowed_groups: ["staff", "ops"],
        idp_initiated: true,
        sign: "both",
        encrypt: true,
        nameid_salt: "salt-a",
      });
      expect(await store.get_saml_service_provider(`${base}/a`)).toEqual(full);
      expect(await store.get_saml_service_provider(`${base}/b`)).toEqual(plain);
      expect(await store.get_saml_service_provider(`${base}/c`)).toBeNull();
      const listed = (await store.list_saml_service_providers()).filter((row) => row.entity_id.startsWith(base));
      expect(listed.map((row) => row.entity_id)).toEqual([`${base}/a`, `${base}/b`]);
      expect(await rejection(store.create_saml_service_provider({ entity_id: `${base}/a`, name: "again", metadata_xml: "<md/>", nameid_salt: "s" }))).toBeInstanceOf(
        StoreConflictError,
      );
      expect(await store.delete_saml_service_provider(`${base}/a`)).toBe(true);
      expect(await store.delete_saml_service_provider(`${base}/a`)).toBe(false);
      expect(await store.get_saml_service_provider(`${base}/a`)).toBeNull();
    });

    test("update changes what is given and never the entityID, the salt or the creation time", async () => {
      const store = ctx.store();
      const entity_id = `https://${uid("sp").toLowerCase()}.example`;
      await store.create_saml_service_provider({ entity_id, name: "Before", metadata_xml: "<md/>", nameid_salt: "keep", created_at: T0 });
      const patch: SamlServiceProviderPatch = {
        name: "After",
        sign: "response",
        encrypt: true,
        idp_initiated: true,
        allowed_groups: ["x"],
        attributes: { a: "email" },
        updated_at: T0 + 5,
      };
      const sneaky = { ...patch, entity_id: "https://elsewhere.example", nameid_salt: "new", created_at: 1 } as SamlServiceProviderPatch;
      const updated = await store.update_saml_service_provider(entity_id, sneaky);
      expect(updated).toMatchObject({
        entity_id,
        name: "After",
        sign: "response",
        encrypt: true,
        idp_initiated: true,
        allowed_groups: ["x"],
        attributes: { a: "email" },
        nameid_salt: "keep",
        created_at: T0,
        updated_at: T0 + 5,
      });
      expect(await store.get_saml_service_provider(entity_id)).toEqual(updated);
      // Back to empty lists: an empty array and an empty object are stored as such.
      const cleared = await store.update_saml_service_provider(entity_id, { allowed_groups: [], attributes: {}, metadata_url: null });
      expect(cleared).toMatchObject({ allowed_groups: [], attributes: {}, metadata_url: null, name: "After" });
      expect(await store.get_saml_service_provider(entity_id)).toEqual(cleared);
      expect(await store.update_saml_service_provider("https://unknown.example", { name: "x" })).toBeNull();
    });
    test("session participants: kept per session and service provider, the latest NameID wins, found by SessionIndex or NameID, gone with the session", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const entity_id = `https://${uid("sp").toLowerCase()}.example/metadata`;
      await store.create_saml_service_provider({ entity_id, name: "SP", metadata_xml: "<md/>", nameid_salt: "salt" });
      const session = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: [], expires_at: T0 + 100 });
      const other = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: [], expires_at: T0 + 100 });
      const name_id = { format: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient", value: "_first", name_qualifier: "https://idp", sp_name_qualifier: entity_id };
      await store.add_saml_participant({ session_id_hash: session.id_hash, entity_id, name_id, session_index: "_i1", created_at: T0 });
      const second = { session_id_hash: session.id_hash, entity_id, name_id: { ...name_id, value: "_second" }, session_index: "_i1", created_at: T0 + 1 };
      await store.add_saml_participant(second);
      await store.add_saml_participant({ session_id_hash: other.id_hash, entity_id, name_id: { ...name_id, value: "_second" }, session_index: "_i2", created_at: T0 });
      // Nothing for a session or a service provider that is gone.
      await store.add_saml_participant({ ...second, session_id_hash: uid("gone") });
      await store.add_saml_participant({ ...second, entity_id: "https://unknown.example" });
      expect(await store.list_saml_participants(session.id_hash)).toEqual([second]);
      expect(await store.find_saml_participants(entity_id, "_second", "_i1")).toEqual([second]);
      expect(await store.find_saml_participants(entity_id, "_first", "_i1")).toEqual([]);
      expect((await store.find_saml_participants(entity_id, "_second", null)).length).toBe(2);
      expect(await store.delete_session(session.id_hash)).toBe(true);
      expect(await store.list_saml_participants(session.id_hash)).toEqual([]);
      expect(await store.delete_saml_service_provider(entity_id)).toBe(true);
      expect(await store.list_saml_participants(other.id_hash)).toEqual([]);
    });
  });
}
