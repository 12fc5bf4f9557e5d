// Files from disk as response bodies, read as they are sent: the runtime's way (files_bun.ts,
// files_deno.ts), chosen once by RUNTIME (platform/which.ts).
import { RUNTIME } from "../../platform/which.ts";

type FilesAdapter = { existing_file(path: string): Promise<Blob | ReadableStream<Uint8Array> | null> };

const adapter: FilesAdapter = RUNTIME === "deno" ? await import("./files_deno.ts") : await import("./files_bun.ts");

/** The file at `path` as a body, or null when nothing is there. */
export const existing_file: (path: string) => Promise<Blob | ReadableStream<Uint8Array> | null> = adapter.existing_file;
