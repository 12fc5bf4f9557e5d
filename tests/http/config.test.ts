import { describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, ENV_KEYS, is_loopback_issuer, load_config, masked } from "../../src/app/config.ts";
import { SETTINGS } from "../../src/config/settings.ts";

describe("configuration", () => {
  test("defaults: issuer http://localhost:3000, 127.0.0.1:3000, embedded SQLite, 60 s codes", () => {
    const config = load_config({});
    expect(config.issuer).toBe("http://localhost:3000");
    expect(config.host).toBe("127.0.0.1");
    expect(config.port).toBe(3000);
    expect(config.database_url).toBe("sqlite:./data/idp.sqlite");
    expect(config.tokens.code_ttl).toBe(60);
    expect(config.router.path_cache_size).toBe(1024);
    expect(config.argon2).toEqual({ memory_kib: 19456, time_cost: 2, impl: "auto" });
    expect(config.production).toBe(false);
  });

  test("environment variables set nested keys", () => {
    const config = load_config({ IDP_ISSUER: "https://id.example.com/", PORT: "8080", IDP_CODE_TTL: "30", IDP_ROUTER_PATH_CACHE_SIZE: "0", IDP_SIGNING_ALGS: "RS256,ES256" });
    expect(config.issuer).toBe("https://id.example.com"); // trailing slash removed
    expect(config.port).toBe(8080);
    expect(config.tokens.code_ttl).toBe(30);
    expect(config.router.path_cache_size).toBe(0);
    expect(config.signing_algs).toEqual(["RS256", "ES256"]);
  });

  test("every documented variable maps to a key the schema knows", () => {
    const config = load_config({}) as unknown as Record<string, unknown>;
    // Optional settings (no default in the schema, SETTINGS) are absent until set.
    const optional = new Set(SETTINGS.filter((setting) => setting.default === undefined).map((setting) => setting.path));
    for (const path of Object.values(ENV_KEYS)) {
      if (optional.has(path)) continue;
      const value = path.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], config);
      expect(value, path).not.toBeUndefined();
    }
  });

  test("the config file is read, and the environment wins over it", () => {
    const dir = mkdtempSync(join(tmpdir(), "idp-config-"));
    const file = join(dir, "idp.json");
    writeFileSync(file, JSON.stringify({ port: 4000, tokens: { access_token_ttl: 600 } }));
    const config = load_config({ IDP_CONFIG: file, PORT: "5000" });
    expect(config.port).toBe(5000);
    expect(config.tokens.access_token_ttl).toBe(600);
  });

  test("a bad value stops the start with a message naming the key and the variable", () => {
    expect(() => load_config({ PORT: "abc" })).toThrow(ConfigError);
    expect(() => load_config({ PORT: "abc" })).toThrow(/port \(PORT\)/);
    expect(() => load_config({ IDP_ISSUER: "https://x.example/?q=1" })).toThrow(/issuer \(IDP_ISSUER\): must not have a query/);
    expect(() => load_config({ IDP_CODE_TTL: "3600" })).toThrow(/tokens.code_ttl \(IDP_CODE_TTL\)/);
    expect(() => load_config({ IDP_SIGNING_ALGS: "ES256" })).toThrow(/must include RS256/);
    expect(() => load_config({ IDP_ARGON2_IMPL: "scrypt" })).toThrow(/argon2.impl \(IDP_ARGON2_IMPL\)/);
    expect(load_config({ IDP_ARGON2_IMPL: "bun" }).argon2.impl).toBe("bun");
    expect(() => load_config({ DATABASE_URL: "mysql://x" })).toThrow(/database_url \(DATABASE_URL\)/);
  });

  test("an unreadable config file is a ConfigError naming the file", () => {
    expect(() => load_config({ IDP_CONFIG: "/nonexistent/idp.json" })).toThrow(/IDP_CONFIG=\/nonexistent\/idp.json/);
  });

  test("NODE_ENV=production turns on production mode", () => {
    expect(load_config({ NODE_ENV: "production" }).production).toBe(true);
  });

  test("masked() hides the metrics token and the database password", () => {
    const config = load_config({ IDP_METRICS_TOKEN: "0123456789abcdef-secret", DATABASE_URL: "postgres://idp:hunter2@db:5432/idp" });
    const shown = JSON.stringify(masked(config));
    expect(shown).not.toContain("hunter2");
    expect(shown).not.toContain("0123456789abcdef-secret");
    expect(shown).toContain("postgres://idp:********@db:5432/idp");
  });

  test("loopback issuers are recognised", () => {
    expect(is_loopback_issuer(load_config({ IDP_ISSUER: "http://127.0.0.1:3000" }))).toBe(true);
    expect(is_loopback_issuer(load_config({ IDP_ISSUER: "http://[::1]:3000" }))).toBe(true);
    expect(is_loopback_issuer(load_config({ IDP_ISSUER: "http://id.example.com" }))).toBe(false);
  });
});
