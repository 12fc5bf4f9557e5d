/**
 * An LDAP user bind (ldapwhoami, Debian's OpenLDAP client) checks a password hash imported from
 * another provider like the sign-in page does (signin/password.ts): a wrong password is refused
 * and changes nothing; the right one binds and the hash becomes argon2id, audited once.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { people, start_ldap_provider, type LdapProvider } from "./server.ts";
import { has_ldap_utils, ldap_tool } from "./tools.ts";

// python3: hashlib.pbkdf2_hmac("sha256", b"correct horse", b"saltsaltsaltsalt", 27500, 64).
const PBKDF2_SHA256 = "$pbkdf2-sha256$i=27500$c2FsdHNhbHRzYWx0c2FsdA$eAA4hxO3phBzs5xL0cbw/QNMYgcXgmgYB5i1VB4SaJoX2bCyrIxrozK24K+x+NAS18K0E9YZ150biARaSSoFZQ";

if (!has_ldap_utils()) {
  test.skip("ldap-utils is not installed (apt-get install ldap-utils): the imported-hash bind test is skipped", () => {});
} else {
  describe("LDAP bind with an imported PBKDF2 hash", () => {
    let t: LdapProvider;
    beforeAll(async () => {
      t = await start_ldap_provider();
    });
    afterAll(async () => {
      await t?.stop();
    });

    test("wrong password refused; the old password binds and is rehashed to argon2id", async () => {
      const user = await t.store.create_user({ username: "imported", password_hash: PBKDF2_SHA256, email: "imported@example.com" });
      const wrong = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("imported"), "-w", "correct horsf"], t.cert);
      expect(wrong.stderr).toContain("Invalid credentials (49)");
      expect((await t.store.get_user_by_id(user.id))!.password_hash).toBe(PBKDF2_SHA256);
      const right = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("imported"), "-w", "correct horse"], t.cert);
      expect(right).toMatchObject({ code: 0, stdout: `dn:${people("imported")}\n` });
      expect((await t.store.get_user_by_id(user.id))!.password_hash).toStartWith("$argon2id$");
      const again = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("imported"), "-w", "correct horse"], t.cert);
      expect(again.code).toBe(0);
      const events = await t.store.list_audit_events({ type: "password_rehashed", user_id: user.id });
      expect(events.map((e) => e.details?.from)).toEqual(["pbkdf2-sha256"]);
    }, 60_000);
  });
}
