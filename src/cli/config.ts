/**
 * `idp config check`: validates the configuration and prints the effective values, secrets
 * masked. An invalid configuration raises ConfigError, which run_cli prints (exit 1).
 */
import { isIP } from "node:net";
import { at_rest_warnings } from "../app/at_rest.ts";
import { is_loopback_issuer, masked, type Config } from "../app/config.ts";
import { expect_positionals, parse_args } from "./args.ts";
import type { CliContext, SubCommand } from "./context.ts";
import { write_record } from "./output.ts";

/** Valid but risky settings, worth a line on stderr. */
export function config_warnings(config: Config): string[] {
  const warnings: string[] = [];
  const loopback = is_loopback_issuer(config);
  if (config.issuer.startsWith("http:") && !loopback) {
    warnings.push(`issuer ${config.issuer} uses http on a public host; relying parties require https`);
  }
  if (config.production && loopback) warnings.push(`production mode with a loopback issuer (${config.issuer}); set IDP_ISSUER`);
  if (config.production && config.registration === "open") warnings.push("production mode with open dynamic registration (IDP_REGISTRATION=open)");
  // WebAuthn §5.1.4.1 and §13.4.9: a secure context, and an RP ID that is a domain (not an IP address).
  const host = new URL(config.issuer).hostname;
  if (config.passkeys && (isIP(host.replace(/^\[|\]$/g, "")) !== 0 || (config.issuer.startsWith("http:") && host !== "localhost"))) {
    warnings.push(`passkeys need an https issuer with a domain name (http://localhost in development); they cannot work at ${config.issuer} (IDP_PASSKEYS=off hides them)`);
  }
  return warnings;
}

/** Nested objects flattened to dotted keys, so the human output reads like the config file. */
function flatten(value: Record<string, unknown>, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== null && typeof inner === "object" && !Array.isArray(inner)) Object.assign(out, flatten(inner as Record<string, unknown>, `${prefix}${key}.`));
    else out[`${prefix}${key}`] = inner;
  }
  return out;
}

async function check(ctx: CliContext, argv: string[]): Promise<void> {
  const { positionals } = parse_args(argv, {});
  expect_positionals(positionals, []);
  const config = ctx.config();
  // What protects the data at rest (the database files' modes…): app/at_rest.ts, logged at start too.
  const warnings = [...config_warnings(config), ...at_rest_warnings(config)];
  const effective = masked(config);
  ctx.emit({ valid: true, config: effective, warnings }, (write) => {
    write("Configuration is valid.\n\n");
    write_record(write, flatten(effective));
  });
  if (!ctx.json) for (const warning of warnings) ctx.io.stderr(`warning: ${warning}\n`);
}

/** The sub-commands, in the order the help lists them. */
export const config_commands: Record<string, SubCommand> = { check };
