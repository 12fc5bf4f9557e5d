/**
 * `idp migrate`: applies pending migrations to the configured database and prints the version.
 */
import { migrate } from "../store/open.ts";
import { CLI_BUSY_TIMEOUT_MS, type CliContext } from "./context.ts";
import { command } from "./spec.ts";

async function run_migrate(ctx: CliContext): Promise<void> {
  const config = ctx.config();
  const result = await migrate(config.database_url, { max: config.database_pool_size, busy_timeout: CLI_BUSY_TIMEOUT_MS });
  ctx.emit(result, (write) =>
    write(
      result.applied.length ? `Applied migration(s) ${result.applied.join(", ")}; schema version ${result.version}.\n` : `Already up to date (schema version ${result.version}).\n`,
    ),
  );
}

/** `idp migrate`. */
export const migrate_command = command({ summary: "apply pending migrations to the database (DATABASE_URL) and print the schema version" }, run_migrate);
