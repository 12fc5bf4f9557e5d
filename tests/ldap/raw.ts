/**
 * A raw LDAP client over node:net for the abuse and fuzz tests: it sends any bytes, reads
 * whole response PDUs (the codec's client half), and says when the server closed the connection.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { decode_response, encode_request } from "../../src/oidc/ldap/client_codec.ts";
import { pdu_length } from "../../src/oidc/ldap/messages.ts";
import type { Request, ResponseMessage } from "../../src/oidc/ldap/protocol.ts";

export type RawClient = {
  socket: net.Socket | tls.TLSSocket;
  send(bytes: Uint8Array): void;
  request(id: number, request: Request): void;
  /** The next response, or null once the server closed the connection. */
  next(timeout_ms?: number): Promise<ResponseMessage | null>;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
  close(): void;
};

/** A connection to `host:port`; with `ca`, over TLS from the first byte (LDAPS) trusting that certificate file. */
export function raw_client(port: number, options: { host?: string; ca?: string } = {}): Promise<RawClient> {
  const host = options.host ?? "127.0.0.1";
  return new Promise((resolve, reject) => {
    const socket = options.ca === undefined ? net.connect(port, host) : tls.connect({ port, host, ca: readFileSync(options.ca), servername: "localhost" });
    let buffer = new Uint8Array(0);
    const responses: ResponseMessage[] = [];
    const waiting: ((r: ResponseMessage | null) => void)[] = [];
    let ended = false;
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    void closed.then(() => {
      ended = true;
      for (const wake of waiting.splice(0)) wake(null);
    });
    socket.on("data", (chunk: Uint8Array) => {
      const joined = new Uint8Array(buffer.length + chunk.length);
      joined.set(buffer);
      joined.set(chunk, buffer.length);
      buffer = joined;
      for (;;) {
        const length = pdu_length(buffer);
        if (length === null || length > buffer.length) break;
        const message = decode_response(buffer.slice(0, length));
        buffer = buffer.subarray(length);
        const wake = waiting.shift();
        if (wake) wake(message);
        else responses.push(message);
      }
    });
    socket.on("error", () => {});
    socket.once(options.ca === undefined ? "connect" : "secureConnect", () =>
      resolve({
        socket,
        send: (bytes) => void socket.write(bytes),
        request: (id, request) => void socket.write(encode_request({ id, request, controls: [] })),
        next(timeout_ms = 10_000) {
          const ready = responses.shift();
          if (ready !== undefined) return Promise.resolve(ready);
          if (ended) return Promise.resolve(null);
          return new Promise((wake, fail) => {
            const timer = setTimeout(() => fail(new Error("no response in time")), timeout_ms);
            waiting.push((r) => {
              clearTimeout(timer);
              wake(r);
            });
          });
        },
        closed,
        close: () => void socket.destroy(),
      }),
    );
    socket.once("error", reject);
  });
}
