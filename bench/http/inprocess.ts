// Per-request cost of Fw's fetch without the network (no sockets, no HTTP parsing), against a
// bare fetch function: isolates the framework's own work. Complements index.ts; run by hand:
//   bun run bench/http/inprocess.ts
import { bench, run, summary } from "mitata";
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
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const path = url.slice(start);
  if (path === "/json") return Response.json({ message: "hello" });
  return Response.json({ id: path.slice(7) });
}

const json = new Request("http://127.0.0.1:3000/json");
const user = new Request("http://127.0.0.1:3000/users/42");
const query = new Request("http://127.0.0.1:3000/users/42?q=1");

summary(() => {
  bench("raw  GET /json", () => raw(json));
  bench("fw   GET /json", async () => await app.fetch(json));
});
summary(() => {
  bench("raw  GET /users/42", () => raw(user));
  bench("fw   GET /users/42", async () => await app.fetch(user));
  bench("fw   GET /users/42?q=1", async () => await app.fetch(query));
});
await run();
