// Per-request cost of Fw without the network (no sockets, no HTTP parsing), against a bare
// fetch function: isolates the framework's own work. Calls `app.answer`, what Bun.serve calls.
// Reports the best of several batches in CPU time of this process (process.cpuUsage), which
// other work on the machine disturbs less than wall time:
//   taskset -c 0 bun run bench/http/inprocess.ts [batches] [per_batch]
import { Fw } from "../../src/fw/index.ts";

class Hello extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /json";
  call() {
    return this.json({ message: "hello" });
  }
}
class ShowUser extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /users/:id";
  call() {
    return this.json({ id: this.params.id });
  }
}
const app = Fw.build({ log: () => {} }, [Fw.ErrorHandler, Hello, ShowUser]);

function raw(request: Request): Response {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/json") return Response.json({ message: "hello" });
  return Response.json({ id: path.slice(7) });
}

const batches = Number(process.argv[2] ?? 15);
const per_batch = Number(process.argv[3] ?? 50_000);

async function best_ns(fn: (r: Request) => Response | Promise<Response>, request: Request): Promise<number> {
  let best = Infinity;
  for (let b = 0; b < batches; b++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < per_batch; i++) {
      const r = fn(request);
      if (r instanceof Promise) await r;
    }
    const used = process.cpuUsage(t0);
    best = Math.min(best, ((used.user + used.system) * 1000) / per_batch);
  }
  return best;
}

const cases: [string, string][] = [
  ["GET /json", "/json"],
  ["GET /users/42", "/users/42"],
  ["GET /users/42?q=1", "/users/42?q=1"],
];
console.log("case            raw ns (CPU)   fw ns   fw − raw");
for (const [label, path] of cases) {
  const request = new Request(`http://127.0.0.1:3000${path}`);
  await best_ns(raw, request); // warm-up: let the JIT settle before measuring
  await best_ns(app.answer, request);
  const r = await best_ns(raw, request);
  const f = await best_ns(app.answer, request);
  console.log(`${label.padEnd(18)} ${r.toFixed(0).padStart(7)} ${f.toFixed(0).padStart(7)} ${(f - r).toFixed(0).padStart(9)}`);
}
