/**
 * The ordered list of schema migrations. Each has one script per database; versions only grow,
 * and a released migration is never edited: add a new one instead.
 */
import { StoreError } from "../types.ts";
import { initialSchema } from "./001_initial.ts";
import { sessionClients } from "./002_session_clients.ts";
import { partialTokenIndexes } from "./003_partial_token_indexes.ts";

export type Migration = {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
};

export const migrations: readonly Migration[] = [initialSchema, sessionClients, partialTokenIndexes];

export const latestVersion: number = migrations.reduce((max, m) => Math.max(max, m.version), 0);

/** Migrations not yet applied, in order. Raises when the database is newer than this build. */
export function pendingMigrations(applied: ReadonlySet<number>): Migration[] {
  const newest = Math.max(0, ...applied);
  if (newest > latestVersion) {
    throw new StoreError(`database schema version ${newest} is newer than this build knows (${latestVersion}): upgrade the provider`);
  }
  return migrations.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
}

/** With `{ migrate: false }` a store only opens on an up-to-date schema. */
export function requireCurrentSchema(version: number): void {
  if (version < latestVersion) {
    throw new StoreError(`database schema is at version ${version} but this build needs ${latestVersion}: run \`idp migrate\``);
  }
  if (version > latestVersion) {
    throw new StoreError(`database schema version ${version} is newer than this build knows (${latestVersion}): upgrade the provider`);
  }
}
