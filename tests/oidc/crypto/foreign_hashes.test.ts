/**
 * Foreign password hashes (src/oidc/crypto/foreign_hashes.ts): known answers computed by other
 * implementations (crypt_blowfish's published test vectors, the argon2 reference implementation's
 * test vector, python3 hashlib for PBKDF2 and scrypt), wrong passwords refused, hostile
 * parameters refused before any work, and the canonical form read back (property tests).
 */
import fc from "fast-check";
import { describe, expect, test } from "../../helpers/test_api.ts";
import { FOREIGN_LIMITS, checked_imported_hash, foreign_kind, is_foreign_hash, parse_password_hash, verify_foreign_hash } from "../../../src/oidc/crypto/foreign_hashes.ts";

// crypt_blowfish 1.3 wrapper.c test vectors (Openwall), the reference for $2a$/$2y$.
const BCRYPT_VECTORS: [string, string][] = [
  ["U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"],
  ["U*U*", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"],
  ["U*U*U", "$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a"],
  ["0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789chars after 72 are ignored", "$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui"],
];

// python3: base64 of hashlib.pbkdf2_hmac / hashlib.scrypt over the salt b"saltsaltsaltsalt".
const SALT = "c2FsdHNhbHRzYWx0c2FsdA";
const PBKDF2_SHA256 = `$pbkdf2-sha256$i=27500$${SALT}$eAA4hxO3phBzs5xL0cbw/QNMYgcXgmgYB5i1VB4SaJoX2bCyrIxrozK24K+x+NAS18K0E9YZ150biARaSSoFZQ`;
const PBKDF2_SHA512 = `$pbkdf2-sha512$i=210000$${SALT}$7SKrneDIguHto6C02Pb6d/+Cjq8v+XDyHaNodzDeQS6iWJm8VUAyzhRLzsGYPOAOHThXyI0ghKBMMwxO0ruKcg`;
const SCRYPT = `$scrypt$ln=14,r=8,p=1$${SALT}$86agvzQGQXmabSK4ikKuI+pdiLYmxfKjerhf3/CldjQ`;
// The argon2 reference implementation's test.c: argon2i, "password", "somesalt", t=2, m=2^16, p=1.
const ARGON2I = "$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA";

describe("known answers", () => {
  test("bcrypt: crypt_blowfish's vectors, $2a$ $2b$ $2y$ alike, 72 bytes read", async () => {
    for (const [password, hash] of BCRYPT_VECTORS) {
      expect(await verify_foreign_hash(password, hash)).toBe(true);
      expect(await verify_foreign_hash(password, hash.replace("$2a$", "$2b$"))).toBe(true);
      expect(await verify_foreign_hash(password, hash.replace("$2a$", "$2y$"))).toBe(true);
      expect(await verify_foreign_hash(`!${password.slice(1)}`, hash)).toBe(false);
    }
    // Past 72 bytes nothing counts (the last vector's own point).
    expect(await verify_foreign_hash(`${BCRYPT_VECTORS[3]![0]}!`, BCRYPT_VECTORS[3]![1])).toBe(true);
  });

  test("PBKDF2-SHA256 and -SHA512 (python3 hashlib), UTF-8 passwords", async () => {
    expect(await verify_foreign_hash("correct horse", PBKDF2_SHA256)).toBe(true);
    expect(await verify_foreign_hash("correct horsf", PBKDF2_SHA256)).toBe(false);
    expect(await verify_foreign_hash("pässwörd", PBKDF2_SHA512)).toBe(true);
    expect(await verify_foreign_hash("passwörd", PBKDF2_SHA512)).toBe(false);
    // passlib's form: rounds without i=, "." for "+".
    expect(await verify_foreign_hash("correct horse", PBKDF2_SHA256.replace("i=27500", "27500").replace(/\+/g, "."))).toBe(true);
  });

  test("scrypt (python3 hashlib) and argon2i (reference vector)", async () => {
    expect(await verify_foreign_hash("scrypt pw", SCRYPT)).toBe(true);
    expect(await verify_foreign_hash("scrypt pW", SCRYPT)).toBe(false);
    expect(await verify_foreign_hash("password", ARGON2I)).toBe(true);
    expect(await verify_foreign_hash("passwore", ARGON2I)).toBe(false);
    // The same parameters read as argon2d compute another hash.
    expect(await verify_foreign_hash("password", ARGON2I.replace("argon2i", "argon2d"))).toBe(false);
  });

  test("kinds: argon2id is ours, the rest foreign", () => {
    expect(foreign_kind(BCRYPT_VECTORS[0]![1])).toBe("bcrypt");
    expect(foreign_kind(PBKDF2_SHA512)).toBe("pbkdf2-sha512");
    expect(foreign_kind(SCRYPT)).toBe("scrypt");
    expect(foreign_kind(ARGON2I)).toBe("argon2i");
    expect(is_foreign_hash(ARGON2I.replace("argon2i", "argon2id"))).toBe(false);
    expect(is_foreign_hash("")).toBe(false);
  });
});

describe("abuse: refused before any work", () => {
  const refused = async (hash: string, why: RegExp) => {
    const parsed = parse_password_hash(hash);
    expect("problem" in parsed && parsed.problem).toMatch(why);
    expect("problem" in checked_imported_hash(hash)).toBe(true);
    // Would take hours (or all memory) if computed: it answers at once.
    expect(await verify_foreign_hash("x", hash)).toBe(false);
  };
  test("bcrypt cost 31", () => refused(BCRYPT_VECTORS[0]![1].replace("$05$", "$31$"), /bcrypt cost 31/));
  test("PBKDF2 with four billion iterations", () => refused(PBKDF2_SHA256.replace("i=27500", "i=4000000000"), /iterations/));
  test("PBKDF2 with a 1 MiB derived key (each 32 bytes costs all iterations again)", () =>
    refused(`$pbkdf2-sha256$i=1000$${SALT}$${Buffer.alloc(1 << 20).toString("base64")}`, /longer than 512/));
  test("PBKDF2 with a 128-byte derived key", () => refused(`$pbkdf2-sha256$i=1000$${SALT}$${Buffer.alloc(128).toString("base64")}`, /hash of 128 bytes/));
  test("scrypt with 2^30 blocks of memory", () => refused(SCRYPT.replace("ln=14", "ln=30"), /scrypt memory/));
  test("scrypt with p=999 (work)", () => refused(SCRYPT.replace("p=1", "p=999"), /scrypt work/));
  test("argon2 with 4 TiB of memory", () => refused(ARGON2I.replace("m=65536", "m=4294967295"), /argon2 memory/));
  test("argon2 with 100000 passes", () => refused(ARGON2I.replace("t=2", "t=100000"), /argon2 passes/));
  test("argon2 memory and passes each in range, not together", () => refused(ARGON2I.replace("m=65536,t=2", "m=131072,t=4"), /memory × passes/));
  test("argon2 of an old version (v=16) and unknown schemes", async () => {
    await refused(ARGON2I.replace("v=19", "v=16"), /not a hash/);
    await refused("$1$saltsalt$abcdefghijklmnopqrstuv", /not a hash/);
    await refused("5f4dcc3b5aa765d61d8327deb882cf99", /not a hash/);
  });
  test("an empty password never verifies", async () => {
    expect(await verify_foreign_hash("", BCRYPT_VECTORS[0]![1])).toBe(false);
  });
  test("the limits allow what providers write by default", () => {
    expect(FOREIGN_LIMITS.pbkdf2_iterations).toBeGreaterThanOrEqual(600_000);
    expect(FOREIGN_LIMITS.bcrypt_cost).toBeGreaterThanOrEqual(12);
  });
});

describe("properties", () => {
  test("no string makes parse_password_hash throw; what it takes is within the limits", () => {
    const pieces = fc.constantFrom(
      "$",
      "2b",
      "2a",
      "pbkdf2-sha256",
      "scrypt",
      "argon2i",
      "argon2d",
      "v=19",
      "m=",
      "t=",
      "p=",
      "ln=",
      "r=",
      "i=",
      ",",
      "9",
      "99999999",
      "AAAA",
      ".",
      "/",
      "=",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(pieces, { maxLength: 20 }).map((p) => p.join("")),
        ),
        (text) => {
          const parsed = parse_password_hash(text);
          if ("problem" in parsed) return;
          if (parsed.kind === "bcrypt") expect(parsed.cost).toBeLessThanOrEqual(FOREIGN_LIMITS.bcrypt_cost);
          if (parsed.kind === "pbkdf2-sha256" || parsed.kind === "pbkdf2-sha512") expect(parsed.iterations).toBeLessThanOrEqual(FOREIGN_LIMITS.pbkdf2_iterations);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("the canonical form of a hash reads back to the same parameters and bytes", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("pbkdf2-sha256", "pbkdf2-sha512"),
        fc.integer({ min: 1, max: FOREIGN_LIMITS.pbkdf2_iterations }),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        (kind, iterations, salt, digest) => {
          const text = `$${kind}$i=${iterations}$${Buffer.from(salt).toString("base64")}$${Buffer.from(digest).toString("base64")}`;
          const checked = checked_imported_hash(text);
          expect("hash" in checked).toBe(true);
          const again = parse_password_hash((checked as { hash: string }).hash);
          expect(again).toEqual({ kind, iterations, salt: Buffer.from(salt), digest: Buffer.from(digest) });
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a bcrypt hash's canonical form verifies the same password", async () => {
    const checked = checked_imported_hash(BCRYPT_VECTORS[1]![1]);
    expect(checked).toEqual({ hash: BCRYPT_VECTORS[1]![1].replace("$2a$", "$2b$") });
    expect(await verify_foreign_hash(BCRYPT_VECTORS[1]![0], (checked as { hash: string }).hash)).toBe(true);
  });
});
