// Routing answers and the error body shape, over real HTTP.
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { Fw, type HttpError } from "../../src/fw/index.ts";
import { serve } from "./helpers.ts";

class Thing extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /things/:id";
  call() {
    if (this.params.id === "boom") throw new Error("database password is hunter2");
    if (this.params.id === "busy") throw new Fw.TooManyRequests("Slow down", 7);
    if (this.params.id === "nope") throw new Fw.Forbidden("Not yours");
    return this.json({ id: this.params.id });
  }
}
class PutThing extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
  static route = "PUT /things/:id";
  call() {
    return new Fw.Response.Empty();
  }
}

const app = serve([Fw.RequestIdHandler, Fw.ErrorHandler, Thing, PutThing]);
afterAll(() => app.stop());

describe("routing answers", () => {
  test("no route answers 404 {error, path}", async () => {
    const res = await app.get("/nothing/here?x=1");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error).toBe("not_found");
    expect(body.path).toBe("/nothing/here");
    expect(typeof body.message).toBe("string");
  });

  test("405 lists HEAD when GET exists, with Allow and {error, allowed}", async () => {
    const res = await app.get("/things/1", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, PUT");
    const body = await res.json();
    expect(body.error).toBe("method_not_allowed");
    expect(body.allowed).toEqual(["GET", "HEAD", "PUT"]);
  });

  test("a method that exists for no route answers 404, not 405 with an empty Allow", async () => {
    const res = await app.get("/nothing", { method: "PATCH" });
    expect(res.status).toBe(404);
  });

  test("HEAD is answered for every GET route, without a body", async () => {
    const res = await app.get("/things/1", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.text()).toBe("");
  });

  test("a malformed percent-encoding in a parameter answers 400", async () => {
    const res = await app.get("/things/%E0%A4%A");
    expect(res.status).toBe(400);
  });

  test("%2F stays inside a parameter, decoded once", async () => {
    expect(await (await app.get("/things/a%2Fb")).json()).toEqual({ id: "a/b" });
    expect(await (await app.get("/things/a%252Fb")).json()).toEqual({ id: "a%2Fb" });
  });

  test("a URL over the limit answers 414", async () => {
    const res = await app.get(`/things/${"x".repeat(9000)}`);
    expect(res.status).toBe(414);
  });
});

describe("errors", () => {
  test("typed errors carry their status and message", async () => {
    const res = await app.get("/things/nope");
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "forbidden", message: "Not yours" });
  });

  test("TooManyRequests carries Retry-After", async () => {
    const res = await app.get("/things/busy");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
  });

  test("an unexpected exception answers a generic 500; the stack goes to the log with the request id", async () => {
    const res = await app.get("/things/boom", { headers: { "x-request-id": "req-123" } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toEqual({ error: "internal_server_error", message: "Internal server error" });
    const line = app.logs.find((l) => l.level === "error");
    expect(line?.request_id).toBe("req-123");
    expect(String(line?.error)).toContain("hunter2");
  });

  test("errors are negotiated: HTML for text/html, text for text/plain", async () => {
    const html = await app.get("/missing", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await html.text()).toContain("404");
    const text = await app.get("/missing", { headers: { accept: "text/plain" } });
    expect(await text.text()).toStartWith("404 ");
    const other = await app.get("/missing", { headers: { accept: "image/png" } });
    expect(other.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  test("HTML error pages escape the message", async () => {
    const res = await app.get("/<script>", { headers: { accept: "text/html" } });
    expect(await res.text()).not.toContain("<script>");
  });

  test("every error class has its status", () => {
    const cases: [HttpError, number][] = [
      [new Fw.BadRequest("x"), 400],
      [new Fw.Unauthorized("x"), 401],
      [new Fw.Forbidden("x"), 403],
      [new Fw.NotFound("/p"), 404],
      [new Fw.MethodNotAllowed("POST", ["GET"]), 405],
      [new Fw.Conflict("x"), 409],
      [new Fw.UnprocessableEntity([{ field: "a", message: "b" }]), 422],
      [new Fw.TooManyRequests(), 429],
      [new Fw.InternalServerError("x"), 500],
      [new Fw.ServiceUnavailable("x"), 503],
      [new Fw.HttpError("x"), 500],
    ];
    for (const [error, status] of cases) expect(error.status).toBe(status);
    expect(new Fw.NotFound("/p").body()).toMatchObject({ path: "/p" });
  });

  test("an error needs a message", () => {
    expect(() => new Fw.HttpError("")).toThrow(TypeError);
  });
});

describe("request ids", () => {
  test("a safe incoming X-Request-Id is echoed; an unsafe one is replaced", async () => {
    expect((await app.get("/things/1", { headers: { "x-request-id": "abc-1" } })).headers.get("x-request-id")).toBe("abc-1");
    const replaced = (await app.get("/things/1", { headers: { "x-request-id": "bad id with spaces and {braces}" } })).headers.get("x-request-id");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });
});
