/**
 * `idp config check`: validates the configuration and prints the effective values, secrets
 * masked (with `--env`, each beside its environment variable). An invalid configuration raises
 * ConfigError, which run_cli prints (exit 1).
 */
import { masked } from "../app/config.ts";
import { check_warnings } from "../app/config_warnings.ts";
import { SETTINGS, setting_value } from "../config/settings.ts";
import type { CliContext } from "./context.ts";
import { write_record } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

/** What the human output shows for a setting without a value. */
export const UNSET = "(unset)";

/**
 * Every setting, in the schema's order, by dotted key as in the config file, one without a value
 * as `(unset)`; `with_env` labels each as configuration errors name it, `key (VARIABLE)` (a
 * setting only the config file holds keeps its key alone).
 */
function labelled(effective: Record<string, unknown>, with_env: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { path, env } of SETTINGS) out[with_env && env !== null ? `${path} (${env})` : path] = setting_value(effective, path) ?? UNSET;
  return out;
}

/** The dotted keys of the settings without a value (the JSON output's `unset`, beside `config`, which leaves them out). */
export function unset_settings(effective: Record<string, unknown>): string[] {
  return SETTINGS.filter(({ path }) => setting_value(effective, path) === undefined).map(({ path }) => path);
}

const CHECK = {
  summary: "validate the configuration (defaults < IDP_CONFIG file < environment) and print the effective values, secrets masked",
  options: {
    env: { type: "boolean", help: "label each value with its environment variable, `key (VARIABLE)`" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function check(ctx: CliContext, { flags }: ArgsOf<typeof CHECK>): Promise<void> {
  const config = ctx.config();
  const warnings = check_warnings(config);
  const effective = masked(config);
  ctx.emit({ valid: true, config: effective, unset: unset_settings(effective), warnings }, (write) => {
    write("Configuration is valid.\n\n");
    write_record(write, labelled(effective, flags.env));
  });
  if (!ctx.json) for (const warning of warnings) ctx.io.stderr(`warning: ${warning}\n`);
}

/** The sub-commands, in the order the help lists them. */
export const config_commands: Record<string, Command> = { check: command(CHECK, check) };
