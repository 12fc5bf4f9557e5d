// The rate-limit counters (src/oidc/limits/counters.ts): one key space per counter, settings that
// exist with the defaults README shows, and no counter touched anywhere else in src/.
import { describe, expect, test } from "../../helpers/test_api.ts";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { COUNTERS, counted_address, counter_key, type Amount, type Counter, type Parts } from "../../../src/oidc/limits/counters.ts";
import { load_tree, strip } from "../../architecture/rules.ts";
import { read_readme } from "../../../scripts/docs/generate.ts";

const counters = Object.entries(COUNTERS) as [string, Counter][];
const DEFAULTS = ConfigSchema.parse({});
const SAMPLE: Parts = { ip: "203.0.113.7", username: "Alice", client_id: "client-1", user_id: "user-1", step: 57_000_000 };
/** The counters' store operations: only counters.ts may call them (src/store implements them). */
const STORE_CALL = /\bstore\s*\.\s*(hit|reserve|release|get_counter|reset_counter)\s*\(/;

describe("counter keys", () => {
  test("an IPv6 address counts by its /64, an IPv4-mapped one as its IPv4 address", () => {
    expect(counted_address("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(counted_address("2001:0db8:0001:0002:ffff:1:2:3")).toBe("2001:db8:1:2::/64");
    expect(counted_address("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(counted_address("::ffff:192.0.2.9")).toBe("192.0.2.9");
    expect(counted_address("192.0.2.9")).toBe("192.0.2.9");
    expect(counter_key(COUNTERS.signups_per_ip, { ip: "2001:db8:1:2::1" })).toBe(counter_key(COUNTERS.signups_per_ip, { ip: "2001:db8:1:2::99" }));
  });

  test("every counter has its own prefix and its own keys", () => {
    const prefixes = counters.map(([, c]) => c.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    const keys = counters.map(([, c]) => counter_key(c, SAMPLE));
    expect(new Set(keys).size).toBe(keys.length);
    for (const [name, c] of counters) {
      // The digest has no ":", so no key of one prefix can be the key of another.
      expect(counter_key(c, SAMPLE), name).toMatch(new RegExp(`^${c.prefix}:[A-Za-z0-9_-]{43}$`));
      expect(new Set(c.parts).size, name).toBe(c.parts.length);
    }
  });

  test("a key changes with each of its parts, and holds none of them", () => {
    for (const [name, c] of counters) {
      const key = counter_key(c, SAMPLE);
      for (const part of c.parts) {
        expect(counter_key(c, { ...SAMPLE, [part]: part === "step" ? 1 : "other" }), `${name} ${part}`).not.toBe(key);
        expect(key.includes(String(SAMPLE[part])), `${name} ${part}`).toBe(false);
      }
    }
  });

  test("a username counts in its one spelling", () => {
    const c = COUNTERS.login_failures_per_ip_username;
    expect(counter_key(c, { ip: "192.0.2.1", username: "ＡＬＩＣＥ" })).toBe(counter_key(c, { ip: "192.0.2.1", username: "alice" }));
  });
});

describe("limits and windows", () => {
  const amounts = counters.flatMap(
    ([name, c]) =>
      [
        [name, "limit", c.limit],
        [name, "window", c.window],
      ] as [string, string, Amount][],
  );

  test("every named setting is a setting of the schema, and read from it", () => {
    for (const [name, what, amount] of amounts) {
      if (amount.setting === null) continue;
      const [group, key] = amount.setting.split(".") as [string, string];
      const fallback = (DEFAULTS as unknown as Record<string, Record<string, unknown>>)[group]?.[key];
      expect(typeof fallback, `${name} ${what}: ${amount.setting}`).toBe("number");
      // The settings' objects are strict: an unknown key would be refused.
      expect(ConfigSchema.safeParse({ [group]: { [key]: fallback } }).success, amount.setting).toBe(true);
      expect(amount.of(DEFAULTS), `${name} ${what}`).toBe(fallback as number);
      const changed = ConfigSchema.parse({ [group]: { [key]: (fallback as number) + 7 } });
      expect(amount.of(changed), `${name} ${what} follows ${amount.setting}`).toBe((fallback as number) + 7);
    }
  });

  test("windows are positive; only quotas may be 0", () => {
    for (const [name, c] of counters) {
      expect(c.window.of(DEFAULTS), name).toBeGreaterThan(0);
      expect(c.limit.of(DEFAULTS), name).toBeGreaterThanOrEqual(c.limit.setting?.startsWith("rate_limits.") ? 0 : 1);
    }
  });

  test("README's table shows every counter with its defaults and settings", () => {
    const readme = read_readme();
    for (const [name, c] of counters) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      const cells = row!.split(" | ");
      for (const [amount, cell] of [
        [c.limit, cells[4]!],
        [c.window, cells[5]!],
      ] as const) {
        expect(cell, name).toStartWith(`\`${amount.of(DEFAULTS)}`);
        expect(cell, name).toContain(amount.setting === null ? "fixed" : `\`${amount.setting}\``);
      }
    }
  });
});

describe("src/ uses the counters only through counters.ts", () => {
  // Every other file of src/ (the store implements the operations), without its comments.
  const files = Object.entries(load_tree())
    .filter(([path]) => path !== "src/oidc/limits/counters.ts" && !path.startsWith("src/store/"))
    .map(([path, source]) => [path, strip(source)[0]] as const);

  test("no other file calls the store's counter operations", () => {
    const calls = files.filter(([, code]) => STORE_CALL.test(code)).map(([path]) => path);
    expect(calls).toEqual([]);
  });

  test("no other file spells a counter's key", () => {
    const spelled = files.flatMap(([path, code]) => counters.filter(([, c]) => code.includes(`${c.prefix}:`)).map(([name]) => `${path}: ${name}`));
    expect(spelled).toEqual([]);
  });

  test("every counter is used by a rule", () => {
    const code = files.map(([, text]) => text).join("\n");
    expect(counters.map(([name]) => name).filter((name) => !new RegExp(`\\bCOUNTERS\\.${name}\\b`).test(code))).toEqual([]);
  });
});
