/**
 * Storage write-path benchmark: µs per call of the hot token and code operations on the SQLite
 * adapter (durable temp file, WAL, the store's own pragmas and migrations) with 100k existing
 * tokens and 100k existing codes. Calls go through `open_store`, so the guard wrapper, the codec
 * and bun:sqlite are all counted, as the server pays them.
 *
 * Run by hand: `node_modules/.bin/bun bench/store/index.ts` (prints a markdown table).
 * Options (environment): ROWS (existing rows per table, 100000), OPS (calls per case per round,
 * 20000), ROUNDS (3), CPU (pin to this core with taskset, e.g. CPU=0; off by default).
 *
 * Each case runs OPS calls in batches of 1000; a round's figure is the median batch, the table's
 * the median round. "CPU" is the process's user+system time (every thread) per call; it holds
 * steadier than wall time on a shared machine. The "×64 in one turn" cases start 64 calls before
 * awaiting them all, as 64 connections writing in the same event-loop turn do (group commit).
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { open_store } from "../../src/store/open.ts";
import type { NewCode, NewToken, Store } from "../../src/store/types.ts";

const ROWS = Number(process.env.ROWS ?? 100_000);
const OPS = Number(process.env.OPS ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BATCH = 1000;
const NOW = 1_800_000_000;

if (process.env.CPU !== undefined && process.env.BENCH_PINNED !== "1") {
  const child = Bun.spawn(["taskset", "-c", process.env.CPU, process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, BENCH_PINNED: "1" },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await child.exited);
}

function hash(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

type Fixture = { users: string[]; clients: string[]; tokens: string[]; codes: string[] };

/** Users and clients through the store; the 100k rows of each table in one SQL statement each. */
async function seed(store: Store, path: string): Promise<Fixture> {
  const users: string[] = [];
  const clients: string[] = [];
  for (let i = 0; i < 50; i++) users.push((await store.create_user({ username: `user${i}`, password_hash: "$argon2id$v=19$dummy" })).id);
  for (let i = 0; i < 10; i++) clients.push((await store.create_client({ client_id: `client${i}`, metadata: { redirect_uris: ["https://rp.example/cb"] } })).client_id);
  const db = new Database(path);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const user_list = users.map((u) => `'${u}'`).join(", ");
    // Half client_credentials-shaped tokens (no user, family or session), half from a user's
    // authorization (every column set), as a provider with both kinds of clients holds.
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $rows),
       u(list) AS (SELECT json_array(${user_list}))
       INSERT INTO tokens (token_hash, kind, client_id, user_id, scope, grant_id, family_id, session_id_hash,
                           auth_time, acr, amr, claims, nonce, created_at, expires_at)
       SELECT lower(hex(randomblob(32))), 'access', 'client' || (i % 10),
              CASE WHEN i % 2 = 0 THEN NULL ELSE json_extract(u.list, '$[' || (i % 50) || ']') END,
              'openid profile', lower(hex(randomblob(16))),
              CASE WHEN i % 2 = 0 THEN NULL ELSE lower(hex(randomblob(16))) END,
              CASE WHEN i % 2 = 0 THEN NULL ELSE lower(hex(randomblob(32))) END,
              CASE WHEN i % 2 = 0 THEN NULL ELSE $now END, NULL,
              CASE WHEN i % 2 = 0 THEN '[]' ELSE '["pwd"]' END, NULL, NULL,
              $now, $now + 3600 + i
       FROM n, u`,
    ).run({ $rows: ROWS, $now: NOW });
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $rows),
       u(list) AS (SELECT json_array(${user_list}))
       INSERT INTO codes (code_hash, client_id, user_id, session_id_hash, redirect_uri, scope, nonce, code_challenge,
                          code_challenge_method, auth_time, acr, amr, claims, grant_id, created_at, expires_at)
       SELECT lower(hex(randomblob(32))), 'client' || (i % 10), json_extract(u.list, '$[' || (i % 50) || ']'),
              lower(hex(randomblob(32))), 'https://rp.example/cb', 'openid profile', 'n-0S6_WzA2Mj',
              lower(hex(randomblob(32))), 'S256', $now, NULL, '["pwd"]', NULL, lower(hex(randomblob(16))), $now, $now + 600
       FROM n, u`,
    ).run({ $rows: ROWS, $now: NOW });
    const tokens = (db.query("SELECT token_hash FROM tokens").all() as { token_hash: string }[]).map((r) => r.token_hash);
    const codes = (db.query("SELECT code_hash FROM codes").all() as { code_hash: string }[]).map((r) => r.code_hash);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return { users, clients, tokens, codes };
  } finally {
    db.close();
  }
}

/** `together`: calls started in one turn and awaited all at once (1: each call awaited in turn). */
type Case = { name: string; call: (i: number) => Promise<unknown>; together?: number };

function cases(store: Store, f: Fixture): Case[] {
  const pick = <T>(list: T[], i: number): T => list[(i * 7919) % list.length]!;
  let code_cursor = 0;
  const cc_token = (i: number): NewToken => ({
    token_hash: hash(),
    kind: "access",
    client_id: pick(f.clients, i),
    user_id: null,
    scope: "api:read",
    grant_id: crypto.randomUUID(),
    family_id: null,
    session_id_hash: null,
    auth_time: null,
    acr: null,
    amr: [],
    nonce: null,
    claims: null,
    created_at: NOW,
    expires_at: NOW + 3600,
  });
  const user_token = (i: number): NewToken => ({
    token_hash: hash(),
    kind: "access",
    client_id: pick(f.clients, i),
    user_id: pick(f.users, i),
    scope: "openid profile",
    grant_id: crypto.randomUUID(),
    family_id: crypto.randomUUID(),
    session_id_hash: hash(),
    auth_time: NOW,
    acr: null,
    amr: ["pwd"],
    nonce: "n-0S6_WzA2Mj",
    claims: null,
    created_at: NOW,
    expires_at: NOW + 3600,
  });
  const code = (i: number): NewCode => ({
    code_hash: hash(),
    client_id: pick(f.clients, i),
    user_id: pick(f.users, i),
    session_id_hash: hash(),
    redirect_uri: "https://rp.example/cb",
    scope: "openid profile",
    nonce: "n-0S6_WzA2Mj",
    code_challenge: hash(),
    code_challenge_method: "S256",
    auth_time: NOW,
    amr: ["pwd"],
    grant_id: crypto.randomUUID(),
    created_at: NOW,
    expires_at: NOW + 600,
  });
  const fresh: string[] = [];
  let fresh_cursor = 0;
  const fresh_code = (i: number): NewCode => {
    const row = code(i);
    fresh.push(row.code_hash);
    return row;
  };
  return [
    { name: "insert_token, client_credentials (no user/family/session)", call: (i) => store.insert_token(cc_token(i)) },
    { name: "insert_token, user's (every column set)", call: (i) => store.insert_token(user_token(i)) },
    { name: "insert_code", call: (i) => store.insert_code(code(i)) },
    // Each seeded code once, in a scattered order: every call is a first use ("ok").
    { name: "consume_code", call: () => store.consume_code(f.codes[code_cursor++ % f.codes.length]!, NOW + 1) },
    { name: "get_token", call: (i) => store.get_token(pick(f.tokens, i)) },
    { name: "insert_token, client_credentials, ×64 in one turn", call: (i) => store.insert_token(cc_token(i)), together: 64 },
    { name: "insert_code, ×64 in one turn", call: (i) => store.insert_code(fresh_code(i)), together: 64 },
    // The codes the case above inserted, each once: the seeded ones are used up by consume_code.
    { name: "consume_code, ×64 in one turn", call: () => store.consume_code(fresh[fresh_cursor++]!, NOW + 1), together: 64 },
    { name: "get_token, ×64 in one turn", call: (i) => store.get_token(pick(f.tokens, i)), together: 64 },
  ];
}

type Sample = { wall: number; cpu: number };

/** Calls `from`…`from + count - 1`, `together` at a time. */
async function calls(c: Case, from: number, count: number): Promise<void> {
  const together = c.together ?? 1;
  if (together === 1) {
    for (let i = 0; i < count; i++) await c.call(from + i);
    return;
  }
  for (let i = 0; i < count; i += together) {
    const group: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(count, i + together); j++) group.push(c.call(from + j));
    await Promise.all(group);
  }
}

async function measure(c: Case, offset: number): Promise<Sample> {
  await calls(c, offset, 200); // warm-up
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let b = 0; b < OPS / BATCH; b++) {
    const cpu0 = process.cpuUsage();
    const t0 = Bun.nanoseconds();
    await calls(c, offset + 200 + b * BATCH, BATCH);
    const wall = (Bun.nanoseconds() - t0) / 1000 / BATCH;
    const cpu = process.cpuUsage(cpu0);
    walls.push(wall);
    cpus.push((cpu.user + cpu.system) / BATCH);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const dir = mkdtempSync(join(tmpdir(), "idp-bench-store-"));
const path = join(dir, "idp.db");
try {
  const store = await open_store(`sqlite:${path}`);
  const fixture = await seed(store, path);
  const list = cases(store, fixture);
  const results = new Map<string, Sample[]>(list.map((c) => [c.name, []]));
  const load0 = loadavg();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of list) results.get(c.name)!.push(await measure(c, round * (OPS + 200)));
  }
  const load1 = loadavg();
  const schema = new Database(path, { readonly: true });
  const indexes = (schema.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tokens'").get() as { n: number }).n;
  const version = (schema.query("SELECT max(version) AS v FROM schema_migrations").get() as { v: number }).v;
  schema.close();
  await store.close();

  console.log(
    `\`node_modules/.bin/bun bench/store/index.ts\` — SQLite file in ${tmpdir()}, WAL, schema version ${version} (tokens: ${indexes} indexes besides the table), ${ROWS.toLocaleString("en")} tokens and ${ROWS.toLocaleString("en")} codes before the run; ${OPS.toLocaleString("en")} awaited calls a case a round, median batch of ${BATCH}, median of ${ROUNDS} rounds.`,
  );
  console.log("");
  console.log(
    `Bun ${Bun.version} · ${cpus()[0]?.model ?? "cpu"} · nproc ${availableParallelism()}${process.env.CPU ? ` · pinned to CPU ${process.env.CPU}` : ""} · load average ${load0.map((l) => l.toFixed(2)).join(" ")} → ${load1.map((l) => l.toFixed(2)).join(" ")}`,
  );
  console.log("");
  console.log("| operation | wall µs/op | CPU µs/op |");
  console.log("| --- | ---: | ---: |");
  for (const c of list) {
    const samples = results.get(c.name)!;
    console.log(`| ${c.name} | ${median(samples.map((s) => s.wall)).toFixed(1)} | ${median(samples.map((s) => s.cpu)).toFixed(1)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
