/**
 * Scheduled backups in the server (IDP_BACKUP_DIR, IDP_BACKUP_INTERVAL, IDP_BACKUP_KEEP,
 * IDP_BACKUP_ENCRYPT), on SQLite and on PostgreSQL: two servers on one database each look every
 * second, one of them takes each run (the store's claim, migration 027), each directory keeps
 * only its newest KEEP files (and nothing else is touched), every run is logged and counted in
 * /metrics, and every file left is a backup that verifies. A server started from the command
 * line runs each backup as `idp backup` in a process of its own.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { load_config } from "../../src/app/config.ts";
import { prune_backups } from "../../src/app/backup/schedule.ts";
import { start_subprocess_provider } from "../helpers/subprocess.ts";
import { test_databases } from "../store/pg.ts";
import { ROOT, fresh_database, idp, secret_key, serve_database, temp_dir, type Kind } from "./backup_helpers.ts";
import { setTimeout as sleep } from "node:timers/promises";

const files = temp_dir();
afterAll(() => files.cleanup());

const METRICS_TOKEN = "metrics-token-of-the-backup-test";

/** A sample of the metrics exposition, as a number (0 when absent). */
async function sample(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("the settings", () => {
  test("IDP_BACKUP_INTERVAL takes a unit; encryption needs IDP_SECRET_KEY; sqlite::memory: cannot be backed up", () => {
    expect(load_config({ IDP_BACKUP_DIR: "/b", IDP_BACKUP_INTERVAL: "24h" }).backup).toEqual({ dir: "/b", interval_seconds: 86400, keep: 7, encrypt: false });
    expect(load_config({ IDP_BACKUP_INTERVAL: "90m" }).backup.interval_seconds).toBe(5400);
    expect(load_config({ IDP_BACKUP_INTERVAL: "3600" }).backup.interval_seconds).toBe(3600);
    expect(() => load_config({ IDP_BACKUP_INTERVAL: "daily" })).toThrow(/IDP_BACKUP_INTERVAL.*must be a duration such as 3600, 90m, 24h or 7d/s);
    expect(() => load_config({ IDP_BACKUP_INTERVAL: "0" })).toThrow(/IDP_BACKUP_INTERVAL/);
    expect(() => load_config({ IDP_BACKUP_ENCRYPT: "true" })).toThrow(/needs IDP_SECRET_KEY/);
    expect(() => load_config({ IDP_BACKUP_DIR: "/b", DATABASE_URL: "sqlite::memory:" })).toThrow(/cannot back up sqlite::memory:/);
  });

  test("pruning deletes the oldest scheduled backups beyond KEEP and nothing else", () => {
    const dir = join(files.dir, "prune");
    mkdirSync(dir);
    const names = [
      "idp-backup-20261101T000000Z.idpbackup",
      "idp-backup-20261102T000000Z.idpbackup",
      "idp-backup-20261103T000000Z.idpbackup",
      "notes.txt",
      "idp-pre-restore-20261101T000000Z.idpbackup",
    ];
    for (const name of names) writeFileSync(join(dir, name), "x");
    expect(prune_backups(dir, 2)).toEqual(["idp-backup-20261101T000000Z.idpbackup"]);
    expect(readdirSync(dir).sort()).toEqual(names.slice(1).sort());
  });
});

for (const { name } of await test_databases()) {
  const kind = name as Kind;

  test(`${kind}: two servers on one database back it up every interval, one of them each time, keeping the newest 2 files in each directory`, async () => {
    const db = await fresh_database(kind, files.dir);
    const key = secret_key();
    const dirs = [join(files.dir, `${kind}-a`), join(files.dir, `${kind}-b`)];
    const logs: Record<string, unknown>[] = [];
    const servers = [];
    // A file of the operator's in a backup directory is never pruned.
    mkdirSync(dirs[0]!);
    writeFileSync(join(dirs[0]!, "README.txt"), "keep me");
    try {
      for (const dir of dirs) {
        servers.push(
          await serve_database(
            db.url,
            { backup: { dir, interval_seconds: 1, keep: 2, encrypt: true }, federation: { secret_key: key }, metrics_token: METRICS_TOKEN },
            (line) => void logs.push(line),
          ),
        );
      }
      const written = () => logs.filter((line) => line.msg === "backup written");
      const deadline = Date.now() + 20_000;
      while (written().length < 5 && Date.now() < deadline) await sleep(100);
      for (const server of servers) await server.stop();

      const runs = written().map((line) => line.file as string);
      expect(runs.length).toBeGreaterThanOrEqual(5);
      // Both servers look every second; each run is claimed by one of them, never by both (the
      // same second in both directories).
      expect(new Set(runs.map((file) => file.slice(file.lastIndexOf("/") + 1))).size).toBe(runs.length);
      expect(logs.filter((line) => line.msg === "backup failed")).toEqual([]);
      for (const line of written()) expect(line).toMatchObject({ encrypted: true, schema: expect.any(Number), bytes: expect.any(Number) });

      let left = 0;
      for (const dir of dirs) {
        const mine = runs.filter((file) => file.startsWith(`${dir}/`)).map((file) => file.slice(dir.length + 1));
        // A server that never won a run made no directory.
        const kept = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith("idp-backup-")) : [];
        // The newest two of what this server wrote.
        expect(kept.sort()).toEqual(mine.sort().slice(-2));
        left += kept.length;
        for (const file of kept) {
          const verified = await idp(["backup", "verify", join(dir, file), "--json"], { IDP_SECRET_KEY: key });
          expect([verified.code, verified.stderr]).toEqual([0, ""]);
          expect(JSON.parse(verified.stdout)).toMatchObject({ decrypted: true, manifest: { database: kind } });
        }
      }
      expect(left).toBeGreaterThanOrEqual(2);
      expect(readdirSync(dirs[0]!)).toContain("README.txt");
    } finally {
      for (const server of servers) await server.stop().catch(() => {});
      await db.drop();
    }
  }, 60_000);

  test(`${kind}: every run is counted in /metrics, with the time of the last one that succeeded`, async () => {
    const db = await fresh_database(kind, files.dir);
    const dir = join(files.dir, `${kind}-metrics`);
    const logs: Record<string, unknown>[] = [];
    const server = await serve_database(db.url, { backup: { dir, interval_seconds: 1, keep: 1 }, metrics_token: METRICS_TOKEN }, (line) => void logs.push(line));
    try {
      const deadline = Date.now() + 15_000;
      while (logs.filter((line) => line.msg === "backup written").length < 2 && Date.now() < deadline) await sleep(100);
      const successes = await sample(server.url, 'idp_backups_total{outcome="success"}');
      expect(successes).toBeGreaterThanOrEqual(2);
      expect(await sample(server.url, 'idp_backups_total{outcome="failure"}')).toBe(0);
      const last = await sample(server.url, "idp_backup_last_success_timestamp_seconds");
      expect(Math.abs(last - Date.now() / 1000)).toBeLessThan(15);
      expect(readdirSync(dir).filter((f) => f.startsWith("idp-backup-"))).toHaveLength(1);
    } finally {
      await server.stop();
      await db.drop();
    }
  }, 60_000);
}

test("a server started from the command line runs each backup as idp backup in a process of its own", async () => {
  const dir = join(files.dir, "child");
  const server = await start_subprocess_provider([process.execPath, join(ROOT, "main.ts")], {
    env: { IDP_BACKUP_DIR: dir, IDP_BACKUP_INTERVAL: "1", IDP_BACKUP_KEEP: "2" },
  });
  try {
    const log = () =>
      readFileSync(join(server.dir, "server.log"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const deadline = Date.now() + 20_000;
    while (log().filter((line) => line.msg === "backup written").length < 3 && Date.now() < deadline) {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await sleep(100);
    }
    const written = log().filter((line) => line.msg === "backup written");
    expect(written.length).toBeGreaterThanOrEqual(3);
    for (const line of written) expect(line).toMatchObject({ process: "child", encrypted: false });
    const kept = readdirSync(dir).filter((f) => f.startsWith("idp-backup-"));
    expect(kept).toHaveLength(2);
    const verified = await server.cli(["backup", "verify", join(dir, kept[0]!)]);
    expect([verified.code, verified.stderr]).toEqual([0, ""]);
  } finally {
    await server.stop();
  }
}, 60_000);
