// Raw Bun.serve: the baseline. One fetch handler, the path taken from the URL by hand.
export {}; // a module for the typecheck: else its top-level `port` is a global, declared again by the other server scripts
const port = Number(process.env.PORT ?? 3000);

Bun.serve({
  port,
  hostname: "127.0.0.1",
  development: false,
  fetch(request) {
    const url = request.url;
    const start = url.indexOf("/", url.indexOf("//") + 2);
    const query = url.indexOf("?", start);
    const path = query === -1 ? url.slice(start) : url.slice(start, query);
    if (path === "/json") return Response.json({ message: "hello" });
    if (path.startsWith("/users/") && path.indexOf("/", 7) === -1 && path.length > 7) return Response.json({ id: path.slice(7) });
    return new Response("not found", { status: 404 });
  },
});
console.log(`raw listening on ${port}`);
// A clean exit on SIGINT/SIGTERM lets `bun --cpu-prof` write its profile.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
