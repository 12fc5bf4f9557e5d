/**
 * The settings as declared on the schema (src/config/schema.ts): each leaf of ConfigSchema
 * carries, through zod's `.meta()`, its environment variable, its description, its topic, what
 * production needs of it (where it needs something) and, where the schema's own default would
 * mislead, the default as users should read it. app/config.ts derives the variable mapping
 * (ENV_KEYS) from SETTINGS, scripts/docs/sections/settings.ts the settings reference
 * (docs/configuration.md), and `idp config check` its labels.
 */
import type { z } from "zod";
import { ConfigSchema } from "./schema.ts";

/** The topics of docs/configuration.md, in its order: each setting declares one (`topic`). */
export const TOPICS = [
  "Server and issuer",
  "Database",
  "Security and secrets",
  "Sign-in, sessions and passwords",
  "Second factors and passkeys",
  "Mail",
  "Sign-up and accounts",
  "Tokens and keys",
  "Clients and registration",
  "Authorization requests",
  "Federation",
  "LDAP directory",
  "Forward authentication",
  "Rate limits",
  "Logging and metrics",
  "Admin console and roles",
  "Branding and languages",
] as const;

export type Topic = (typeof TOPICS)[number];

/** What `.meta()` declares on a setting's schema. */
export type SettingMeta = {
  /** The environment variable that sets it; null for a setting only the config file can hold (a list of objects). */
  env: string | null;
  /** What it does, in Markdown: the "Meaning" column of docs/configuration.md. */
  description: string;
  /** The section of docs/configuration.md it is listed in (tests/config/settings_docs.test.ts: every setting has one). */
  topic?: Topic;
  /** What production requires or strongly expects of it, one phrase (Markdown); unset for a setting production leaves alone. */
  production?: string;
  /** The default as users should read it (Markdown), where the schema's is not: one worked out at start, or what unset means. */
  shown_default?: string;
};

declare module "zod" {
  interface GlobalMeta {
    env?: SettingMeta["env"];
    topic?: SettingMeta["topic"];
    production?: SettingMeta["production"];
    shown_default?: SettingMeta["shown_default"];
  }
}

/** One setting: its dotted path in the configuration, its declaration, and its default (undefined: unset). */
export type Setting = SettingMeta & { path: string; default: unknown };

type Node = { shape?: Record<string, z.ZodType>; def?: { innerType?: unknown } } | undefined;

/** The fields of the object schema inside default, prefault and optional wrappers; undefined when there is none (a leaf). */
export function object_shape(schema: unknown): Record<string, z.ZodType> | undefined {
  let node = schema as Node;
  while (node && node.shape === undefined && node.def?.innerType !== undefined) node = node.def.innerType as Node;
  return node?.shape;
}

/** Every leaf of an object schema, depth first in declaration order; a leaf without its `.meta()` is an error. */
export function settings_of(schema: z.ZodType, prefix = ""): Setting[] {
  return Object.entries(object_shape(schema) ?? {}).flatMap(([key, field]) => {
    const path = `${prefix}${key}`;
    if (object_shape(field) !== undefined) return settings_of(field, `${path}.`);
    const meta = field.meta();
    if (meta?.env === undefined || typeof meta.description !== "string") throw new Error(`setting ${path} has no .meta({ env, description }) in src/config/schema.ts`);
    const optional = {
      ...(meta.topic === undefined ? {} : { topic: meta.topic }),
      ...(meta.production === undefined ? {} : { production: meta.production }),
      ...(meta.shown_default === undefined ? {} : { shown_default: meta.shown_default }),
    };
    return [{ path, env: meta.env, description: meta.description, ...optional, default: field.safeParse(undefined).data }];
  });
}

/** Every setting, in the schema's order. */
export const SETTINGS: readonly Setting[] = settings_of(ConfigSchema);

/**
 * Where a setting's effective value came from, as app/config.ts layers them: the schema's
 * default (or one worked out at start), the config file (IDP_CONFIG), the environment, or
 * values the program itself gave (a command-line option, a test).
 */
export type SettingSource = "default" | "file" | "environment" | "program";

/** The value at a setting's dotted path in a configuration (or its masked copy); undefined when unset. */
export function setting_value(config: Record<string, unknown>, path: string): unknown {
  return path.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], config);
}
