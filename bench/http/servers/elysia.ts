// Elysia with its defaults (ahead-of-time compiled handlers, Bun adapter).
import { Elysia } from "elysia";

const port = Number(process.env.PORT ?? 3000);
new Elysia()
  .get("/json", () => ({ message: "hello" }))
  .get("/users/:id", ({ params }) => ({ id: params.id }))
  .listen({ port, hostname: "127.0.0.1" });
console.log(`elysia listening on ${port}`);
// A clean exit on SIGINT/SIGTERM lets `bun --cpu-prof` write its profile.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
