/**
 * What a backup of a SQLite database costs the server that takes it (issue 32). The copy is
 * `VACUUM INTO`, and the driver is synchronous: done in the server's own process, the event loop
 * waits while SQLite copies. So the scheduled backups (src/app/backup/schedule.ts) run `idp
 * backup` as a child process, and copy in-process only in a server started in-process (tests).
 * For databases of growing size (tokens and codes added as the store writes them), it times
 * `create_backup` in this process (the copy, the checksum, the file) and the longest event-loop
 * stall a 1 ms timer saw meanwhile; then the same backup as `bun main.ts backup` in a child
 * process, and this process's longest stall meanwhile; then `verify_backup`.
 *
 *   node_modules/.bin/bun run bench/store/backup.ts      # or: npm run bench -- backup
 *   SIZES=20000,100000,300000 ROUNDS=3 CPU=0 node_modules/.bin/bun run bench/store/backup.ts
 *
 * Prints a Markdown table for bench/RESULTS.md ("Backups"): database MB, copy ms, longest stall
 * ms, ms per MB, backup file MB, verify ms; medians of ROUNDS.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create_backup, verify_backup } from "../../src/app/backup/backup.ts";
import { load_config } from "../../src/app/config.ts";
import { open_store } from "../../src/store/open.ts";
import { machine_line } from "../http/machine.ts";

const SIZES = (process.env.SIZES ?? "20000,100000,300000").split(",").map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const NOW = 1_800_000_000;

if (process.env.CPU !== undefined && process.env.BENCH_PINNED !== "1") {
  const child = Bun.spawn(["taskset", "-c", process.env.CPU, process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, BENCH_PINNED: "1" },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await child.exited);
}

/** A database with `rows` access tokens and `rows / 4` codes beside a few users and clients. */
async function seed(path: string, rows: number): Promise<void> {
  const store = await open_store(`sqlite:${path}`);
  for (let i = 0; i < 50; i++) await store.create_user({ username: `user${i}`, password_hash: "$argon2id$v=19$dummy" });
  for (let i = 0; i < 10; i++) await store.create_client({ client_id: `client${i}`, metadata: { redirect_uris: ["https://rp.example/cb"] } });
  await store.close();
  const db = new Database(path);
  try {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $rows)
       INSERT INTO tokens (token_hash, kind, client_id, user_id, scope, grant_id, family_id, session_id_hash, auth_time, acr, amr, claims, nonce, created_at, expires_at)
       SELECT lower(hex(randomblob(32))), 'access', 'client' || (i % 10), NULL, 'openid profile', lower(hex(randomblob(16))), NULL, NULL, NULL, NULL, '[]', NULL, NULL, $now, $now + 3600 + i FROM n`,
    ).run({ $rows: rows, $now: NOW });
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $rows)
       INSERT INTO codes (code_hash, client_id, user_id, session_id_hash, redirect_uri, scope, nonce, code_challenge, code_challenge_method, auth_time, acr, amr, claims, grant_id, created_at, expires_at)
       SELECT lower(hex(randomblob(32))), 'client' || (i % 10), (SELECT id FROM users LIMIT 1), lower(hex(randomblob(32))), 'https://rp.example/cb', 'openid',
              'n', lower(hex(randomblob(32))), 'S256', $now, NULL, '["pwd"]', NULL, lower(hex(randomblob(16))), $now, $now + 600 FROM n`,
    ).run({ $rows: Math.floor(rows / 4), $now: NOW });
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/** Runs `body` and reports the longest gap between two ticks of a 1 ms timer meanwhile. */
async function with_stall<T>(body: () => Promise<T>): Promise<{ value: T; ms: number; stall_ms: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const start = performance.now();
  try {
    const value = await body();
    const now = performance.now();
    stall = Math.max(stall, now - last);
    return { value, ms: now - start, stall_ms: stall };
  } finally {
    clearInterval(timer);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const env = process.env as Record<string, string | undefined>;
const lines = [
  `### SQLite backup in the server's process (${new Date().toISOString().slice(0, 10)})`,
  "",
  `${machine_line()}${process.env.CPU === undefined ? "" : `, pinned to CPU ${process.env.CPU}`}. Medians of ${ROUNDS} rounds; the file is in the temp directory (${tmpdir()}).`,
  "",
  "| tokens | database MB | in-process backup ms | its longest event-loop stall ms | stall ms per MB | child-process backup ms | the server's longest stall meanwhile ms | backup file MB | verify ms |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
];
for (const rows of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "idp-bench-backup-"));
  try {
    const path = join(dir, "idp.sqlite");
    await seed(path, rows);
    const config = load_config({}, { database_url: `sqlite:${path}` });
    const mb = statSync(path).size / 1e6;
    const made: { ms: number; stall_ms: number; child_ms: number; child_stall_ms: number; file_mb: number; verify_ms: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const out = join(dir, `round-${round}.idpbackup`);
      const backup = await with_stall(() => create_backup(config, out, { encrypt: false, env }));
      const verify_start = performance.now();
      await verify_backup(config, out, env);
      const verify_ms = performance.now() - verify_start;
      const file_mb = statSync(out).size / 1e6;
      rmSync(out);
      const child = await with_stall(async () => {
        const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../main.ts"), "backup", "--out", out], {
          env: { ...process.env, DATABASE_URL: `sqlite:${path}` },
          stdout: "ignore",
          stderr: "inherit",
        });
        if ((await proc.exited) !== 0) throw new Error("idp backup failed");
      });
      rmSync(out);
      made.push({ ms: backup.ms, stall_ms: backup.stall_ms, child_ms: child.ms, child_stall_ms: child.stall_ms, file_mb, verify_ms });
    }
    const stall = median(made.map((m) => m.stall_ms));
    const row = `| ${rows} | ${mb.toFixed(1)} | ${median(made.map((m) => m.ms)).toFixed(0)} | ${stall.toFixed(0)} | ${(stall / mb).toFixed(1)} | ${median(made.map((m) => m.child_ms)).toFixed(0)} | ${median(made.map((m) => m.child_stall_ms)).toFixed(1)} | ${median(made.map((m) => m.file_mb)).toFixed(1)} | ${median(made.map((m) => m.verify_ms)).toFixed(0)} |`;
    console.error(row);
    lines.push(row);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(lines.join("\n"));
