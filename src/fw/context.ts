// What a request carries through the handler chain and into an endpoint.

export type Params = Record<string, string>;

/** A parsed query string or form: a repeated key holds every value, in order. */
export type Query = Record<string, string | string[]>;

/**
 * What the framework needs of the server that received a request: the client's address.
 * The server adapters pass it: Bun's server itself (runtime/serve_bun.ts), or one lookup per
 * request over Deno's connection info (runtime/serve_deno.ts).
 */
export interface AddressLookup {
  requestIP(request: Request): { address: string } | null;
}

export interface RequestInfo {
  readonly method: string;
  /** Path without the query string, as received (not decoded). */
  readonly path: string;
  /** The full URL string. */
  readonly url: string;
  /** Parsed body: an object for JSON/form bodies, undefined when there is none (set once read). */
  body: unknown;
  /**
   * Reads and parses the body once, by the rules dispatch uses (JSON object or form; 413 over the
   * app's body_limit, 415 for another type, 400 when malformed). A handler may call it before the
   * endpoint: dispatch reuses the same result (or the same error) instead of reading twice.
   */
  parsed(): Promise<Record<string, unknown> | undefined>;
  /** Client address as seen by the server socket. */
  readonly ip: string;
  /** The underlying web-standard Request. */
  readonly raw: Request;
}

export interface ResponseState {
  headers: Headers;
  status: number;
}

/** What the app's template engine offers the chain (views.ts ViewEngine implements it). */
export interface Views {
  has(name: string): boolean;
  render(name: string, values?: Record<string, unknown>): string;
}

export interface AppServices {
  readonly views: Views | undefined;
  readonly log: (line: Record<string, unknown>) => void;
}

export interface Context {
  readonly request: RequestInfo;
  readonly response: ResponseState;
  readonly headers: Headers;
  /** Route parameters and query parameters (first value of each), string to string. */
  params: Params;
  /**
   * The query string alone (RFC 3986 §3.4), parsed once on first use: a repeated key is an
   * array, no query is an empty object (shared and frozen: never write to it). Kept apart
   * from the body so an endpoint can refuse what must not travel in a URL (RFC 6749 §2.3.1).
   */
  readonly query: Readonly<Query>;
  /** The matched route's parameters alone (percent-decoded), empty until routing has happened. */
  route_params: Params;
  /** The pattern of the matched route, e.g. "/users/:id", once routing has happened. */
  route: string | undefined;
  readonly app: AppServices;
  /** Per-request values set by handlers (request_id, user, ...). */
  readonly state: Record<string, unknown>;
}
