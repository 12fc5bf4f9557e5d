// Where input comes from: the query string, the body and the route parameters are kept apart
// (this.query, this.request.body, this.route_params; context.query, context.route_params), and a
// request contract may declare which of them it reads (`from`). Through real HTTP.
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { z } from "zod";
import { Fw, type Context, type Next } from "../../src/fw/index.ts";
import { serve } from "./helpers.ts";

const form = (fields: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

// Default `from`: all three sources, merged query, then body, then path.
const MergedRequest = Fw.Request("MergedRequest", z.object({ x: z.string(), id: z.string() }));
class Merged extends Fw.Endpoint(MergedRequest, Fw.Response.Json) {
  static route = "POST /merged/:id";
  call() {
    return this.json({ contract: this.merged_request, query: this.query, body: this.request.body, route_params: this.route_params, params: this.params });
  }
}

// RFC 6749 §2.3.1: client credentials never in the URL. The contract reads the body only.
const TokenRequest = Fw.Request("TokenRequest", z.object({ grant_type: z.string(), client_secret: z.string().optional() }), { from: ["body"] });
class Token extends Fw.Endpoint(TokenRequest, Fw.Response.Json) {
  static route = "POST /token/:grant_type";
  call() {
    if (this.query.client_secret !== undefined) throw new Fw.BadRequest("client_secret is not accepted in the query string");
    return this.json({ contract: this.token_request });
  }
}

const SearchRequest = Fw.Request("SearchRequest", z.object({ q: z.string().optional() }), { from: ["query"] });
class Search extends Fw.Endpoint(SearchRequest, Fw.Response.Json) {
  static route = "GET|POST /search";
  call() {
    return this.json({ contract: this.search_request, body: this.request.body ?? null });
  }
}

const NoPathRequest = Fw.Request("NoPathRequest", z.object({ id: z.string().optional() }), { from: ["query", "body"] });
class NoPath extends Fw.Endpoint(NoPathRequest, Fw.Response.Json) {
  static route = "GET /items/:id";
  call() {
    return this.json({ contract: this.no_path_request, route_params: this.route_params, params: this.params });
  }
}

const PathOnlyRequest = Fw.Request("PathOnlyRequest", z.object({ id: z.string(), extra: z.string().optional() }), { from: ["path"] });
class PathOnly extends Fw.Endpoint(PathOnlyRequest, Fw.Response.Json) {
  static route = "GET|POST /things/:id";
  call() {
    return this.json({ contract: this.path_only_request });
  }
}

class Echo extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /echo";
  call() {
    return this.json({
      query: this.query,
      params: this.params,
      null_prototype: Object.getPrototypeOf(this.query) === null,
      same_as_handler: this.query === this.context.state.query_before,
      ip: this.request.ip,
    });
  }
}

/** Records what the context holds before and after the endpoint runs. */
class Peek extends Fw.Handler {
  async handle(context: Context, next: Next): Promise<Response> {
    context.state.query_before = context.query;
    const before = { query: { ...context.query }, route_params: { ...context.route_params } };
    const res = await next();
    res.headers.set("x-before", JSON.stringify(before));
    res.headers.set("x-after", JSON.stringify({ query: context.query, route_params: context.route_params }));
    return res;
  }
}

const app = serve([Fw.ErrorHandler, Peek, Merged, Token, Search, NoPath, PathOnly, Echo], { max_params: 3 });
afterAll(() => app.stop());

describe("query, body and route parameters are kept apart", () => {
  test("a field of one name in the query and the body: this.query and this.request.body tell them apart", async () => {
    const res = await app.get("/merged/7?x=from-query&id=from-query", form({ x: "from-body" }));
    expect(res.status).toBe(200);
    const seen = await res.json();
    expect(seen.query).toEqual({ x: "from-query", id: "from-query" });
    expect(seen.body).toEqual({ x: "from-body" });
    expect(seen.route_params).toEqual({ id: "7" });
  });

  test("default contract: query, then body, then path, as before; params stay route + first query values", async () => {
    const res = await app.get("/merged/7?x=from-query&id=from-query", form({ x: "from-body", id: "from-body" }));
    const seen = await res.json();
    expect(seen.contract).toEqual({ x: "from-body", id: "7" });
    expect(seen.params).toEqual({ x: "from-query", id: "7" });
    const only_query = await (await app.get("/merged/8?x=q", { method: "POST" })).json();
    expect(only_query.contract).toEqual({ x: "q", id: "8" });
  });

  test("repeated query keys arrive as arrays in query; params keeps the first value", async () => {
    const seen = await (await app.get("/echo?a=1&a=2&b=3")).json();
    expect(seen.query).toEqual({ a: ["1", "2"], b: "3" });
    expect(seen.params).toEqual({ a: "1", b: "3" });
    expect(seen.null_prototype).toBe(true);
  });

  test("no query string, or an empty one, is an empty null-prototype query", async () => {
    for (const path of ["/echo", "/echo?"]) {
      const seen = await (await app.get(path)).json();
      expect(seen.query).toEqual({});
      expect(seen.null_prototype).toBe(true);
    }
  });

  test("handlers see context.query (parsed once: the same object the endpoint gets) and context.route_params once routed", async () => {
    const echo = await app.get("/echo?a=1");
    expect((await echo.json()).same_as_handler).toBe(true);
    const res = await app.get("/merged/9?x=1", { method: "POST" });
    expect(JSON.parse(res.headers.get("x-before")!)).toEqual({ query: { x: "1" }, route_params: {} });
    expect(JSON.parse(res.headers.get("x-after")!)).toEqual({ query: { x: "1" }, route_params: { id: "9" } });
  });

  test("more query parameters than max_params answer 400, even when a handler reads context.query first", async () => {
    const res = await app.get("/echo?a=1&b=2&c=3&d=4");
    expect(res.status).toBe(400);
  });

  test("request.ip is the client address the server saw", async () => {
    const seen = await (await app.get("/echo")).json();
    expect(seen.ip).toBe("127.0.0.1");
  });
});

describe("a contract's `from`", () => {
  test('from: ["body"]: a client_secret in the URL is only in this.query, where the endpoint can refuse it', async () => {
    const res = await app.get("/token/x?client_secret=s3cret", form({ grant_type: "client_credentials" }));
    expect(res.status).toBe(400);
    const body = await app.get("/token/x", form({ grant_type: "client_credentials", client_secret: "s3cret" }));
    expect((await body.json()).contract).toEqual({ grant_type: "client_credentials", client_secret: "s3cret" });
  });

  test('from: ["body"] validates the body alone: a required field only in the query or path is missing', async () => {
    const res = await app.get("/token/from-path?grant_type=from-query", { method: "POST" });
    expect(res.status).toBe(422);
    expect((await res.json()).errors).toEqual([expect.objectContaining({ field: "grant_type" })]);
  });

  test('from: ["query"] ignores the body, which is still read and on request.body', async () => {
    const res = await app.get("/search?q=from-query", form({ q: "from-body" }));
    expect(await res.json()).toEqual({ contract: { q: "from-query" }, body: { q: "from-body" } });
    const body_only = await (await app.get("/search", form({ q: "from-body" }))).json();
    expect(body_only).toEqual({ contract: {}, body: { q: "from-body" } });
  });

  test('a source left out still has its own rules: from: ["query"] refuses a malformed JSON body (400)', async () => {
    const res = await app.get("/search", { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(res.status).toBe(400);
  });

  test('route parameters reach the contract only with "path"', async () => {
    const without = await (await app.get("/items/5?other=1")).json();
    expect(without.contract).toEqual({});
    expect(without.route_params).toEqual({ id: "5" });
    expect(without.params.id).toBe("5");
    const with_query = await (await app.get("/items/5?id=from-query")).json();
    expect(with_query.contract).toEqual({ id: "from-query" });
    const path_only = await (await app.get("/things/5?id=q&extra=q", form({ id: "b", extra: "b" }))).json();
    expect(path_only.contract).toEqual({ id: "5" });
  });

  test("from is checked when the contract is declared", () => {
    const schema = z.object({});
    expect(() => Fw.Request("Empty", schema, { from: [] as never })).toThrow(TypeError);
    expect(() => Fw.Request("Empty", schema, { from: [] as never })).toThrow(/`from` must be a non-empty list of "query", "body", "path"/);
    expect(() => Fw.Request("Header", schema, { from: ["body", "header"] as never })).toThrow(/Header: unknown source "header" in `from`/);
    expect(() => Fw.Request("Str", schema, { from: "body" as never })).toThrow(TypeError);
  });

  test("from is kept in merge order whatever order it is given in; the default and EmptyRequest have all three", () => {
    const schema = z.object({});
    expect(Fw.Request("Either", schema, { from: ["path", "body", "path"] }).from).toEqual(["body", "path"]);
    expect(Fw.Request("All", schema).from).toEqual(["query", "body", "path"]);
    expect(Fw.EmptyRequest.from).toEqual(["query", "body", "path"]);
  });
});
