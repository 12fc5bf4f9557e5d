// What a request carries through the handler chain and into an endpoint.
import type { ViewEngine } from "./views.ts";

export type Params = Record<string, string>;

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

export interface AppServices {
  readonly views: ViewEngine | undefined;
  readonly log: (line: Record<string, unknown>) => void;
}

export interface Context {
  readonly request: RequestInfo;
  readonly response: ResponseState;
  readonly headers: Headers;
  /** Route parameters and query parameters (first value of each), string to string. */
  params: Params;
  /** The pattern of the matched route, e.g. "/users/:id", once routing has happened. */
  route: string | undefined;
  readonly app: AppServices;
  /** Per-request values set by handlers (request_id, user, ...). */
  readonly state: Record<string, unknown>;
}
