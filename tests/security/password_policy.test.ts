/**
 * The password policy (oidc/accounts/password_policy.ts, NIST SP 800-63B §5.1.1.2) with the
 * shipped list of common passwords (lists/common_passwords.txt) and the settings' limits.
 */
import { describe, expect, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { check_password_policy, password_policy_hint } from "../../src/oidc/accounts/password_policy.ts";
import { common_password_count, is_common_password } from "../../src/platform/common_passwords.ts";

const rules = load_config({}).passwords;

describe("password policy", () => {
  test("the list: 10,000 entries, matched ignoring case", () => {
    expect(common_password_count()).toBe(10_000);
    for (const common of ["password", "PassWord123", "qwertyuiop", "1q2w3e4r5t", "iloveyou"]) expect([common, is_common_password(common)]).toEqual([common, true]);
    expect(is_common_password("correct horse battery staple")).toBe(false);
  });

  test("length in characters (code points), from the settings", () => {
    expect(check_password_policy("é".repeat(9), {}, rules)).toBe("The password is too short: use at least 10 characters.");
    expect(check_password_policy("😀".repeat(10), {}, rules)).toBeNull();
    expect(check_password_policy("x".repeat(1025), {}, rules)).toBe("The password is too long: use at most 1024 characters.");
    expect(check_password_policy("short one!", {}, { min_length: 12, max_length: 64 })).toBe("The password is too short: use at least 12 characters.");
    expect(load_config({ IDP_PASSWORD_MIN_LENGTH: "12" }).passwords.min_length).toBe(12);
    expect(() => load_config({ IDP_PASSWORD_MIN_LENGTH: "6" })).toThrow(/passwords\.min_length \(IDP_PASSWORD_MIN_LENGTH\): must be at least 8/);
  });

  test("common passwords are refused, naming the rule", () => {
    expect(check_password_policy("Password123", {}, rules)).toBe("This password is one of the most common passwords, which attackers try first: choose another.");
  });

  test("not the username or the address's local part, nor containing them (ignoring case and width)", () => {
    const owner = { username: "Gertrude", email: "g.stein@example.com" };
    expect(check_password_policy("gertrude-in-paris", owner, rules)).toBe("The password must not be or contain your username.");
    expect(check_password_policy("ＧＥＲＴＲＵＤＥ ok ok", owner, rules)).toBe("The password must not be or contain your username.");
    expect(check_password_policy("rose is G.Stein", owner, rules)).toBe("The password must not be or contain your e-mail address.");
    // The domain is not the person's: it may appear.
    expect(check_password_policy("example.com rocks!", owner, rules)).toBeNull();
    // A two-letter name is in too many words to look for inside a password; being it is still refused.
    expect(check_password_policy("a bold new phrase", { username: "al" }, rules)).toBeNull();
    expect(check_password_policy("abcdefghij", { username: "abcdefghij" }, rules)).toBe("The password must not be or contain your username.");
  });

  test("the hint states the rules", () => {
    expect(password_policy_hint(rules)).toStartWith("At least 10 characters, not a common password, and not your username or e-mail address.");
  });
});
