/**
 * The part of Deno's API that the Deno adapters use (src/platform/*_deno.ts,
 * src/fw/runtime/*_deno.ts) and the Deno-only scripts (scripts/deno/, tests/runtime/deno/), declared for `tsc`, which checks the whole tree with Bun's types.
 * `deno check` never reads this file: it checks the same adapters against Deno's own types
 * (`npm run typecheck` runs both), so a declaration here that drifts from Deno's is caught there.
 */
declare namespace Deno {
  type PermissionState = "granted" | "denied" | "prompt";
  type PermissionDescriptor =
    | { name: "env"; variable?: string }
    | { name: "ffi"; path?: string | URL }
    | { name: "read" | "write"; path?: string | URL }
    | { name: "net"; host?: string }
    | { name: "run"; command?: string | URL }
    | { name: "sys" };

  const permissions: { querySync(descriptor: PermissionDescriptor): { readonly state: PermissionState } };

  const build: { readonly standalone: boolean; readonly os: string; readonly arch: string };

  const env: { get(key: string): string | undefined; toObject(): Record<string, string> };

  const stdin: { readonly readable: ReadableStream<Uint8Array> };

  function execPath(): string;

  /** The script's arguments (the Deno-only scripts of tests/runtime/deno/ and scripts/deno/). */
  const args: readonly string[];
  function exit(code?: number): never;

  type NativeNumber = "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "f32" | "f64";
  type NativeBig = "u64" | "i64" | "usize" | "isize";
  type NativeType = NativeNumber | NativeBig | "bool" | "buffer" | "pointer";
  type ToNative<T> = T extends NativeNumber ? number : T extends NativeBig ? bigint : T extends "bool" ? boolean : T extends "buffer" ? BufferSource | null : unknown;
  type FromNative<T> = T extends NativeNumber ? number : T extends NativeBig ? number | bigint : T extends "bool" ? boolean : T extends "void" ? undefined : unknown;
  type ForeignFunction = { readonly parameters: readonly NativeType[]; readonly result: NativeType | "void" };
  type Arguments<P extends readonly NativeType[]> = { -readonly [I in keyof P]: ToNative<P[I]> };
  type Symbols<S extends Record<string, ForeignFunction>> = { [K in keyof S]: (...args: Arguments<S[K]["parameters"]>) => FromNative<S[K]["result"]> };
  function dlopen<const S extends Record<string, ForeignFunction>>(filename: string, symbols: S): { symbols: Symbols<S>; close(): void };

  type NetAddr = { transport: "tcp" | "udp"; hostname: string; port: number };
  type ServeHandlerInfo = { remoteAddr: NetAddr; completed: Promise<void> };
  type ServeTcpOptions = {
    hostname?: string;
    port?: number;
    reusePort?: boolean;
    signal?: AbortSignal;
    onListen?: (addr: NetAddr) => void;
    onError?: (error: unknown) => Response | Promise<Response>;
  };
  type HttpServer<A = NetAddr> = { readonly addr: A; readonly finished: Promise<void>; shutdown(): Promise<void>; ref(): void; unref(): void };
  function serve(options: ServeTcpOptions, handler: (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>): HttpServer;

  type Listener = { readonly addr: NetAddr; close(): void };
  function listen(options: { hostname?: string; port: number; transport?: "tcp" }): Listener;

  type FsFile = { readonly readable: ReadableStream<Uint8Array>; close(): void };
  function open(path: string, options?: { read?: boolean }): Promise<FsFile>;
  function stat(path: string): Promise<{ isFile: boolean; size: number }>;

  type ChildProcess = { readonly stderr: ReadableStream<Uint8Array>; readonly status: Promise<{ code: number; success: boolean }> };
  class Command {
    constructor(command: string, options?: { args?: readonly string[]; cwd?: string; stdin?: "inherit" | "null"; stdout?: "inherit" | "piped"; stderr?: "inherit" | "piped" });
    spawn(): ChildProcess;
  }

  namespace errors {
    class NotCapable extends Error {}
    class NotFound extends Error {}
  }
}
