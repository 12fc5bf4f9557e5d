/**
 * `idp config check`: validates the configuration and prints the effective values, secrets
 * masked (with `--env`, each beside its environment variable). An invalid configuration raises
 * ConfigError, which run_cli prints (exit 1).
 */
import { at_rest_warnings } from "../app/at_rest.ts";
import { is_loopback_issuer, masked, type Config } from "../app/config.ts";
import { mail_off_warning } from "../app/mail/outbox.ts";
import { SETTINGS } from "../config/settings.ts";
import { rp_id_problem } from "../oidc/signin/passkeys/rp_id.ts";
import { parse_database_url } from "../store/open.ts";
import { sqlite_write_problem } from "../store/sqlite/writable.ts";
import type { CliContext } from "./context.ts";
import { write_record } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

/** Valid but risky settings, worth a line on stderr. */
export function config_warnings(config: Config): string[] {
  const warnings: string[] = [];
  const loopback = is_loopback_issuer(config);
  if (config.issuer.startsWith("http:") && !loopback) {
    warnings.push(`issuer ${config.issuer} uses http on a public host; relying parties require https`);
  }
  if (config.production && loopback) warnings.push(`production mode with a loopback issuer (${config.issuer}); set IDP_ISSUER`);
  if (config.production && config.registration === "open") warnings.push("production mode with open dynamic registration (IDP_REGISTRATION=open)");
  // WebAuthn §5.1.4.1 and §13.4.9: a secure context, and an RP ID that is a domain (not an IP
  // address); the pages then offer no passkeys (oidc/signin/passkeys/rp_id.ts).
  const rp_problem = config.passkeys ? rp_id_problem(config.issuer) : null;
  if (rp_problem !== null) {
    warnings.push(
      `passkeys need an https issuer with a domain name (http://localhost in development); they cannot work at ${config.issuer}: ${rp_problem}. The pages do not offer them (IDP_PASSKEYS=off hides them everywhere)`,
    );
  }
  const without_mail = mail_off_warning(config);
  if (without_mail !== null) warnings.push(without_mail);
  // The server would refuse to start (the store asks the same before opening the file).
  const database = parse_database_url(config.database_url);
  const unwritable = database.kind === "sqlite" ? sqlite_write_problem(database.path) : null;
  if (unwritable !== null) warnings.push(`database_url (DATABASE_URL): ${unwritable}`);
  return warnings;
}

/** What the human output shows for a setting without a value. */
export const UNSET = "(unset)";

function value_at(effective: Record<string, unknown>, path: string): unknown {
  return path.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], effective);
}

/**
 * Every setting, in the schema's order, by dotted key as in the config file, one without a value
 * as `(unset)`; `with_env` labels each as configuration errors name it, `key (VARIABLE)` (a
 * setting only the config file holds keeps its key alone).
 */
function labelled(effective: Record<string, unknown>, with_env: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { path, env } of SETTINGS) out[with_env && env !== null ? `${path} (${env})` : path] = value_at(effective, path) ?? UNSET;
  return out;
}

/** The dotted keys of the settings without a value (the JSON output's `unset`, beside `config`, which leaves them out). */
export function unset_settings(effective: Record<string, unknown>): string[] {
  return SETTINGS.filter(({ path }) => value_at(effective, path) === undefined).map(({ path }) => path);
}

const CHECK = {
  summary: "validate the configuration (defaults < IDP_CONFIG file < environment) and print the effective values, secrets masked",
  options: {
    env: { type: "boolean", help: "label each value with its environment variable, `key (VARIABLE)`" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function check(ctx: CliContext, { flags }: ArgsOf<typeof CHECK>): Promise<void> {
  const config = ctx.config();
  // What protects the data at rest (the database files' modes…): app/at_rest.ts, logged at start too.
  const warnings = [...config_warnings(config), ...at_rest_warnings(config)];
  const effective = masked(config);
  ctx.emit({ valid: true, config: effective, unset: unset_settings(effective), warnings }, (write) => {
    write("Configuration is valid.\n\n");
    write_record(write, labelled(effective, flags.env));
  });
  if (!ctx.json) for (const warning of warnings) ctx.io.stderr(`warning: ${warning}\n`);
}

/** The sub-commands, in the order the help lists them. */
export const config_commands: Record<string, Command> = { check: command(CHECK, check) };
