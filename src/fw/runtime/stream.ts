// Response bodies made part by part (Fw.Response.Stream), each part sent as soon as it is
// produced: Bun's direct stream (stream_bun.ts), elsewhere a web ReadableStream that pulls one
// part at a time (stream_portable.ts). Chosen once by RUNTIME (platform/which.ts).
import { RUNTIME } from "../../platform/which.ts";

export type StreamSource = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

type StreamAdapter = { stream_body(source: StreamSource): ReadableStream };

const adapter: StreamAdapter = RUNTIME === "bun" ? await import("./stream_bun.ts") : await import("./stream_portable.ts");

/** A body that sends each part of `source` as soon as it is produced. */
export const stream_body: (source: StreamSource) => ReadableStream = adapter.stream_body;
