// CPU profile of one server under wrk load:
//   bun run bench/http/profile.ts [--server fw] [--route /users/42] [--seconds 10] [--out /tmp/fw-profile]
// Writes Bun's .cpuprofile (open in Chrome DevTools) and its markdown summary, and prints the
// functions with the most self time.
import { cpu_prof_flags, print_hot_functions } from "./cpu_profile.ts";
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

const flags = cpu_prof_flags(args.out, args.interval);
const server = await start_server(join(import.meta.dir, "servers", `${args.server}.ts`), "0", flags);
const load = await wrk(server.base + args.route, { threads: 1, connections: 64, seconds: Number(args.seconds), cpu: "1" }, server.proc.pid);
await Bun.sleep(500); // let the last connections close before the server writes its profile
await stop_server(server);
console.log(`${args.server} ${args.route}: ${Math.round(load.rps)} req/s under the profiler (server CPU ${Math.round(load.server_cpu * 100)}%)`);

print_hot_functions(args.out, Number(args.top));
