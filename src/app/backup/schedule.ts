/**
 * Scheduled backups in the server (IDP_BACKUP_DIR, IDP_BACKUP_INTERVAL, IDP_BACKUP_KEEP,
 * IDP_BACKUP_ENCRYPT): a backup file (backup.ts) every interval, named by its time, and only the
 * newest `keep` of them kept. The run is claimed in the store (`claim_job`, migration 027), so of
 * several instances on one PostgreSQL database, or the workers of `idp serve --workers N`, one
 * takes each run; the others find it taken. Each instance looks every quarter interval (at
 * least every second, at most every 5 minutes), so a restart does not push the next backup a
 * whole interval away. Every run is logged, and counted in the metrics
 * (`idp_backups_total{outcome}`, `idp_backup_last_success_timestamp_seconds`). A failed run is
 * tried again at the next interval.
 *
 * Each backup is `idp backup --out FILE` run as a process of its own (`program`: main.ts passes
 * the command that runs this program), so the copy never holds the server's event loop: on
 * SQLite it is a synchronous `VACUUM INTO`, tens of milliseconds per MB (bench/RESULTS.md,
 * "Backups"). A server started in-process (tests) has no such command and copies in this process.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config/schema.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { ToolEnv } from "../../store/backup.ts";
import { create_backup } from "./backup.ts";
import { BackupError, EXTENSION, type Manifest } from "./file.ts";
import { file_stamp } from "./restore.ts";

/** The job name the runs are claimed under. */
export const BACKUP_JOB = "backup";

/** What a scheduled backup's file is named: `idp-backup-20261128T093000Z.idpbackup`. */
const SCHEDULED = /^idp-backup-\d{8}T\d{6}Z\.idpbackup$/;

export type BackupLoop = {
  /** Claims and runs one backup now when it is due; resolves with its file, or null (not due, or failed: logged). */
  run(): Promise<string | null>;
  /** Clears the timer and waits for a running backup. */
  stop(): Promise<void>;
};

/** Deletes the oldest scheduled backups of `dir` beyond the newest `keep`; other files are left alone. Returns those deleted. */
export function prune_backups(dir: string, keep: number): string[] {
  const ours = readdirSync(dir)
    .filter((name) => SCHEDULED.test(name))
    .sort();
  const old = ours.slice(0, Math.max(0, ours.length - keep));
  for (const name of old) rmSync(join(dir, name), { force: true });
  return old;
}

/**
 * `idp backup --out file` as a child process, on the server's database and secret key (which may
 * come from the config file); resolves with its manifest, rejects with its error message.
 */
function backup_in_child(program: readonly string[], config: Config, file: string, env: ToolEnv): Promise<Manifest> {
  const { IDP_WORKER: _worker, ...inherited } = env;
  const child_env: ToolEnv = { ...inherited, DATABASE_URL: config.database_url };
  if (config.federation.secret_key !== undefined) child_env.IDP_SECRET_KEY = config.federation.secret_key;
  const args = [...program.slice(1), "backup", "--out", file, "--json", ...(config.backup.encrypt ? ["--encrypt"] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(program[0]!, args, { env: child_env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (err += chunk));
    child.on("error", (error) => reject(new BackupError(`idp backup did not start: ${error.message}`)));
    child.on("close", (code) => {
      try {
        if (code === 0) resolve((JSON.parse(out) as { manifest: Manifest }).manifest);
        else reject(new BackupError((JSON.parse(err) as { error: string }).error));
      } catch {
        reject(new BackupError(`idp backup exited with ${code}: ${err.trim().split("\n").slice(-3).join(" ") || "no message"}`));
      }
    });
  });
}

export type BackupOptions = {
  /** The environment the backups run with (PATH for pg_dump). */
  env: ToolEnv;
  /** The command that runs this program: each backup is `idp backup` in a process of its own. */
  program?: readonly string[];
  /** How often to look whether a backup is due (default: a quarter interval, 1 s to 5 min). */
  check_ms?: number;
};

export function start_backups(idp: Provider, dir: string, options: BackupOptions): BackupLoop {
  const settings = idp.config.backup;
  let running: Promise<string | null> | null = null;
  let stopped = false;

  const attempt = async (): Promise<string | null> => {
    const now = idp.now();
    if (!(await idp.store.claim_job(BACKUP_JOB, now, settings.interval_seconds))) return null;
    const started = performance.now();
    const file = join(dir, `idp-backup-${file_stamp(new Date(now * 1000))}${EXTENSION}`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const manifest =
        options.program === undefined
          ? await create_backup(idp.config, file, { encrypt: settings.encrypt, env: options.env, now: () => new Date(now * 1000) })
          : await backup_in_child(options.program, idp.config, file, options.env);
      const pruned = prune_backups(dir, settings.keep);
      idp.metrics.backup("success", now);
      idp.log({
        level: "info",
        msg: "backup written",
        file,
        bytes: manifest.payload.bytes,
        schema: manifest.schema,
        encrypted: manifest.encryption !== null,
        seconds: Math.round(performance.now() - started) / 1000,
        pruned: pruned.length,
        process: options.program === undefined ? "server" : "child",
      });
      return file;
    } catch (error) {
      idp.metrics.backup("failure", now);
      idp.log({ level: "error", msg: "backup failed", file, error: error instanceof Error ? error.message : String(error) });
      return null;
    }
  };

  const run = (): Promise<string | null> => {
    running ??= attempt()
      .catch((error: unknown) => {
        // The claim itself failed (the database is away): the next look tries again.
        idp.log({ level: "error", msg: "backup failed", error: error instanceof Error ? error.message : String(error) });
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const every = options.check_ms ?? Math.min(300_000, Math.max(1000, (settings.interval_seconds * 1000) / 4));
  const timer = setInterval(() => {
    if (!stopped) void run();
  }, every);
  // A pending backup never keeps the process alive on its own.
  timer.unref?.();

  return {
    run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
