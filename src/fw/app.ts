// Application assembly: handlers first, then endpoints, compiled once at start.
import { NO_PAIRS, first_values } from "./body.ts";
import type { AddressLookup, AppServices, Context, Params, Query } from "./context.ts";
import { type ConcreteEndpoint, is_endpoint_class } from "./endpoint.ts";
import { BadRequest, MethodNotAllowed, NotFound, URITooLong } from "./errors.ts";
import { Exchange, Incoming, type BodyRules } from "./exchange.ts";
import { ErrorHandler, Handler, LoggingHandler } from "./handlers.ts";
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
  /** Most parameters a query string or form body may carry (400 above). Default 1000. */
  max_params?: number;
  views?: ViewEngine;
  /**
   * Let the runtime's native route table (Bun's; Deno has none) answer GETs of precomputed
   * endpoints (endpoint.ts `precomputed`). Default true; it applies only while no handler must
   * see every request.
   */
  serve_natively?: boolean;
  /**
   * Share the port with other processes that set it too (SO_REUSEPORT: the kernel spreads new
   * connections over them). Default false: the port is this server's alone, and a second server
   * on it fails to start.
   */
  reuse_port?: boolean;
  /** Where log lines go (one object per line). Default: JSON lines on stdout. */
  log?: (line: Record<string, unknown>) => void;
}

export type HandlerItem = Handler | (new () => Handler);
export type Item = HandlerItem | ConcreteEndpoint;

/** One link of the compiled handler chain. */
type Step = (context: Context) => Response | Promise<Response>;

/** A frozen answer of a precomputed endpoint (see `App.native_routes`). */
export type NativeAnswer = { readonly status: number; readonly headers: readonly [string, string][]; readonly body: Uint8Array<ArrayBuffer> };

/** Headers that belong to one exchange, never to a frozen answer: Bun sets its own date. */
const PER_EXCHANGE_HEADERS = ["date", "x-request-id", "set-cookie"];

type Compiled = {
  endpoint: ConcreteEndpoint;
  contract: RequestContract;
  reads_body: boolean;
  /** Which sources the contract sees (RequestContract.from), read once here, not per request. */
  from_query: boolean;
  from_body: boolean;
  from_path: boolean;
  /** The allow-list of a Json.of(schema) response contract: undeclared fields never leak. */
  json_schema: { parse(value: unknown): unknown } | undefined;
};

function json_schema_of(contract: ConcreteEndpoint["response_contract"]): Compiled["json_schema"] {
  const classes = Array.isArray(contract) ? contract : [contract];
  for (const c of classes) if (c === Json || c.prototype instanceof Json) return (c as typeof Json).schema;
  return undefined;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `next` as handlers see it: always a promise, never a synchronous throw. */
function promised(step: Step, context: Context): Promise<Response> {
  try {
    return Promise.resolve(step(context));
  } catch (thrown) {
    return Promise.reject(thrown);
  }
}

/**
 * Precomposes a handler around the rest of the chain, once at start. A plain ErrorHandler
 * (handle not overridden) becomes a try/catch that stays synchronous when the rest is; a plain
 * LoggingHandler likewise (LoggingHandler.around).
 */
function link(handler: Handler, next: Step): Step {
  if (handler instanceof LoggingHandler && handler.handle === LoggingHandler.prototype.handle) return handler.around(next);
  if (handler instanceof ErrorHandler && handler.handle === ErrorHandler.prototype.handle) {
    return (context) => {
      try {
        const result = next(context);
        return result instanceof Promise ? result.catch((thrown) => handler.render(thrown, context)) : result;
      } catch (thrown) {
        return handler.render(thrown, context);
      }
    };
  }
  return (context) => handler.handle(context, () => promised(next, context));
}

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
  /** Largest accepted body in bytes (config.body_limit, default 1 MiB): 413 above. */
  readonly body_limit: number;
  private readonly body_rules: BodyRules;
  private readonly max_url_length: number;
  private readonly max_params: number;
  private readonly chain: Step;
  private readonly fallback = new ErrorHandler();
  private readonly precomputed: string[] = [];
  private readonly observed: boolean;

  constructor(
    readonly config: FwConfig,
    items: readonly Item[],
  ) {
    this.router = new Router<Compiled>({ path_cache_size: config.router?.path_cache_size ?? 1024 });
    this.services = { views: config.views, log: config.log ?? json_lines };
    this.max_url_length = config.max_url_length ?? 8192;
    this.max_params = config.max_params ?? 1000;
    this.body_limit = config.body_limit ?? 1024 * 1024;
    this.body_rules = { limit: this.body_limit, max_pairs: this.max_params };
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
    this.observed = handlers.some((handler) => handler.sees_every_request);
    let chain: Step = (context) => this.dispatch(context);
    for (let i = handlers.length - 1; i >= 0; i--) chain = link(handlers[i]!, chain);
    this.chain = chain;
  }

  private register(endpoint: ConcreteEndpoint): void {
    const name = endpoint.name || "anonymous endpoint";
    if (typeof endpoint.route !== "string") throw new Error(`${name} has no route: declare \`static route = "GET /path"\``);
    if (typeof endpoint.prototype.call !== "function") throw new Error(`${name} must implement call()`);
    const { methods, path } = parse_route(endpoint.route, name);
    const contract = endpoint.request_contract;
    const compiled: Compiled = {
      endpoint,
      contract,
      reads_body: contract.reads_body,
      from_query: contract.from.includes("query"),
      from_body: contract.from.includes("body"),
      from_path: contract.from.includes("path"),
      json_schema: json_schema_of(endpoint.response_contract),
    };
    for (const method of methods) this.router.add(method, path, compiled);
    if (endpoint.precomputed === true) {
      if (methods.length !== 1 || methods[0] !== "GET" || /[:*{(]/.test(path)) {
        throw new Error(`${name}: a precomputed endpoint has one GET route on a fixed path, got ${JSON.stringify(endpoint.route)}`);
      }
      this.precomputed.push(path);
    }
  }

  /**
   * The paths Bun may answer natively: those of precomputed endpoints, or none while a handler
   * in the chain must see every request (LoggingHandler, a metrics handler).
   */
  native_paths(): readonly string[] {
    return this.observed ? [] : this.precomputed;
  }

  /**
   * Each native path's answer to a bare GET, computed through the whole chain, so it carries
   * every header the handlers add; per-exchange headers (date, request id, cookies) are left
   * out. Only a 200 is frozen: a path whose answer is anything else stays with this app.
   * Bun answers HEAD and If-None-Match (304 against the frozen ETag) from it by itself.
   */
  async native_routes(): Promise<Map<string, NativeAnswer>> {
    const answers = new Map<string, NativeAnswer>();
    for (const path of this.native_paths()) {
      const response = await this.answer(new Request(`http://localhost${path}`));
      if (response.status !== 200) continue;
      const headers = [...response.headers].filter(([name]) => !PER_EXCHANGE_HEADERS.includes(name));
      answers.set(path, { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) });
    }
    return answers;
  }

  routes(): { method: Method; path: string }[] {
    return this.router.routes();
  }

  /** Handles one request (also usable in-process, without a server). */
  fetch = async (raw: Request, server?: AddressLookup): Promise<Response> => this.answer(raw, server);

  /** What the server adapter calls (runtime/serve.ts): like fetch, but answers without a promise when nothing waited. */
  readonly answer = (raw: Request, server?: AddressLookup): Response | Promise<Response> => {
    const url = raw.url;
    const start = url.indexOf("/", url.indexOf("//") + 2);
    const query_at = url.indexOf("?", start);
    const path = start === -1 ? "/" : query_at === -1 ? url.slice(start) : url.slice(start, query_at);
    const method = raw.method;
    const context = new Exchange(new Incoming(method, path, url, raw, server, this.body_rules), this.services);
    let response: Response | Promise<Response>;
    try {
      response = this.chain(context);
    } catch (thrown) {
      response = this.fallback.render(thrown, context);
    }
    if (response instanceof Promise) {
      return response.then(
        (done) => without_body_for_head(method, done),
        (thrown) => without_body_for_head(method, this.fallback.render(thrown, context)),
      );
    }
    return without_body_for_head(method, response);
  };

  private dispatch(context: Context): Response | Promise<Response> {
    const { method, path, url } = context.request;
    // Checked here, inside the handler chain, so a 414 gets what every answer gets (security
    // headers, request id, log line, the app's error shape).
    if (url.length > this.max_url_length) throw new URITooLong(`URL longer than ${this.max_url_length} characters`);
    const found = this.router.find(method, path);
    if (found.kind !== "found") {
      if (found.kind === "method_not_allowed") throw new MethodNotAllowed(method, found.allowed);
      if (found.kind === "bad_request") throw new BadRequest(found.message);
      throw new NotFound(path);
    }
    context.route = found.route;
    context.route_params = found.params;
    const compiled = found.handler;
    // The one parse of the query string (Exchange keeps it; a handler may have asked first).
    const query = context.query;
    const params = context.params;
    if (query !== NO_PAIRS) first_values(query, params);
    for (const key in found.params) params[key] = found.params[key]!;

    const instance = new compiled.endpoint() as Instance;
    instance.context = context;
    instance.params = params;
    instance.request = context.request;
    instance.response = context.response;
    if (!compiled.reads_body) {
      instance[compiled.contract.property] = {};
      return this.call(compiled, instance, context);
    }
    if (BODY_METHODS.has(method)) return this.call_with_body(compiled, instance, context, query, found.params);
    // No body to wait for: validate without an await.
    this.validate(compiled, instance, input_of(compiled, query, undefined, found.params));
    return this.call(compiled, instance, context);
  }

  private async call_with_body(compiled: Compiled, instance: Instance, context: Context, query: Readonly<Query>, route_params: Params): Promise<Response> {
    // Read even when the contract does not see it: the same 400/413/415 rules for every body,
    // and request.body is there for the endpoint.
    const body = await context.request.parsed();
    this.validate(compiled, instance, input_of(compiled, query, body, route_params));
    return this.call(compiled, instance, context);
  }

  private validate(compiled: Compiled, instance: Instance, input: Record<string, unknown>): void {
    const contract = compiled.contract;
    const parsed = contract.schema.safeParse(input);
    if (!parsed.success) throw contract.on_invalid(issues_of(parsed.error));
    instance[contract.property] = parsed.data;
  }

  private call(compiled: Compiled, instance: Instance, context: Context): Response | Promise<Response> {
    const result: unknown = instance.call();
    if (result instanceof Promise) return result.then((value: unknown) => this.send(compiled, value, context));
    return this.send(compiled, result, context);
  }

  private send(compiled: Compiled, result: unknown, context: Context): Response | Promise<Response> {
    const schema = compiled.json_schema;
    if (schema !== undefined && result instanceof Json) result = new Json(schema.parse(result.value), result.status);
    if (is_sendable(result)) return result.to_response(context);
    if (typeof result === "object" && result !== null && typeof (result as Rendered).render === "function") return render_custom(context, result as Rendered);
    throw new Error(`${compiled.endpoint.name}.call() returned something that is not a response`);
  }
}

/**
 * What the contract validates: the sources it declares, merged query, then body, then path (a
 * later source wins a field both carry); an undeclared source is left out, not merely outranked.
 */
function input_of(compiled: Compiled, query: Readonly<Query>, body: Record<string, unknown> | undefined, route_params: Params): Record<string, unknown> {
  return Object.assign(Object.create(null), compiled.from_query ? query : undefined, compiled.from_body ? body : undefined, compiled.from_path ? route_params : undefined);
}

// The contract value is set under a name known only at run time (the snake_case of the contract).
type Instance = InstanceType<ConcreteEndpoint> & Record<string, unknown>;

function without_body_for_head(method: string, response: Response): Response {
  if (method === "HEAD" && response.body !== null) return new Response(null, { status: response.status, headers: response.headers });
  return response;
}

function describe(item: unknown): string {
  if (typeof item === "function") return item.name || "an anonymous class";
  return String(item);
}

export function build(config: FwConfig, items: readonly Item[]): App {
  return new App(config, items);
}
