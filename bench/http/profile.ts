// CPU profile of one server under wrk load:
//   bun run bench/http/profile.ts [--server fw] [--route /users/42] [--seconds 10] [--out /tmp/fw-profile]
// Writes Bun's .cpuprofile (open in Chrome DevTools) and its markdown summary, and prints the
// functions with the most self time.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { start_server, stop_server, wrk } from "./wrk.ts";

const { values: args } = parseArgs({
  options: {
    server: { type: "string", default: "fw" },
    route: { type: "string", default: "/users/42" },
    seconds: { type: "string", default: "10" },
    interval: { type: "string", default: "250" },
    out: { type: "string", default: "/tmp/fw-profile" },
    top: { type: "string", default: "20" },
  },
});

rmSync(args.out, { recursive: true, force: true });
mkdirSync(args.out, { recursive: true });
const flags = ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${args.out}`, `--cpu-prof-interval=${args.interval}`];
const server = await start_server(join(import.meta.dir, "servers", `${args.server}.ts`), "0", flags);
const load = await wrk(server.base + args.route, { threads: 1, connections: 64, seconds: Number(args.seconds), cpu: "1" }, server.proc.pid);
await Bun.sleep(500); // let the last connections close before the server writes its profile
await stop_server(server);
console.log(`${args.server} ${args.route}: ${Math.round(load.rps)} req/s under the profiler (server CPU ${Math.round(load.server_cpu * 100)}%)`);

const md = readdirSync(args.out).find((f) => f.endsWith(".md"));
if (!md) throw new Error(`no profile written to ${args.out} (the server must exit cleanly on SIGTERM)`);
const text = readFileSync(join(args.out, md), "utf8");
const hot = text.slice(text.indexOf("## Hot Functions"), text.indexOf("## Call Tree")).trim().split("\n");
console.log(hot.slice(0, 4 + Number(args.top)).join("\n"));
console.log(`\nfull profile: ${args.out}`);
