#!/usr/bin/env node
/**
 * `idp` from the repository, right after `npm install`, without Bun on the PATH (`npx idp ...`,
 * `npm start`): runs main.ts with the Bun binary that the `bun` devDependency installed,
 * forwarding the arguments, stdio, the exit code and the termination signals. Plain Node, no
 * dependencies. The compiled executable (`npm run build`) does not need it.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const MAIN = join(ROOT, "main.ts");

/** The binary named in the `bun` package's own "bin" field, else `bun` from the PATH. */
function bun_binary() {
  try {
    const require = createRequire(join(ROOT, "package.json"));
    const manifest = require.resolve("bun/package.json");
    const bin = JSON.parse(readFileSync(manifest, "utf8")).bin;
    const file = join(dirname(manifest), typeof bin === "string" ? bin : bin.bun);
    if (existsSync(file)) return file;
  } catch {
    // Not installed here: fall back to the PATH.
  }
  return "bun";
}

const bun = bun_binary();
const child = spawn(bun, [MAIN, ...process.argv.slice(2)], { stdio: "inherit" });

// Forwarded, so `kill <pid>` and npm's own forwarding reach the server: it stops gracefully on
// SIGINT and SIGTERM (main.ts). A Ctrl-C in a terminal reaches both processes; main.ts counts a
// burst of the same signal as one.
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
let forwarded = false;
function forward(signal) {
  forwarded = true;
  child.kill(signal);
}
for (const signal of SIGNALS) process.on(signal, () => forward(signal));

// `npx idp serve` runs this file through `sh -c idp serve`: npm forwards a SIGTERM to that shell,
// which dies of it without passing it on, and this process, orphaned, kept the server and its
// port. Started by npm (npm_lifecycle_event is set for `npm exec`/`npx` and `npm run`), a parent
// that goes away is taken as the stop it was: the server gets SIGTERM, once, unless a signal
// reached it already (a Ctrl-C reaches every process of the group, the shell too).
// Not otherwise: `node bin/idp.mjs serve &` from a script that then exits keeps running.
if (process.env.npm_lifecycle_event !== undefined) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    if (!forwarded) forward("SIGTERM");
  }, 250);
  watch.unref();
  child.on("exit", () => clearInterval(watch));
}

child.on("error", (error) => {
  const hint = error.code === "ENOENT" ? " (Bun not found: run `npm install`, which installs it)" : "";
  process.stderr.write(`idp: cannot start ${bun}: ${error.message}${hint}\n`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Ended by a signal: end the same way, so the caller sees it.
  for (const name of SIGNALS) process.removeAllListeners(name);
  process.kill(process.pid, signal);
});
