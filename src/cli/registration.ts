/**
 * `idp registration-token create|list|revoke`: initial access tokens for dynamic client
 * registration (RFC 7591 §3, used when IDP_REGISTRATION=token). A token is printed once; only its
 * SHA-256 is stored. It expires (24 hours unless `--expires-in` says otherwise; 0: never) and may
 * be limited to a number of registrations (`--uses`). `list` shows ids, never tokens; `revoke ID`
 * deletes one. Rules in oidc/admin/registration_tokens.ts.
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { create_registration_token, DEFAULT_EXPIRES_IN, MAX_EXPIRES_IN, MAX_USES, registration_token_view, revoke_registration_token } from "../oidc/admin/registration_tokens.ts";
import type { InitialAccessTokenRow } from "../store/types.ts";
import { duration_option, int_option } from "./args.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, secret_notice, write_record, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

const CREATE = {
  summary: "create an initial access token for POST /register and print it (once; only its SHA-256 is stored)",
  options: {
    expires_in: { type: "string", value: "DURATION", help: "seconds, or a number with a unit: 90m, 24h, 7d (default 24h; 0: never)" },
    uses: { type: "string", value: "N", help: "it registers at most N clients (default: no limit)" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function create(ctx: CliContext, { flags }: ArgsOf<typeof CREATE>): Promise<void> {
  const expires_in = duration_option("expires-in", flags.expires_in, MAX_EXPIRES_IN) ?? DEFAULT_EXPIRES_IN;
  const uses = int_option("uses", flags.uses, { min: 1, max: MAX_USES });
  const { token, row } = await create_registration_token(await ctx.store(), { expires_in, uses: uses ?? null }, Math.floor(Date.now() / 1000));
  await ctx.audit({ type: "registration_token_created", details: { id: row.id, expires_at: row.expires_at, uses_left: row.uses_left } });
  const registration = ctx.config().registration;
  ctx.emit({ token, id: row.id, created_at: row.created_at, expires_at: row.expires_at, uses_left: row.uses_left }, (write) => {
    write_record(write, {
      token,
      id: row.id,
      expires_at: row.expires_at === null ? "never" : format_time(row.expires_at),
      uses: row.uses_left === null ? "unlimited" : row.uses_left,
    });
    write("\nSend it as `Authorization: Bearer <token>` to POST /register.\n");
    if (registration !== "token") write(`Note: IDP_REGISTRATION is "${registration}", so /register does not ask for this token.\n`);
    secret_notice(write, "token");
  });
}

const LIST = { summary: "list the tokens: id, creation and expiry, uses left, status (never the token)" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const store = await ctx.store();
  const now = Math.floor(Date.now() / 1000);
  const rows = (await store.list_initial_access_tokens()).map((row) => registration_token_view(row, now));
  ctx.emit(rows, (write) =>
    write_table(
      write,
      ["id", "created", "expires", "uses left", "status"],
      rows.map((row) => [
        row.id,
        format_time(row.created_at),
        row.expires_at === null ? "never" : format_time(row.expires_at),
        row.uses_left === null ? "unlimited" : row.uses_left,
        row.status,
      ]),
    ),
  );
}

const REVOKE = { summary: "delete the token with that id: POST /register no longer accepts it", positionals: ["id"] } as const satisfies CommandSpec<OptionSpecs>;

async function revoke(ctx: CliContext, { positionals }: ArgsOf<typeof REVOKE>): Promise<void> {
  const [id] = positionals as [string];
  let row: InitialAccessTokenRow;
  try {
    row = await revoke_registration_token(await ctx.store(), id);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(`${error.message} (see \`idp registration-token list\`)`);
    throw error;
  }
  await ctx.audit({ type: "registration_token_revoked", details: { id: row.id } });
  ctx.emit({ revoked: row.id }, (write) => write(`Revoked registration token ${row.id}: POST /register no longer accepts it.\n`));
}

/** The sub-commands, in the order the help lists them. */
export const registration_commands: Record<string, Command> = { create: command(CREATE, create), list: command(LIST, list), revoke: command(REVOKE, revoke) };
