// One request as it goes through the chain: the request endpoints see (Incoming) and its
// context (Exchange). Made by App.answer for every request.
import { query_of, read_body } from "./body.ts";
import type { AddressLookup, AppServices, Context, Params, Query, RequestInfo } from "./context.ts";
import { PendingResponse } from "./response.ts";

/** The app's body rules, shared by every request. */
export type BodyRules = { readonly limit: number; readonly max_pairs: number };

/** The request as endpoints see it. The client address is asked of the server on first use. */
export class Incoming implements RequestInfo {
  body: unknown = undefined;
  private address: string | undefined = undefined;
  private reading: Promise<Record<string, unknown> | undefined> | undefined = undefined;
  constructor(
    readonly method: string,
    readonly path: string,
    readonly url: string,
    readonly raw: Request,
    private readonly server: AddressLookup | undefined,
    readonly rules: BodyRules,
  ) {}
  get ip(): string {
    return (this.address ??= this.server?.requestIP(this.raw)?.address ?? "");
  }
  parsed(): Promise<Record<string, unknown> | undefined> {
    return (this.reading ??= read_body(this.raw, this.rules.limit, this.rules.max_pairs).then((body) => (this.body = body)));
  }
}

/** Route parameters before routing: shared and frozen, so a request allocates nothing for them. */
const NO_ROUTE_PARAMS: Params = Object.freeze(Object.create(null));

/** One request's context. Request headers, `query` and `state` are made on first use. */
export class Exchange implements Context {
  readonly response = new PendingResponse();
  params: Params = Object.create(null);
  route: string | undefined = undefined;
  route_params: Params = NO_ROUTE_PARAMS;
  private values: Record<string, unknown> | undefined = undefined;
  private parsed_query: Query | undefined = undefined;
  constructor(
    readonly request: Incoming,
    readonly app: AppServices,
  ) {}
  /** Parsed once, whoever asks first (a handler or dispatch); over max_params it throws 400 each time. */
  get query(): Readonly<Query> {
    return (this.parsed_query ??= query_of(this.request.url, this.request.rules.max_pairs));
  }
  get headers(): Headers {
    return this.request.raw.headers;
  }
  get state(): Record<string, unknown> {
    return (this.values ??= Object.create(null));
  }
}
