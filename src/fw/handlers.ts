// The handler chain: handlers wrap the dispatch to endpoints, in the order given to
// Fw.start. Each gets the context and `next` (the rest of the chain).
import type { Context } from "./context.ts";
import { HttpError, InternalServerError } from "./errors.ts";
import { negotiate } from "./negotiate.ts";
import { CONTENT_TYPES } from "./response.ts";

export type Next = () => Promise<Response>;

export abstract class Handler {
  /**
   * True when the handler must see every request (a log line, a metric per request): while one
   * in the chain says so, the app serves nothing from Bun's native route table (app.ts
   * `native_routes`), whose answers never reach JavaScript.
   */
  readonly sees_every_request: boolean = false;

  abstract handle(context: Context, next: Next): Response | Promise<Response>;
}

export function escape_html(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A bug (anything thrown that is not an HTTP error): its stack goes to the log with the request id, never to the client. */
export function log_unhandled(thrown: unknown, context: Context): void {
  context.app.log({
    level: "error",
    msg: "unhandled error",
    request_id: context.state.request_id,
    method: context.request.method,
    path: context.request.path,
    error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
  });
}

export type HtmlErrorRenderer = (error: HttpError, context: Context) => string;

const default_html: HtmlErrorRenderer = (error) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${error.status} ${escape_html(error.code)}</title></head>` +
  `<body><h1>${error.status}</h1><p>${escape_html(error.message)}</p></body></html>`;

/**
 * Turns raised errors into responses: HttpError as its status and body shape
 * (negotiated JSON / HTML / text), anything else as a generic 500 whose stack
 * goes to the log with the request id, never to the client.
 */
export class ErrorHandler extends Handler {
  constructor(private readonly options: { html?: HtmlErrorRenderer } = {}) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    try {
      return await next();
    } catch (thrown) {
      return this.render(thrown, context);
    }
  }

  render(thrown: unknown, context: Context): Response {
    let error: HttpError;
    if (thrown instanceof HttpError) error = thrown;
    else {
      log_unhandled(thrown, context);
      error = new InternalServerError("Internal server error");
    }
    const headers = new Headers(context.response.headers);
    headers.delete("content-type");
    headers.delete("content-disposition");
    for (const [name, value] of Object.entries(error.headers)) headers.set(name, value);
    const kind = negotiate(context.headers.get("accept"));
    let body: string;
    if (kind === "html") {
      body = (this.options.html ?? default_html)(error, context);
      headers.set("content-type", CONTENT_TYPES.html);
    } else if (kind === "text") {
      body = `${error.status} ${error.message}\n`;
      headers.set("content-type", CONTENT_TYPES.text);
    } else {
      body = JSON.stringify(error.body());
      headers.set("content-type", CONTENT_TYPES.json);
    }
    return new Response(context.request.method === "HEAD" ? null : body, { status: error.status, headers });
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Gives every request an id (a safe incoming X-Request-Id, else a new one) and echoes it. */
export class RequestIdHandler extends Handler {
  async handle(context: Context, next: Next): Promise<Response> {
    const incoming = context.headers.get("x-request-id");
    const id = incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    context.state.request_id = id;
    context.response.headers.set("x-request-id", id);
    const response = await next();
    if (!response.headers.has("x-request-id")) response.headers.set("x-request-id", id);
    return response;
  }
}

/** One JSON line per request: method, path (no query), status, duration, request id. */
export class LoggingHandler extends Handler {
  override readonly sees_every_request = true;

  async handle(context: Context, next: Next): Promise<Response> {
    const start = performance.now();
    let status = 500;
    try {
      const response = await next();
      status = response.status;
      return response;
    } finally {
      this.write(context, start, status);
    }
  }

  /**
   * The logger precomposed around the rest of the chain (app.ts `link`, when `handle` is not
   * overridden): a response the rest returns without a promise is logged and returned at once,
   * so logging does not make a synchronous request asynchronous.
   */
  around(next: (context: Context) => Response | Promise<Response>): (context: Context) => Response | Promise<Response> {
    return (context) => {
      const start = performance.now();
      let result: Response | Promise<Response>;
      try {
        result = next(context);
      } catch (thrown) {
        this.write(context, start, 500);
        throw thrown;
      }
      if (!(result instanceof Promise)) {
        this.write(context, start, result.status);
        return result;
      }
      return result.then(
        (response) => {
          this.write(context, start, response.status);
          return response;
        },
        (thrown: unknown) => {
          this.write(context, start, 500);
          throw thrown;
        },
      );
    };
  }

  private write(context: Context, start: number, status: number): void {
    context.app.log({
      level: "info",
      msg: "request",
      method: context.request.method,
      path: context.request.path,
      route: context.route,
      status,
      duration_ms: Math.round((performance.now() - start) * 1000) / 1000,
      request_id: context.state.request_id,
    });
  }
}
