/**
 * `idp migrate`: applies pending migrations to the configured database and prints the version.
 */
import { migrate } from "../store/open.ts";
import { expect_positionals, parse_args } from "./args.ts";
import { CLI_BUSY_TIMEOUT_MS, type CliContext } from "./context.ts";

export async function migrate_command(ctx: CliContext, argv: string[]): Promise<void> {
  const { positionals } = parse_args(argv, {});
  expect_positionals(positionals, []);
  const config = ctx.config();
  const result = await migrate(config.database_url, { max: config.database_pool_size, busy_timeout: CLI_BUSY_TIMEOUT_MS });
  ctx.emit(result, (write) =>
    write(
      result.applied.length
        ? `Applied migration(s) ${result.applied.join(", ")}; schema version ${result.version}.\n`
        : `Already up to date (schema version ${result.version}).\n`,
    ),
  );
}
