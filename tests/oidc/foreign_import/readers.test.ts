/**
 * The readers of other providers' files (src/oidc/foreign_import/): the CSV parser against a
 * writer (property test), Keycloak's stored credential converted to a PHC string that verifies,
 * group paths flattened, and hostile files refused with the row named.
 */
import { pbkdf2Sync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, test } from "../../helpers/test_api.ts";
import { verify_foreign_hash } from "../../../src/oidc/crypto/foreign_hashes.ts";
import { read_auth0 } from "../../../src/oidc/foreign_import/auth0.ts";
import { keycloak_credential_hash, keycloak_group_name, read_keycloak } from "../../../src/oidc/foreign_import/keycloak.ts";
import { parse_csv, read_table } from "../../../src/oidc/foreign_import/table.ts";

function csv_field(value: string): string {
  return /[",\r\n]/.test(value) || value === "" ? `"${value.replace(/"/g, '""')}"` : value;
}

describe("CSV (RFC 4180)", () => {
  test("any table written with quotes reads back the same", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ maxLength: 12 }), { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 8 }), (rows) => {
        const text = rows.map((row) => row.map(csv_field).join(",")).join("\r\n");
        const parsed = parse_csv(text);
        expect("records" in parsed && parsed.records.map((r) => r.fields)).toEqual(rows);
      }),
      { numRuns: 500 },
    );
  });

  test("line numbers count the line breaks inside quoted fields", () => {
    const parsed = parse_csv('a,b\n"x\ny",z\nlast,row\n');
    expect("records" in parsed && parsed.records.map((r) => r.line)).toEqual([1, 2, 4]);
  });

  test("a quote left open is refused naming its line", () => {
    expect(read_table('username\nann\n"bob\n').errors).toEqual([{ at: "file", message: "line 3: a quoted field is not closed" }]);
  });

  test("no input makes the CSV reader throw", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        read_table(`username,email,password_hash,groups\n${text}`);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("Keycloak", () => {
  test("a stored pbkdf2-sha256 credential (as exported) becomes a PHC string that verifies", async () => {
    const salt = Buffer.from("0123456789abcdef");
    const value = pbkdf2Sync("hunter2 hunter2", salt, 27500, 64, "sha256").toString("base64");
    const converted = keycloak_credential_hash(
      JSON.stringify({ value, salt: salt.toString("base64"), additionalParameters: {} }),
      JSON.stringify({ hashIterations: 27500, algorithm: "pbkdf2-sha256", additionalParameters: {} }),
    );
    expect(converted).toEqual({ hash: `$pbkdf2-sha256$i=27500$${salt.toString("base64").replace(/=+$/, "")}$${value.replace(/=+$/, "")}` });
    expect(await verify_foreign_hash("hunter2 hunter2", (converted as { hash: string }).hash)).toBe(true);
  });

  test("argon2 (Keycloak 24+) becomes an argon2 PHC string; SHA-1 pbkdf2 is refused", () => {
    const argon2 = keycloak_credential_hash(
      { value: "AAAAAAAAAAAAAAAAAAAAAA==", salt: "c29tZXNhbHQ=" },
      { hashIterations: 5, algorithm: "argon2", additionalParameters: { hashLength: ["16"], memory: ["7168"], type: ["id"], version: ["1.3"], parallelism: ["1"] } },
    );
    expect(argon2).toEqual({ hash: "$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAA" });
    expect(keycloak_credential_hash({ value: "AAAA", salt: "AAAA" }, { hashIterations: 1, algorithm: "pbkdf2" })).toEqual({
      problem: 'password algorithm "pbkdf2" is not read (pbkdf2-sha256, pbkdf2-sha512 and argon2 are)',
    });
  });

  test("absurd iterations in a realm export are an error for that user, and nothing is planned", () => {
    const plan = read_keycloak(
      JSON.stringify({
        users: [
          {
            username: "mallory",
            credentials: [
              {
                type: "password",
                secretData: '{"value":"AAAAAAAAAAAAAAAAAAAAAA==","salt":"AAAAAAAAAAAAAAAAAAAAAA=="}',
                credentialData: '{"hashIterations":2000000000,"algorithm":"pbkdf2-sha256"}',
              },
            ],
          },
        ],
      }),
    );
    expect(plan.errors).toEqual([{ at: "users[0] (mallory)", message: "password_hash: PBKDF2 iterations 2000000000 (1 to 1000000 taken)" }]);
  });

  test("group paths: leading slash removed, other characters replaced by -", () => {
    expect(keycloak_group_name("/engineering/backend")).toBe("engineering/backend");
    expect(keycloak_group_name("/Sales Team/Émile's")).toBe("Sales-Team/-mile-s");
  });

  test("not a realm export", () => {
    expect(read_keycloak("[]").errors[0]?.message).toContain("not a Keycloak realm export");
    expect(read_keycloak("{").errors[0]?.message).toContain("not JSON");
  });
});

describe("Auth0 NDJSON", () => {
  test("bad lines are named by number; blank lines skipped", () => {
    const plan = read_auth0('{"email":"a@b.example"}\n\nnot json\n[1]\n{"email":"a@b.example"}\n');
    expect(plan.errors.map((e) => e.at)).toEqual(["line 3", "line 4", "line 5"]);
    expect(plan.users.map((u) => u.username)).toEqual(["a@b.example"]);
  });
});

describe("the table as JSON", () => {
  test("an array of objects with the CSV's members; groups as an array; unknown members refused", () => {
    const plan = read_table(
      JSON.stringify([
        { username: "grace", email: "grace@acme.example", email_verified: true, password_hash: "$2b$10$WVTyYB.ra0DqbAyvLkH3b.Gj6/6sXrjwlSzMKDMtZ2n43kz0EHrvS", groups: ["ops"] },
        { username: "ivan", emial: "typo@acme.example" },
      ]),
    );
    expect(plan.errors).toEqual([{ at: "[1]", message: "unknown members emial" }]);
    expect(plan.users).toMatchObject([{ username: "grace", email_verified: true, groups: ["ops"] }]);
    expect(plan.groups).toEqual(["ops"]);
  });
});
