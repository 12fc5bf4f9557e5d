/**
 * What protects the data at rest, checked from the configuration and the files: `idp config
 * check` prints these warnings on stderr and `serve` logs them at start (level warn).
 */
import { parse_database_url } from "../store/open.ts";
import { sqlite_file_warnings } from "../store/sqlite/files.ts";
import type { Config } from "./config.ts";

/** One line per weakness: production without IDP_SECRET_KEY, SQLite files readable by group or others. */
export function at_rest_warnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.production && config.federation.secret_key === undefined) {
    warnings.push(
      "production mode without IDP_SECRET_KEY: the private signing keys are stored in clear in the database; set IDP_SECRET_KEY (32 bytes, base64url) to store them encrypted",
    );
  }
  let target: ReturnType<typeof parse_database_url> | null = null;
  try {
    target = parse_database_url(config.database_url);
  } catch {
    // Not a database URL: opening the store says so.
  }
  if (target?.kind === "sqlite" && target.path !== ":memory:") warnings.push(...sqlite_file_warnings(target.path));
  return warnings;
}
