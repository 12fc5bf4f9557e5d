// `npm run bench -- <name>`: runs one benchmark (they are run by hand, never by tests).
// Bench-only peers live in bench/package.json: `cd bench && npm install` first.
import { existsSync } from "node:fs";
import { join } from "node:path";

const BENCHES: Record<string, string> = {
  router: "router/index.ts",
  http: "http/index.ts",
  sign: "sign/index.ts",
  oidc: "oidc/index.ts",
  load: "load/index.ts",
  store: "store/index.ts",
  "store-flow": "store/flow.ts",
  phases: "oidc/phases.ts",
  "lock-wait": "oidc/lock_wait.ts",
  workers: "oidc/workers.ts",
  tracing: "oidc/tracing.ts",
  deno: "oidc/deno.ts",
  backup: "store/backup.ts",
  argon2: "argon2/index.ts",
  "forward-auth": "forward_auth/index.ts",
};

const name = process.argv[2];
const script = name ? BENCHES[name] : undefined;
if (!script) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join("|")}> [options]`);
  process.exit(2);
}
if (!existsSync(join(import.meta.dir, "node_modules"))) {
  console.error("bench dependencies missing: run `cd bench && npm install` first");
  process.exit(1);
}
const child = Bun.spawn([process.execPath, "run", join(import.meta.dir, script), ...process.argv.slice(3)], { stdio: ["inherit", "inherit", "inherit"] });
process.exit(await child.exited);
