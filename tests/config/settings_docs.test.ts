// Each setting is declared once, on the schema (src/config/schema.ts): its variable, its
// description, its topic and what production needs of it in `.meta()`. The variable mapping
// (ENV_KEYS), the settings reference (docs/configuration.md) and `idp config check` are read from
// those declarations, so they must be whole and consistent.
import { describe, expect, test } from "../helpers/test_api.ts";
import { z } from "zod";
import { ENV_KEYS, OTHER_IDP_VARIABLES } from "../../src/app/config.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { object_shape, SETTINGS, settings_of, TOPICS } from "../../src/config/settings.ts";
import { by_topic } from "../../scripts/docs/sections/settings.ts";

/** The schema of the setting at a dotted path. */
const field_at = (path: string): z.ZodType => path.split(".").reduce<unknown>((node, part) => object_shape(node)?.[part], ConfigSchema) as z.ZodType;

/** The dotted paths of a parsed configuration's values (lists are values, not groups). */
function value_paths(value: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(value).flatMap(([key, inner]) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner) ? value_paths(inner as Record<string, unknown>, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

describe("the settings' declarations", () => {
  test("every leaf of the schema is a setting, in the schema's order", () => {
    const parsed = value_paths(ConfigSchema.parse({}) as Record<string, unknown>);
    const unset = SETTINGS.filter((s) => s.default === undefined).map((s) => s.path);
    expect(SETTINGS.map((s) => s.path).filter((path) => !unset.includes(path))).toEqual(parsed);
    expect(SETTINGS.length).toBeGreaterThan(90);
  });

  test("every setting has a variable (or is a list only the config file holds) and a one-line description", () => {
    for (const s of SETTINGS) {
      expect(s.description.trim().length, s.path).toBeGreaterThan(10);
      expect(s.description, s.path).not.toContain("\n");
      expect(s.shown_default ?? "", s.path).not.toContain("\n");
      if (s.env === null) expect(Array.isArray(s.default), `${s.path}: only a list may go without a variable`).toBe(true);
      else expect(s.env, s.path).toMatch(/^[A-Z][A-Z0-9_]*$/);
    }
    expect(SETTINGS.filter((s) => s.env === null).map((s) => s.path)).toEqual(["federation.upstreams"]);
  });

  test("the declarations hold env, description, topic, production and shown_default only (a misspelt key would be ignored)", () => {
    for (const s of SETTINGS) {
      const keys = Object.keys(field_at(s.path).meta() ?? {});
      expect(
        keys.filter((key) => !["env", "description", "topic", "production", "shown_default"].includes(key)),
        s.path,
      ).toEqual([]);
    }
  });

  test("every setting has a topic of docs/configuration.md, and every topic has settings", () => {
    expect(SETTINGS.filter((s) => s.topic === undefined).map((s) => s.path)).toEqual([]);
    for (const s of SETTINGS) expect(TOPICS as readonly string[], s.path).toContain(s.topic!);
    expect(TOPICS.filter((topic) => !SETTINGS.some((s) => s.topic === topic))).toEqual([]);
  });

  test("a setting without a topic stops `npm run docs`, naming it", () => {
    const schema = z.strictObject({ a: z.string().default("x").meta({ env: "A", description: "declared, no topic" }) });
    expect(() => by_topic(settings_of(schema))).toThrow("setting a has no topic");
  });

  test("what production needs is one line, on the settings a production server must set", () => {
    for (const s of SETTINGS) if (s.production !== undefined) expect(s.production, s.path).toMatch(/^[^\n]{10,200}$/);
    const marked = SETTINGS.filter((s) => s.production !== undefined).map((s) => s.env);
    // Going to production (README): https issuer, production mode, the proxy, the secret key, the database, mail.
    for (const env of ["IDP_ISSUER", "IDP_PRODUCTION", "IDP_TRUST_PROXY", "IDP_TRUSTED_PROXIES", "IDP_SECRET_KEY", "DATABASE_URL", "IDP_SMTP_URL", "IDP_MAIL_FROM"])
      expect(marked).toContain(env);
  });

  test("a variable names one setting, and is none of the other IDP_ variables", () => {
    const names = SETTINGS.flatMap((s) => (s.env === null ? [] : [s.env]));
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    expect(names.filter((name) => OTHER_IDP_VARIABLES.includes(name))).toEqual([]);
  });

  test("ENV_KEYS is the declarations' variable → path mapping", () => {
    const declared = SETTINGS.flatMap((s): [string, string][] => (s.env === null ? [] : [[s.env, s.path]]));
    expect(Object.entries(ENV_KEYS)).toEqual(declared);
    expect(ENV_KEYS.IDP_CODE_TTL).toBe("tokens.code_ttl");
    expect(ENV_KEYS.PORT).toBe("port");
  });

  test("defaults are the schema's own; shown_default only where that would mislead", () => {
    const by_path = new Map(SETTINGS.map((s) => [s.path, s]));
    expect(by_path.get("tokens.code_ttl")).toMatchObject({ env: "IDP_CODE_TTL", default: 60 });
    expect(by_path.get("signing_algs")?.default).toEqual(["RS256", "PS256", "ES256", "EdDSA"]);
    expect(by_path.get("metrics_token")?.default).toBeUndefined();
    expect(by_path.get("issuer")).toMatchObject({ default: "http://localhost:3000", shown_default: "`http://localhost:<PORT>`" });
    expect(by_path.get("brand.name")?.shown_default).toBe("the issuer's host");
  });

  test("a leaf without its declaration is refused", () => {
    const schema = z.strictObject({
      a: z.string().default("x").meta({ env: "A", description: "declared" }),
      group: z.strictObject({ b: z.number().optional() }).prefault({}),
    });
    expect(() => settings_of(schema)).toThrow("setting group.b has no .meta({ env, description })");
  });
});
