/**
 * Attribute values (oidc/attributes/values.ts): each type's checks and size bounds, the CLI's
 * KEY=VALUE text (numbers in JSON's form only, true/false, lists comma-separated or repeated),
 * text that round-trips, and the custom attributes of a SAML assertion (saml/attributes.ts).
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import fc from "fast-check";
import { AdminError } from "../../../src/oidc/admin/errors.ts";
import { map_attribute_claims, released_definitions, type AttributeCatalog } from "../../../src/oidc/attributes/claims.ts";
import { attribute_scope_problem } from "../../../src/oidc/attributes/definitions.ts";
import { attribute_text, check_attribute_value, MAX_ITEMS, parse_attribute_assignments, parse_attribute_text } from "../../../src/oidc/attributes/values.ts";
import { user_attributes } from "../../../src/oidc/saml/attributes.ts";
import type { AttributeDefinitionRow, AttributeType, UserRow } from "../../../src/store/types.ts";

const def = (name: string, type: AttributeType, over: Partial<AttributeDefinitionRow> = {}): AttributeDefinitionRow => ({
  name,
  type,
  scope: "profile",
  claim: name,
  user_editable: false,
  required: false,
  created_at: 0,
  updated_at: 0,
  ...over,
});
const DEFS = [def("dept", "string"), def("age", "number"), def("contractor", "boolean"), def("teams", "string[]")];

describe("attribute values", () => {
  test("each type accepts its own values and refuses others, naming why", () => {
    expect(check_attribute_value(DEFS[0]!, "Sales")).toEqual({ ok: true, value: "Sales" });
    expect(check_attribute_value(DEFS[0]!, 1)).toEqual({ ok: false, problem: "must be a string" });
    expect(check_attribute_value(DEFS[0]!, "x".repeat(1025))).toEqual({ ok: false, problem: "longer than 1024 characters" });
    expect(check_attribute_value(DEFS[0]!, "a\nb")).toEqual({ ok: false, problem: "contains control characters" });
    expect(check_attribute_value(DEFS[1]!, 4.5)).toEqual({ ok: true, value: 4.5 });
    expect(check_attribute_value(DEFS[1]!, Number.NaN)).toEqual({ ok: false, problem: "must be a finite number" });
    expect(check_attribute_value(DEFS[1]!, "4")).toEqual({ ok: false, problem: "must be a finite number" });
    expect(check_attribute_value(DEFS[2]!, "true")).toEqual({ ok: false, problem: "must be true or false" });
    expect(check_attribute_value(DEFS[3]!, ["a", "b"])).toEqual({ ok: true, value: ["a", "b"] });
    expect(check_attribute_value(DEFS[3]!, ["a", 1])).toEqual({ ok: false, problem: "must be a list of strings" });
    expect(
      check_attribute_value(
        DEFS[3]!,
        Array.from({ length: MAX_ITEMS + 1 }, () => "x"),
      ),
    ).toEqual({ ok: false, problem: `has more than ${MAX_ITEMS} items` });
    expect(check_attribute_value(DEFS[3]!, ["x".repeat(257)]).ok).toBe(false);
  });

  test("text: JSON numbers only, true/false, lists comma-separated; empty clears", () => {
    expect(parse_attribute_text(DEFS[1]!, "-1.5e3")).toEqual({ ok: true, value: -1500 });
    for (const bad of ["0x10", "1_000", "Infinity", "NaN", "1e999", " ", "01"]) expect(parse_attribute_text(DEFS[1]!, bad).ok).toBe(false);
    expect(parse_attribute_text(DEFS[2]!, "false")).toEqual({ ok: true, value: false });
    expect(parse_attribute_text(DEFS[2]!, "True").ok).toBe(false);
    expect(parse_attribute_text(DEFS[3]!, " red, ,blue ")).toEqual({ ok: true, value: ["red", "blue"] });
    expect(parse_attribute_text(DEFS[0]!, "")).toEqual({ ok: true, value: null });
  });

  test("assignments: keys ignore case and come back declared; repeats collect list items; mistakes name the attribute", () => {
    expect(parse_attribute_assignments(["DEPT=Ops", "teams=a", "Teams=b,c", "age="], DEFS)).toEqual({ dept: "Ops", teams: ["a", "b", "c"], age: null });
    const refusal = (assignments: string[]) => {
      try {
        parse_attribute_assignments(assignments, DEFS);
      } catch (error) {
        return error instanceof AdminError ? error.message : String(error);
      }
      return null;
    };
    expect(refusal(["=x"])).toBe('attribute: "=x" is not KEY=VALUE');
    expect(refusal(["nope=1"])).toContain('no attribute "nope" is declared');
    expect(refusal(["age=old"])).toBe('age: "old" is not a number');
  });

  test("property: a valid value written as text reads back as itself", () => {
    const item = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[\u0000-\u001f\u007f-\u009f,]/.test(s) && s.trim() === s && s !== "");
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 10 }), (items) => {
        expect(parse_attribute_text(DEFS[3]!, attribute_text(items))).toEqual({ ok: true, value: items });
      }),
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        // String(n) of a finite double is in JSON's number form ("-0" reads as "0": equal numbers).
        const parsed = parse_attribute_text(DEFS[1]!, attribute_text(n));
        expect(parsed.ok && parsed.value === n).toBe(true);
      }),
    );
  });

  test("scopes: standard claim scopes or the operator's lowercase names; never offline_access or admin", () => {
    for (const ok of ["profile", "email", "groups", "org", "hr.read", "acme:staff"]) expect(attribute_scope_problem(ok)).toBeNull();
    for (const bad of ["offline_access", "admin", "Org", "a b", "", "x".repeat(65)]) expect(attribute_scope_problem(bad)).not.toBeNull();
  });

  test("release: by scope or by requested claim name, under the claim name, nulls left out", () => {
    const catalog: AttributeCatalog = {
      definitions: [def("dept", "string", { scope: "org", claim: "department" }), def("age", "number", { scope: "hr" })],
      claim_scopes: new Map(),
    };
    expect(released_definitions(catalog, ["openid", "org"], []).map((d) => d.name)).toEqual(["dept"]);
    expect(released_definitions(catalog, ["openid"], ["age"]).map((d) => d.name)).toEqual(["age"]);
    expect(map_attribute_claims(catalog.definitions, { dept: "Ops", age: 3 })).toEqual({ department: "Ops", age: 3 });
  });

  test("SAML: custom attributes follow under their claim names, a list as several values; standard names win", () => {
    const user = { id: "u1", username: "alice", name: "Alice", email_verified: false } as unknown as UserRow;
    const attributes = user_attributes(user, [], {}, { department: "Sales", teams: ["red", "blue"], contractor: false, uid: "spoof" });
    const by = (name: string) => attributes.filter((a) => a.name === name);
    expect(by("department")).toEqual([{ name: "department", name_format: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic", friendly_name: null, values: ["Sales"] }]);
    expect(by("teams")[0]?.values).toEqual(["red", "blue"]);
    expect(by("contractor")[0]?.values).toEqual(["false"]);
    expect(by("uid")).toEqual([{ name: "uid", name_format: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic", friendly_name: null, values: ["alice"] }]);
  });
});
