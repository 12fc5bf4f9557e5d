/**
 * The settings as declared on the schema (src/config/schema.ts): each leaf of ConfigSchema
 * carries, through zod's `.meta()`, its environment variable, its description and, where the
 * schema's own default would mislead, the default as users should read it. app/config.ts
 * derives the variable mapping (ENV_KEYS) from SETTINGS, scripts/docs/sections/settings.ts the
 * README's settings table, and `idp config check` its labels.
 */
import type { z } from "zod";
import { ConfigSchema } from "./schema.ts";

/** What `.meta()` declares on a setting's schema. */
export type SettingMeta = {
  /** The environment variable that sets it; null for a setting only the config file can hold (a list of objects). */
  env: string | null;
  /** What it does, in Markdown: the README's "Meaning" column. */
  description: string;
  /** The default as users should read it (Markdown), where the schema's is not: one worked out at start, or what unset means. */
  shown_default?: string;
};

declare module "zod" {
  interface GlobalMeta {
    env?: SettingMeta["env"];
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
    const shown = meta.shown_default === undefined ? {} : { shown_default: meta.shown_default };
    return [{ path, env: meta.env, description: meta.description, ...shown, default: field.safeParse(undefined).data }];
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
