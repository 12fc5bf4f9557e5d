// Fw as an app runs it: the error handler in the chain, logging off.
import { Fw } from "../../../src/fw/index.ts";

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

const port = Number(process.env.PORT ?? 3000);
Fw.start({ port, log: () => {} }, [Fw.ErrorHandler, Hello, ShowUser]);
// A clean exit on SIGINT/SIGTERM lets `bun --cpu-prof` write its profile.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
console.log(`fw listening on ${port}`);
