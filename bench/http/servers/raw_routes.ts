// Raw Bun.serve with its native router (`routes`): the handler never builds `request.url`.
// The ceiling for anything that routes in JavaScript from a fetch handler (Elysia registers
// its routes here too).
export {}; // a module for the typecheck: else its top-level `port` is a global, declared again by the other server scripts
const port = Number(process.env.PORT ?? 3000);

Bun.serve({
  port,
  hostname: "127.0.0.1",
  development: false,
  routes: {
    "/json": () => Response.json({ message: "hello" }),
    "/users/:id": (request) => Response.json({ id: request.params.id }),
  },
  fetch: () => new Response("not found", { status: 404 }),
});
console.log(`raw-routes listening on ${port}`);
// A clean exit on SIGINT/SIGTERM lets `bun --cpu-prof` write its profile.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
