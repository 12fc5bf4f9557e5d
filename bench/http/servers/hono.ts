// Hono on Bun.serve (its default router, SmartRouter).
import { Hono } from "hono";

const app = new Hono();
app.get("/json", (c) => c.json({ message: "hello" }));
app.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));

const port = Number(process.env.PORT ?? 3000);
Bun.serve({ port, hostname: "127.0.0.1", development: false, fetch: app.fetch });
console.log(`hono listening on ${port}`);
// A clean exit on SIGINT/SIGTERM lets `bun --cpu-prof` write its profile.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
