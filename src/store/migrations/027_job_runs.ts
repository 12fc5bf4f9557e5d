/**
 * Version 27: `job_runs`, when a background job that one instance runs for all last started
 * (store/types/lifecycle.ts `claim_job`): the scheduled backups (app/backup/schedule.ts). Every
 * instance, and every worker of `idp serve --workers N`, asks on its own timer; the one whose
 * conditional write finds the job due takes the run, the others find it taken. A row per job
 * name, written the first time the job runs.
 *
 * 024 to 026 are taken by changes made at the same time as this one.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
CREATE TABLE job_runs (
  name TEXT PRIMARY KEY,
  started_at ${int} NOT NULL
)${strict};
`;
}

export const job_runs: Migration = {
  version: 27,
  name: "job runs",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
