/**
 * `idp scim tokens add|list|revoke`: long-lived bearer tokens for a directory's SCIM connector
 * (oidc/scim/tokens.ts), shown once, stored as their SHA-256.
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { add_scim_token, DEFAULT_SCIM_TOKEN_DAYS, MAX_SCIM_TOKEN_DAYS, revoke_scim_token, scim_token_view } from "../oidc/scim/tokens.ts";
import { int_option } from "./args.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

const now_seconds = () => Math.floor(Date.now() / 1000);

async function refusing<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
}

const ADD = {
  summary: "make a SCIM bearer token NAME for a directory (Entra ID's Secret Token, Okta's HTTP Header); prints it once",
  positionals: ["NAME"],
  options: {
    expires_days: { type: "string", value: "N", help: `days until it stops working (default ${DEFAULT_SCIM_TOKEN_DAYS}, at most ${MAX_SCIM_TOKEN_DAYS})` },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { positionals, flags }: ArgsOf<typeof ADD>): Promise<void> {
  const [name] = positionals;
  const days = int_option("expires-days", flags.expires_days, { min: 1, max: MAX_SCIM_TOKEN_DAYS }) ?? DEFAULT_SCIM_TOKEN_DAYS;
  const { token, row } = await refusing(async () => add_scim_token(await ctx.store(), name!, days, now_seconds()));
  await ctx.audit({ type: "scim_token_created", details: { name: row.name, expires_at: row.expires_at } });
  ctx.emit({ ...scim_token_view(row, now_seconds()), token }, (write) => {
    write(`SCIM token ${row.name} works until ${format_time(row.expires_at)}.\n`);
    write(`Token (shown once; paste it as the directory's secret token / bearer token):\n${token}\n`);
  });
}

const LIST = { summary: "list the SCIM tokens: name, state, created, expires (never the tokens)" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const now = now_seconds();
  const rows = (await (await ctx.store()).list_scim_tokens()).map((row) => scim_token_view(row, now));
  ctx.emit(rows, (write) => {
    if (rows.length === 0) return write("No SCIM tokens.\n");
    write_table(
      write,
      ["name", "state", "created", "expires", "revoked"],
      rows.map((t) => [t.name, t.state, format_time(t.created_at), format_time(t.expires_at), t.revoked_at === null ? "" : format_time(t.revoked_at)]),
    );
  });
}

const REVOKE = { summary: "revoke a SCIM token now (its next request is refused 401)", positionals: ["NAME"] } as const satisfies CommandSpec<OptionSpecs>;

async function revoke(ctx: CliContext, { positionals }: ArgsOf<typeof REVOKE>): Promise<void> {
  const [name] = positionals;
  await refusing(async () => revoke_scim_token(await ctx.store(), name!, now_seconds()));
  await ctx.audit({ type: "scim_token_revoked", details: { name: name! } });
  ctx.emit({ name: name!, revoked: true }, (write) => write(`SCIM token ${name} revoked.\n`));
}

export const scim_token_commands: Record<string, Command> = {
  add: command(ADD, add),
  list: command(LIST, list),
  revoke: command(REVOKE, revoke),
};
