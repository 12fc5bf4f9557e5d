// Application assembly: handlers first, then endpoints, compiled once at start.
import type { Server } from "bun";
import { first_values, parse_pairs, read_body, type Input } from "./body.ts";
import type { AppServices, Context, Params } from "./context.ts";
import { type ConcreteEndpoint, is_endpoint_class } from "./endpoint.ts";
import { BadRequest, MethodNotAllowed, NotFound, URITooLong } from "./errors.ts";
import { ErrorHandler, Handler } from "./handlers.ts";
import { issues_of, type RequestContract } from "./request.ts";
import { Json, is_sendable, render_custom, type Rendered } from "./response.ts";
import { METHODS, Router, type Method } from "./router/index.ts";
import type { ViewEngine } from "./views.ts";

export interface FwConfig {
  port?: number;
  hostname?: string;
  router?: { path_cache_size?: number };
  /** Largest accepted body in bytes (413 above). Default 1 MiB. */
  body_limit?: number;
  /** Longest accepted URL in characters (414 above). Default 8192. */
  max_url_length?: number;
  /** Seconds an idle connection is kept open. Default 30. */
  idle_timeout?: number;
  views?: ViewEngine;
  /** Where log lines go (one object per line). Default: JSON lines on stdout. */
  log?: (line: Record<string, unknown>) => void;
}

export type HandlerItem = Handler | (new () => Handler);
export type Item = HandlerItem | ConcreteEndpoint;

type Compiled = {
  endpoint: ConcreteEndpoint;
  contract: RequestContract;
  reads_body: boolean;
  /** The allow-list of a Json.of(schema) response contract: undeclared fields never leak. */
  json_schema: { parse(value: unknown): unknown } | undefined;
};

function json_schema_of(contract: ConcreteEndpoint["response_contract"]): Compiled["json_schema"] {
  const classes = Array.isArray(contract) ? contract : [contract];
  for (const c of classes) if (c === Json || c.prototype instanceof Json) return (c as typeof Json).schema;
  return undefined;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const json_lines = (line: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
};

/** Parses `"GET /path"` or `"GET|POST /path"`. */
export function parse_route(route: string, owner: string): { methods: Method[]; path: string } {
  const match = /^([A-Z|]+)\s+(\/\S*)$/.exec(route);
  if (!match) throw new Error(`${owner}: route must look like "GET /path" or "GET|POST /path", got ${JSON.stringify(route)}`);
  const methods = match[1]!.split("|");
  for (const method of methods) {
    if (!METHODS.includes(method as Method)) throw new Error(`${owner}: unknown method ${method} in route ${JSON.stringify(route)}`);
  }
  return { methods: methods as Method[], path: match[2]! };
}

export class App {
  readonly router: Router<Compiled>;
  readonly services: AppServices;
  private readonly body_limit: number;
  private readonly max_url_length: number;
  private readonly chain: (context: Context, index: number) => Promise<Response>;
  private readonly fallback = new ErrorHandler();

  constructor(readonly config: FwConfig, items: readonly Item[]) {
    this.router = new Router<Compiled>({ path_cache_size: config.router?.path_cache_size ?? 1024 });
    this.services = { views: config.views, log: config.log ?? json_lines };
    this.body_limit = config.body_limit ?? 1024 * 1024;
    this.max_url_length = config.max_url_length ?? 8192;
    const handlers: Handler[] = [];
    let seen_endpoint = false;
    for (const item of items) {
      if (is_endpoint_class(item)) {
        this.register(item);
        seen_endpoint = true;
      } else if (item instanceof Handler) handlers.push(item);
      else if (typeof item === "function" && item.prototype instanceof Handler) handlers.push(new item());
      else throw new Error(`Fw.start: ${describe(item)} is neither a Handler nor an endpoint made with Fw.Endpoint`);
      if (seen_endpoint && !is_endpoint_class(item)) throw new Error("Fw.start: handlers come first, then endpoints");
    }
    const chain = (context: Context, index: number): Promise<Response> => {
      const handler = handlers[index];
      if (handler === undefined) return this.dispatch(context);
      return Promise.resolve(handler.handle(context, () => chain(context, index + 1)));
    };
    this.chain = chain;
  }

  private register(endpoint: ConcreteEndpoint): void {
    const name = endpoint.name || "anonymous endpoint";
    if (typeof endpoint.route !== "string") throw new Error(`${name} has no route: declare \`static route = "GET /path"\``);
    if (typeof endpoint.prototype.call !== "function") throw new Error(`${name} must implement call()`);
    const { methods, path } = parse_route(endpoint.route, name);
    const contract = endpoint.request_contract;
    const compiled: Compiled = { endpoint, contract, reads_body: contract.reads_body, json_schema: json_schema_of(endpoint.response_contract) };
    for (const method of methods) this.router.add(method, path, compiled);
  }

  routes(): { method: Method; path: string }[] {
    return this.router.routes();
  }

  /** Handles one request (also usable in-process, without a server). */
  fetch = async (raw: Request, server?: Server<unknown>): Promise<Response> => {
    const url = raw.url;
    const start = url.indexOf("/", url.indexOf("//") + 2);
    const query_at = url.indexOf("?", start);
    const path = start === -1 ? "/" : url.slice(start, query_at === -1 ? undefined : query_at);
    const context: Context = {
      request: { method: raw.method, path, url, body: undefined, ip: server?.requestIP(raw)?.address ?? "", raw },
      response: { headers: new Headers(), status: 200 },
      headers: raw.headers,
      params: Object.create(null) as Params,
      route: undefined,
      app: this.services,
      state: Object.create(null) as Record<string, unknown>,
    };
    let response: Response;
    try {
      if (url.length > this.max_url_length) throw new URITooLong(`URL longer than ${this.max_url_length} characters`);
      response = await this.chain(context, 0);
    } catch (thrown) {
      response = this.fallback.render(thrown, context);
    }
    if (raw.method === "HEAD" && response.body !== null) return new Response(null, { status: response.status, headers: response.headers });
    return response;
  };

  private async dispatch(context: Context): Promise<Response> {
    const { method, path, url } = context.request;
    const found = this.router.find(method, path);
    if (found.kind !== "found") {
      if (found.kind === "method_not_allowed") throw new MethodNotAllowed(method, found.allowed);
      if (found.kind === "bad_request") throw new BadRequest(found.message);
      throw new NotFound(path);
    }
    context.route = found.route;
    const { endpoint, contract } = found.handler;
    const query_at = url.indexOf("?");
    const query: Input | undefined = query_at === -1 ? undefined : parse_pairs(url.slice(query_at + 1));
    const params = context.params;
    if (query !== undefined) first_values(query, params);
    for (const key in found.params) params[key] = found.params[key]!;

    const instance = new endpoint();
    instance.context = context;
    instance.params = params;
    instance.headers = context.headers;
    instance.request = context.request;
    instance.response = context.response;
    if (found.handler.reads_body) {
      const body = BODY_METHODS.has(method) ? await read_body(context.request.raw, this.body_limit) : undefined;
      context.request.body = body;
      const input: Record<string, unknown> = Object.assign(Object.create(null), query, body, found.params);
      const parsed = contract.schema.safeParse(input);
      if (!parsed.success) throw contract.on_invalid(issues_of(parsed.error));
      instance[contract.property] = parsed.data;
    } else {
      instance[contract.property] = {};
    }
    let result: unknown = instance.call();
    if (result instanceof Promise) result = await result;
    const schema = found.handler.json_schema;
    if (schema !== undefined && result instanceof Json) result = new Json(schema.parse(result.value), result.status);
    if (is_sendable(result)) return result.to_response(context);
    if (typeof result === "object" && result !== null && typeof (result as Rendered).render === "function") return render_custom(context, result as Rendered);
    throw new Error(`${endpoint.name}.call() returned something that is not a response`);
  }
}

function describe(item: unknown): string {
  if (typeof item === "function") return item.name || "an anonymous class";
  return String(item);
}

export interface Running {
  readonly app: App;
  readonly server: Server<unknown>;
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (up to grace_ms), then closes. */
  stop(grace_ms?: number): Promise<void>;
}

export function build(config: FwConfig, items: readonly Item[]): App {
  return new App(config, items);
}

export function start(config: FwConfig, items: readonly Item[]): Running {
  const app = new App(config, items);
  const server = Bun.serve({
    port: config.port ?? 3000,
    hostname: config.hostname ?? "127.0.0.1",
    development: false,
    maxRequestBodySize: app["body_limit"],
    idleTimeout: config.idle_timeout ?? 30,
    fetch: app.fetch,
    error: () => new Response(JSON.stringify({ error: "internal_server_error", message: "Internal server error" }), {
      status: 500,
      headers: { "content-type": "application/json; charset=utf-8" },
    }),
  });
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  return {
    app,
    server,
    url,
    async stop(grace_ms = 10_000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const forced = new Promise<void>((done) => {
        timer = setTimeout(() => {
          void server.stop(true);
          done();
        }, grace_ms);
      });
      await Promise.race([server.stop(false), forced]);
      clearTimeout(timer);
    },
  };
}
