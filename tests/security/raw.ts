/**
 * A raw TCP client (node:net) for requests fetch will not send: malformed request lines,
 * invalid UTF-8 bytes, huge headers, bodies trickled byte by byte, or nothing at all.
 */
import { connect } from "node:net";

export type RawAnswer = {
  /** Everything the server wrote. */
  text: string;
  /** The status code of the first response line, or null when none came. */
  status: number | null;
  /** The response headers (lower-case names) and body of the first response. */
  headers: Map<string, string>;
  body: string;
  /** Whether the server closed the connection before `wait_ms`. */
  closed: boolean;
};

export type RawOptions = {
  /** More pieces to write after the first, one every `every_ms`. */
  trickle?: (string | Uint8Array)[];
  every_ms?: number;
  /** How long to wait for the server to close (default 3 s). */
  wait_ms?: number;
  /** Resolve as soon as a whole response has arrived (default true). */
  stop_at_response?: boolean;
};

function parse(text: string): Pick<RawAnswer, "status" | "headers" | "body"> {
  const end = text.indexOf("\r\n\r\n");
  const head = end === -1 ? text : text.slice(0, end);
  const lines = head.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: match ? Number(match[1]) : null, headers, body: end === -1 ? "" : text.slice(end + 4) };
}

function complete(text: string): boolean {
  const { status, headers, body } = parse(text);
  if (status === null || !text.includes("\r\n\r\n")) return false;
  const length = headers.get("content-length");
  return length === undefined ? headers.get("connection") === "close" : Buffer.byteLength(body) >= Number(length);
}

/** Sends `payload` (then `trickle`) to host:port and collects the answer. */
export function raw(url: string, payload: string | Uint8Array, options: RawOptions = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const wait = options.wait_ms ?? 3000;
  const stop_at_response = options.stop_at_response ?? true;
  return new Promise((resolve, reject) => {
    let text = "";
    let done = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const finish = (closed: boolean, socket?: { end(): void }) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      clearTimeout(deadline);
      socket?.end();
      resolve({ text, closed, ...parse(text) });
    };
    const deadline = setTimeout(() => finish(false, current), wait);
    let current: { end(): void } | undefined;
    const socket = connect({ host: hostname, port: Number(port) });
    current = socket;
    socket.on("connect", () => {
      if (payload.length > 0) socket.write(payload);
      const rest = [...(options.trickle ?? [])];
      if (rest.length > 0) {
        timer = setInterval(() => {
          const piece = rest.shift();
          if (piece === undefined) clearInterval(timer);
          else socket.write(piece);
        }, options.every_ms ?? 200);
      }
    });
    socket.on("data", (data: Uint8Array) => {
      text += new TextDecoder().decode(data);
      if (stop_at_response && complete(text)) finish(false, socket);
    });
    socket.on("close", () => finish(true));
    socket.on("error", (error) => {
      if (!done) reject(error);
    });
  });
}

const encoder = new TextEncoder();

/** Bytes of a request: strings as UTF-8, numbers as raw bytes (to send invalid UTF-8). */
export function bytes(...parts: (string | number[])[]): Uint8Array {
  return new Uint8Array(parts.flatMap((part) => (typeof part === "string" ? [...encoder.encode(part)] : part)));
}
