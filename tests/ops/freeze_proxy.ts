/**
 * A TCP proxy that can freeze: while frozen it keeps every connection open (new ones too) but
 * forwards nothing (a partitioned network or a hung host: the case where no error ever arrives).
 * `thaw()` delivers what was held back, in order.
 */
import { connect, createServer, type AddressInfo, type Socket } from "node:net";

export type FreezeProxy = { port: number; freeze(): void; thaw(): void; close(): Promise<void> };

export async function freeze_proxy(host: string, port: number): Promise<FreezeProxy> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const held: (() => void)[] = [];
  const forward = (from: Socket, to: Socket) =>
    from.on("data", (chunk) => {
      if (frozen) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server = createServer((client) => {
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
      socket.on("close", () => sockets.delete(socket));
    }
    forward(client, upstream);
    forward(upstream, client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const send of held.splice(0)) send();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
