/**
 * A TCP proxy in front of PostgreSQL for availability tests: `stop()` drops every connection and
 * refuses new ones (the database "goes away"), `start()` listens again on the same port.
 * `blackhole()` accepts connections and never answers (a hung server).
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export type TcpProxy = { port: number; start(): Promise<void>; stop(): Promise<void> };

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

export async function tcp_proxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  let server: Server | undefined;
  const make = () =>
    createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      track(client);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  const proxy: TcpProxy = {
    port: 0,
    async start() {
      server = make();
      proxy.port = await listen(server, proxy.port);
    },
    async stop() {
      const closing = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
  await proxy.start();
  return proxy;
}

/** A server that accepts connections and never says anything. */
export async function blackhole(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  const port = await listen(server, 0);
  return {
    port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (taken from the OS, then released). */
export async function closed_port(): Promise<number> {
  const server = createServer();
  const port = await listen(server, 0);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
