// Response contracts. An endpoint's call() returns one of these; the app turns it
// into a web Response. Custom contracts implement `render(): string` (and may set
// `content_type`).
import { resolve, sep } from "node:path";
import type { Context } from "./context.ts";
import { NotFound } from "./errors.ts";
import { existing_file } from "./runtime/files.ts";
import { stream_body, type StreamSource } from "./runtime/stream.ts";

export const CONTENT_TYPES = {
  json: "application/json; charset=utf-8",
  html: "text/html; charset=utf-8",
  text: "text/plain; charset=utf-8",
  octet: "application/octet-stream",
} as const;

/** A response the app knows how to send. */
export interface Sendable {
  to_response(context: Context): Response | Promise<Response>;
}

/** A custom response contract: anything with render(). */
export interface Rendered {
  render(): string;
  readonly content_type?: string;
  readonly status?: number;
}

/**
 * The response state of one request. Its Headers are made on first use: most answers set no
 * header, and then finish() builds the Response from a shared Headers, which costs less than
 * making one per request.
 */
export class PendingResponse {
  status = 200;
  private made: Headers | undefined = undefined;
  get headers(): Headers {
    return (this.made ??= new Headers());
  }
  set headers(value: Headers) {
    this.made = value;
  }
  /** The headers if anything asked for them, without making them. */
  get made_headers(): Headers | undefined {
    return this.made;
  }
}

/**
 * Shared Headers for the usual content types, used when nothing else was set. A Response copies
 * its init headers, so these are never changed; copying a Headers is cheaper than reading an object.
 */
const SHARED: Record<string, Headers> = Object.create(null);
for (const type of Object.values(CONTENT_TYPES)) SHARED[type] = new Headers({ "content-type": type });

export function finish(context: Context, body: BodyInit | null, content_type: string | null, status?: number): Response {
  const state = context.response;
  const headers = state instanceof PendingResponse ? state.made_headers : state.headers;
  if (headers === undefined) {
    const init = content_type === null ? undefined : (SHARED[content_type] ?? { "content-type": content_type });
    return new Response(body, { status: status ?? state.status, headers: init });
  }
  if (content_type !== null && !headers.has("content-type")) headers.set("content-type", content_type);
  return new Response(body, { status: status ?? state.status, headers });
}

export class Json<T = unknown> implements Sendable {
  /** Brand: keeps response types distinct for the compiler (they are otherwise alike). */
  readonly kind = "json" as const;
  /** Optional allow-list applied by the app before serialising (see Json.of). */
  static schema: { parse(value: unknown): unknown } | undefined;
  constructor(
    readonly value: T,
    readonly status?: number,
  ) {}
  to_response(context: Context): Response {
    return finish(context, JSON.stringify(this.value), CONTENT_TYPES.json, this.status);
  }
  /** A Json contract that serialises only what `schema` declares (unknown keys stripped). */
  static of(schema: { parse(value: unknown): unknown }): typeof Json {
    const Contract = class extends Json {
      static override schema = schema;
    };
    return Contract as unknown as typeof Json;
  }
}

export class Text implements Sendable {
  readonly kind = "text" as const;
  constructor(
    readonly value: string,
    readonly status?: number,
  ) {}
  to_response(context: Context): Response {
    return finish(context, this.value, CONTENT_TYPES.text, this.status);
  }
}

export class Html implements Sendable {
  readonly kind = "html" as const;
  constructor(
    readonly value: string,
    readonly status?: number,
  ) {}
  to_response(context: Context): Response {
    return finish(context, this.value, CONTENT_TYPES.html, this.status);
  }
}

/** 204 No Content, no body. */
export class Empty implements Sendable {
  readonly kind = "empty" as const;
  to_response(context: Context): Response {
    return finish(context, null, null, 204);
  }
}

/** Precomputed bytes with their content type (and optional ETag): the fastest path. */
export class Bytes implements Sendable {
  readonly kind = "bytes" as const;
  constructor(
    readonly bytes: Uint8Array | string,
    readonly content_type: string,
    readonly status?: number,
  ) {}
  to_response(context: Context): Response {
    return finish(context, this.bytes as BodyInit, this.content_type, this.status);
  }
}

export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class Redirect implements Sendable {
  readonly kind = "redirect" as const;
  constructor(
    readonly location: string,
    readonly status = 302,
  ) {
    if (!REDIRECT_STATUSES.has(status)) throw new RangeError(`Not a redirect status: ${status}`);
  }
  to_response(context: Context): Response {
    context.response.headers.set("location", this.location);
    return finish(context, null, null, this.status);
  }
}

export type { StreamSource } from "./runtime/stream.ts";

/** Chunked response; every part is flushed to the client as soon as it is produced. */
export class Stream implements Sendable {
  readonly kind = "stream" as const;
  constructor(
    readonly source: StreamSource,
    readonly content_type: string = CONTENT_TYPES.text,
  ) {}
  to_response(context: Context): Response {
    context.response.headers.set("transfer-encoding", "chunked");
    return finish(context, stream_body(this.source), this.content_type);
  }
}

/** `attachment; filename="..."` with an ASCII fallback and the RFC 6266/8187 UTF-8 form. */
export function content_disposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, "_").replace(/[\r\n]/g, "_");
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** A file from inside `root`, sent as a download. Paths escaping `root` and missing files are NotFound. */
export class FileDownload implements Sendable {
  readonly kind = "file" as const;
  constructor(
    readonly root: string,
    readonly path: string,
    readonly filename?: string,
  ) {}
  async to_response(context: Context): Promise<Response> {
    const base = resolve(this.root);
    const full = resolve(base, this.path.replace(/^[/\\]+/, ""));
    if (this.path.includes("\0") || (full !== base && !full.startsWith(base + sep))) throw new NotFound(context.request.path);
    if (full === base) throw new NotFound(context.request.path);
    const file = await existing_file(full);
    if (file === null) throw new NotFound(context.request.path);
    const name = this.filename ?? full.slice(full.lastIndexOf(sep) + 1);
    context.response.headers.set("content-disposition", content_disposition(name));
    return finish(context, file, CONTENT_TYPES.octet);
  }
}

export type ResponseClass = abstract new (...args: never[]) => Sendable | Rendered;

export function is_sendable(value: unknown): value is Sendable {
  return typeof value === "object" && value !== null && typeof (value as Sendable).to_response === "function";
}

export function render_custom(context: Context, value: Rendered): Response {
  return finish(context, value.render(), value.content_type ?? CONTENT_TYPES.text, value.status);
}
