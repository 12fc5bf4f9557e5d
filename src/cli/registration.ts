/**
 * `idp registration-token create`: an initial access token for dynamic client registration
 * (RFC 7591 §3, used when IDP_REGISTRATION=token). Printed once; only its SHA-256 is stored.
 */
import { random_token, sha256 } from "../oidc/crypto/secrets.ts";
import { expect_positionals, int_option, parse_args } from "./args.ts";
import type { CliContext, SubCommand } from "./context.ts";
import { format_time, secret_notice, write_record } from "./output.ts";

const TEN_YEARS = 10 * 365 * 24 * 3600;

async function create(ctx: CliContext, argv: string[]): Promise<void> {
  const { flags, positionals } = parse_args(argv, { expires_in: { type: "string" } });
  expect_positionals(positionals, []);
  const expires_in = int_option("expires-in", flags.expires_in, { min: 1, max: TEN_YEARS });
  const store = await ctx.store();
  const now = Math.floor(Date.now() / 1000);
  const token = random_token(32);
  const row = await store.create_initial_access_token({
    token_hash: sha256(token),
    created_at: now,
    expires_at: expires_in === undefined ? null : now + expires_in,
  });
  await ctx.audit({ type: "registration_token_created", details: { expires_at: row.expires_at } });
  const registration = ctx.config().registration;
  ctx.emit({ token, created_at: row.created_at, expires_at: row.expires_at }, (write) => {
    write_record(write, { token, expires_at: row.expires_at === null ? "never" : format_time(row.expires_at) });
    write("\nSend it as `Authorization: Bearer <token>` to POST /register.\n");
    if (registration !== "token") write(`Note: IDP_REGISTRATION is "${registration}", so /register does not ask for this token.\n`);
    secret_notice(write, "token");
  });
}

/** The sub-commands, in the order the help lists them. */
export const registration_commands: Record<string, SubCommand> = { create };
