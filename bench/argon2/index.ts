/**
 * argon2id verification benchmark (issue 8): CPU per check at our defaults, m=19456 KiB, t=2,
 * p=1, for every implementation reachable from Bun. Run by hand, pinned to one core:
 *
 *   cd bench && npm install && cd ..          # @node-rs/argon2, argon2 (bench-only peers)
 *   taskset -c 0 node_modules/.bin/bun bench/argon2/index.ts [--rounds 30] [--lag 5] [--methods a,b]
 *
 * Methods (the hash verified is one Bun.password made, so every method checks the same string):
 *   bun          Bun.password.verify — async, Zig's argon2 on Bun's thread pool
 *   libargon2    /lib/x86_64-linux-gnu/libargon2.so.1 (Debian libargon2-1) argon2id_verify, bun:ffi, sync
 *   libsodium    libsodium.so.23 (Debian libsodium23) crypto_pwhash_argon2id_str_verify, bun:ffi, sync
 *   node-rs      @node-rs/argon2 verify — async, Rust argon2 crate on the libuv pool (N-API)
 *   node-argon2  argon2 (node-argon2) verify — async, reference C on the libuv pool (N-API)
 *   src          src/platform/passwords.ts verify_password (libsodium in a worker pool when it loads)
 *
 * Each round runs one verification of every method, the order rotating between rounds (the
 * machine is shared and noisy). CPU is process.cpuUsage() user+system for the whole process,
 * so work on Bun's pool, libuv's pool or a Worker counts. "lag" is the worst event-loop delay
 * seen by a 1 ms timer during one verification (median of `--lag` verifications, default 9): a
 * method that runs on the JS thread blocks it for the whole verification. "sys" is the
 * kernel's share of the CPU (libsodium maps fresh memory for each call, so it page-faults
 * m=19 MiB every time; the others reuse their allocator's memory).
 *
 * Results, 2026-11-22, Bun 1.4.5, 2-core x86-64 VM with AVX2/AVX-512, shared with other work
 * (load average ~4), pinned to core 0, 40 rounds; ms per verification:
 *
 *   | method      | CPU best | CPU median | (sys median) | vs bun | wall median | lag  | verifications/CPU-s |
 *   | bun         |     28.2 |       33.3 |          0.4 |   1.00 |        33.4 |  3.2 |  30 |
 *   | libargon2   |     22.0 |       24.0 |          0.0 |   0.72 |        24.3 | 32.7 |  42 |
 *   | libsodium   |     17.8 |       19.7 |          7.9 |   0.59 |        19.9 | 18.3 |  51 |
 *   | node-rs     |      9.5 |       10.8 |          0.5 |   0.33 |        10.8 |  3.2 |  92 |
 *   | node-argon2 |     19.6 |       21.5 |          0.0 |   0.64 |        22.2 |  3.1 |  47 |
 *   | src         |     17.9 |       20.1 |          8.0 |   0.60 |        20.4 |  4.6 |  50 |
 *
 * Over five runs the CPU medians stayed within: bun 33–42, libargon2 23–28, libsodium 18–22,
 * node-rs 10–12, node-argon2 21–25, src 18–21 (so libsodium costs 0.46–0.59 of bun). Notes:
 * - libargon2 (Debian's) is the portable reference code: its disassembly has no SSE/AVX block
 *   function, so it gains only ~30% over Zig's. libsodium selects AVX2/AVX-512 at run time, but
 *   mmaps and unmaps its 19 MiB for every call: ~8 ms of its ~19 are the kernel's page faults.
 * - @node-rs/argon2 (Rust argon2 crate, N-API, runs on the libuv pool) is the cheapest by far,
 *   ~1/3 of Bun.password; using it in src would mean a runtime npm dependency with a native
 *   addon (embedded in the executable as a .node file), so src uses libsodium instead.
 * - node-argon2 writes "m=...,p=1,t=2" (p before t), which Bun.password refuses to parse.
 * - src = libsodium in a worker: the same CPU, counted on every thread, and the JS thread is
 *   free meanwhile (lag ≈ the timer's own jitter; Bun.password also keeps it free).
 * - bench/oidc first-login-8 (server pinned to one core, IDP_ARGON2_IMPL=bun vs default, two
 *   runs each): 26.5 and 27.3 → 40.4 and 36.8 password logins per CPU-second.
 */
import { dlopen } from "bun:ffi";
import { parseArgs } from "node:util";
import { open_argon2_ffi } from "../../src/platform/argon2/ffi.ts";
import { argon2_impl, verify_password } from "../../src/platform/passwords.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "30" },
    lag: { type: "string", default: "9" },
    methods: { type: "string", default: "bun,libargon2,libsodium,node-rs,node-argon2,src" },
  },
});
const ROUNDS = Number(values.rounds);
const LAG_RUNS = Number(values.lag);
const PASSWORD = "correct horse battery staple";
const encoder = new TextEncoder();

type Verify = () => boolean | Promise<boolean>;

async function methods(hash: string): Promise<Map<string, Verify>> {
  const all = new Map<string, Verify>();
  const hash_z = encoder.encode(hash + "\0");
  const pwd = encoder.encode(PASSWORD);
  all.set("bun", () => Bun.password.verify(PASSWORD, hash, "argon2id"));
  try {
    const libargon2 = dlopen("/lib/x86_64-linux-gnu/libargon2.so.1", {
      argon2id_verify: { args: ["ptr", "ptr", "u64"], returns: "i32" },
    }).symbols;
    all.set("libargon2", () => libargon2.argon2id_verify(hash_z, pwd, pwd.length) === 0);
  } catch (error) {
    console.error(`libargon2: ${error}`);
  }
  const sodium = open_argon2_ffi();
  if (sodium) all.set("libsodium", () => sodium.verify(PASSWORD, hash));
  else console.error("libsodium: not loaded");
  try {
    const node_rs = await import("@node-rs/argon2");
    all.set("node-rs", () => node_rs.verify(hash, PASSWORD));
  } catch (error) {
    console.error(`@node-rs/argon2: ${error} (cd bench && npm install)`);
  }
  try {
    const node_argon2 = (await import("argon2")).default;
    all.set("node-argon2", () => node_argon2.verify(hash, PASSWORD));
  } catch (error) {
    console.error(`argon2: ${error} (cd bench && npm install)`);
  }
  all.set("src", () => verify_password(PASSWORD, hash));
  const wanted = new Set(values.methods!.split(","));
  return new Map([...all].filter(([name]) => wanted.has(name)));
}

/** Median over `runs` verifications of the worst delay a 1 ms timer saw during each one. */
async function event_loop_lag(verify: Verify, runs: number): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 1);
    last = now;
  }, 1);
  const per_run: number[] = [];
  for (let i = 0; i < runs; i++) {
    await Bun.sleep(3); // the timer runs between calls, so a sync method blocks once per call
    last = performance.now();
    worst = 0;
    await verify();
    await Bun.sleep(3); // a timer delayed by the call fires now
    per_run.push(worst);
  }
  clearInterval(timer);
  return median(per_run);
}

const best = (xs: number[]) => Math.min(...xs);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const affinity = Bun.spawnSync(["taskset", "-p", String(process.pid)])
  .stdout.toString()
  .trim();
console.error(`${affinity} (run under taskset -c 0 to pin); src uses ${argon2_impl.name}`);

const hash = await Bun.password.hash(PASSWORD, { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 });
const table = await methods(hash);
for (const [name, verify] of table) {
  if ((await verify()) !== true) throw new Error(`${name} does not verify the hash`);
}

const cpu = new Map<string, number[]>();
const sys = new Map<string, number[]>();
const wall = new Map<string, number[]>();
const names = [...table.keys()];
for (let round = 0; round < ROUNDS; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]!);
  for (const name of order) {
    const verify = table.get(name)!;
    const cpu_start = process.cpuUsage();
    const wall_start = performance.now();
    await verify();
    const w = performance.now() - wall_start;
    const used = process.cpuUsage(cpu_start);
    cpu.set(name, [...(cpu.get(name) ?? []), (used.user + used.system) / 1000]);
    sys.set(name, [...(sys.get(name) ?? []), used.system / 1000]);
    wall.set(name, [...(wall.get(name) ?? []), w]);
  }
}
const lag = new Map<string, number>();
for (const name of names) lag.set(name, await event_loop_lag(table.get(name)!, LAG_RUNS));

const base = median(cpu.get("bun") ?? [NaN]);
const rows = ["| method | CPU best | CPU median | (sys median) | vs bun | wall median | lag | verifications/CPU-s |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"];
for (const name of names) {
  const c = cpu.get(name)!;
  rows.push(
    `| ${name} | ${best(c).toFixed(1)} | ${median(c).toFixed(1)} | ${median(sys.get(name)!).toFixed(1)} | ${(median(c) / base).toFixed(2)} | ` +
      `${median(wall.get(name)!).toFixed(1)} | ${lag.get(name)!.toFixed(1)} | ${(1000 / median(c)).toFixed(0)} |`,
  );
}
console.log(rows.join("\n"));
process.exit(0);
