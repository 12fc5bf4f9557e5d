// Fw.Endpoint(RequestType, ResponseType): the base class of an endpoint.
//
//   const Hello = Fw.Request("HelloRequest", z.object({ name: z.string() }));
//   export class SayHello extends Fw.Endpoint(Hello, Fw.Response.Json) {
//     static route = "GET /hello/:name";
//     call() { return this.json({ hello: this.hello_request.name }); }
//   }
import type { z } from "zod";
import type { Context, Params, Query, RequestInfo, ResponseState } from "./context.ts";
import type { CookieOptions, CookieReader } from "./cookies.ts";
import { negotiate, type Representation } from "./negotiate.ts";
import type { RequestContract } from "./request.ts";
import { read_cookies, serialize_cookie } from "./runtime/cookies.ts";
import { FileDownload, Html, Json, Redirect, Stream, Text, type Rendered, type ResponseClass, type Sendable, type StreamSource } from "./response.ts";

export type ResponseContract = ResponseClass | readonly ResponseClass[];

/** The instance type(s) a response contract allows call() to return. */
export type ResponseOf<R> = R extends readonly (infer C)[]
  ? C extends abstract new (
      ...args: never[]
    ) => infer I
    ? I
    : never
  : R extends abstract new (
        ...args: never[]
      ) => infer I
    ? I
    : never;

/** Valid HTTP status codes for status(): 100-599. */
function valid_status(code: number): boolean {
  return Number.isInteger(code) && code >= 100 && code <= 599;
}

export abstract class EndpointBase<Res extends ResponseContract = ResponseContract> {
  /** Request and response of this exchange. */
  declare context: Context;
  /** Route + query parameters, string to string. */
  declare params: Params;
  /** The query string alone (repeated keys as arrays); the body alone is `request.body`. */
  get query(): Readonly<Query> {
    return this.context.query;
  }
  /** The matched route's parameters alone. */
  get route_params(): Params {
    return this.context.route_params;
  }
  /** Request headers (case-insensitive); read on first use, as Bun builds them on demand. */
  get headers(): Headers {
    return this.context.headers;
  }
  declare request: RequestInfo;
  declare response: ResponseState;

  /** The endpoint's work. Input is already validated when it runs. */
  abstract call(): ResponseOf<Res> | Promise<ResponseOf<Res>>;

  /** Sets the response status; only integers 100-599. */
  status(code: number): this {
    if (!valid_status(code)) throw new RangeError(`Invalid HTTP status: ${code}`);
    this.response.status = code;
    return this;
  }

  json<T>(value: T, status?: number): Json<T> {
    return new Json(value, status);
  }
  text(value: string, status?: number): Text {
    return new Text(value, status);
  }
  html(value: string, status?: number): Html {
    return new Html(value, status);
  }
  /** 302 by default; 301 for permanent, 303 after a POST. */
  redirect_to(url: string, status = 302): Redirect {
    return new Redirect(url, status);
  }
  stream(source: StreamSource, content_type?: string): Stream {
    return new Stream(source, content_type);
  }
  /** Sends `path` (relative to `root`, never outside it) as an attachment. */
  download(root: string, path: string, filename?: string): FileDownload {
    return new FileDownload(root, path, filename);
  }
  /** The representation the client asked for with the first media type of Accept. */
  accepts(): Representation {
    return negotiate(this.headers.get("accept"));
  }

  private _cookies: CookieReader | undefined;
  /** Request cookies, parsed on first use. */
  get cookies(): CookieReader {
    return (this._cookies ??= read_cookies(this.headers.get("cookie")));
  }
  /** Appends a Set-Cookie; Path=/, HttpOnly and SameSite=Lax unless `options` says otherwise. */
  set_cookie(name: string, value: string, options: CookieOptions = {}): void {
    this.response.headers.append("set-cookie", serialize_cookie(name, value, { path: "/", httpOnly: true, sameSite: "lax", ...options }));
  }
}

type ContractValue<Req extends RequestContract> = { readonly [K in Req["property"]]: z.output<Req["schema"]> };

export type EndpointClass<Req extends RequestContract = RequestContract, Res extends ResponseContract = ResponseContract> = {
  readonly request_contract: Req;
  readonly response_contract: Res;
} & (abstract new () => EndpointBase<Res> & ContractValue<Req>);

/** Any class made by Fw.Endpoint (used by mixins such as Renderable). */
// biome-ignore lint: a mixin base must take `any[]` (TypeScript's mixin rule).
export type AnyEndpointClass = abstract new (...args: any[]) => EndpointBase;

/** Concrete endpoint class as registered: has a route and implements call(). */
export type ConcreteEndpoint = {
  readonly request_contract: RequestContract;
  readonly response_contract: ResponseContract;
  readonly route?: string;
  /**
   * True when the endpoint's answer to a GET depends on nothing in the request but its
   * conditional headers (If-None-Match): the app may compute it once through the whole chain
   * and let Bun answer it natively (app.ts `native_routes`, runtime/serve_bun.ts `refresh_native`).
   */
  readonly precomputed?: boolean;
  readonly name: string;
  new (): EndpointBase;
};

export function Endpoint<Req extends RequestContract, const Res extends ResponseContract>(request: Req, response: Res): EndpointClass<Req, Res> {
  abstract class Base extends EndpointBase<Res> {
    static readonly request_contract = request;
    static readonly response_contract = response;
  }
  return Base as unknown as EndpointClass<Req, Res>;
}

export function is_endpoint_class(value: unknown): value is ConcreteEndpoint {
  return typeof value === "function" && "request_contract" in value && "response_contract" in value;
}

export type Returned = Sendable | Rendered;
