// One request as it goes through the chain: the request endpoints see (Incoming) and its
// context (Exchange). Made by App.answer for every request.
import type { Server } from "bun";
import { read_body } from "./body.ts";
import type { AppServices, Context, Params, RequestInfo } from "./context.ts";
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
    private readonly server: Server<unknown> | undefined,
    private readonly rules: BodyRules,
  ) {}
  get ip(): string {
    return (this.address ??= this.server?.requestIP(this.raw)?.address ?? "");
  }
  parsed(): Promise<Record<string, unknown> | undefined> {
    return (this.reading ??= read_body(this.raw, this.rules.limit, this.rules.max_pairs).then((body) => (this.body = body)));
  }
}

/** One request's context. Request headers and `state` are made on first use. */
export class Exchange implements Context {
  readonly response = new PendingResponse();
  params: Params = Object.create(null);
  route: string | undefined = undefined;
  private values: Record<string, unknown> | undefined = undefined;
  constructor(readonly request: Incoming, readonly app: AppServices) {}
  get headers(): Headers {
    return this.request.raw.headers;
  }
  get state(): Record<string, unknown> {
    return (this.values ??= Object.create(null));
  }
}
