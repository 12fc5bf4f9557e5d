import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { z } from "zod";
import { Fw, type Context, type Next } from "../../src/fw/index.ts";
import { serve } from "./helpers.ts";
import { setTimeout as sleep } from "node:timers/promises";

const CreateUserRequest = Fw.Request("CreateUserRequest", z.object({ name: z.string().min(2), age: z.coerce.number().int().optional() }));

class CreateUser extends Fw.Endpoint(CreateUserRequest, Fw.Response.Json) {
  static route = "POST /users";
  call() {
    return this.json({ created: this.create_user_request.name, age: this.create_user_request.age ?? null }, 201);
  }
}

class ShowUser extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /users/:id";
  call() {
    return this.json({ id: this.params.id, q: this.params.q ?? "absent", method: this.request.method, path: this.request.path, ua: this.headers.get("X-TEST") });
  }
}

class Files extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /files/*";
  call() {
    return this.json({ rest: this.params["*"] });
  }
}

class Greeting extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Text) {
  static route = "GET /text";
  call() {
    this.response.headers.set("x-extra", "1");
    return this.text("hello");
  }
}

class Page extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Html) {
  static route = "GET /page";
  async call() {
    await sleep(1);
    return this.html("<p>hi</p>");
  }
}

class Gone extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
  static route = "DELETE /users/:id";
  call() {
    return new Fw.Response.Empty();
  }
}

class Moved extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Redirect) {
  static route = "GET /old";
  call() {
    return this.params.permanent ? this.redirect_to("/new", 301) : this.redirect_to("/new");
  }
}

class Csv {
  readonly content_type = "text/csv; charset=utf-8";
  constructor(private readonly rows: string[][]) {}
  render(): string {
    return this.rows.map((r) => r.join(",")).join("\n");
  }
}

class Report extends Fw.Endpoint(Fw.EmptyRequest, Csv) {
  static route = "GET /report";
  call() {
    return new Csv([
      ["a", "b"],
      ["1", "2"],
    ]);
  }
}

class Teapot extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /status/:code";
  call() {
    this.status(Number(this.params.code));
    return this.json({ ok: true });
  }
}

const Strict = Fw.Response.Json.of(z.object({ id: z.string() }));
class Leaky extends Fw.Endpoint(Fw.EmptyRequest, Strict) {
  static route = "GET /leaky";
  call() {
    return this.json({ id: "u1", password_hash: "secret" });
  }
}

const app = serve([Fw.ErrorHandler, CreateUser, ShowUser, Files, Greeting, Page, Gone, Moved, Report, Teapot, Leaky], { body_limit: 2048 });
afterAll(() => app.stop());

const post = (path: string, body: BodyInit, type?: string) => app.get(path, { method: "POST", body, headers: type ? { "content-type": type } : {} });

describe("request contracts", () => {
  test("JSON body is validated and exposed as the snake_case of the contract name", async () => {
    const res = await post("/users", JSON.stringify({ name: "Ada", age: 36 }), "application/json");
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ created: "Ada", age: 36 });
  });

  test("form body is validated the same way", async () => {
    const res = await post("/users", "name=Grace&age=85", "application/x-www-form-urlencoded");
    expect(await res.json()).toEqual({ created: "Grace", age: 85 });
  });

  test("query parameters are part of the input", async () => {
    const res = await app.get("/users?name=Alan", { method: "POST" });
    expect(await res.json()).toEqual({ created: "Alan", age: null });
  });

  test("invalid input answers 422 with field/message entries, before call", async () => {
    const res = await post("/users", JSON.stringify({ name: "A", age: "x" }), "application/json");
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error).toBe("unprocessable_entity");
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["age", "name"]);
    for (const entry of body.errors) expect(typeof entry.message).toBe("string");
  });

  test("a repeated key is rejected, not silently collapsed", async () => {
    const res = await post("/users", "name=Ada&name=Eve", "application/x-www-form-urlencoded");
    expect(res.status).toBe(422);
    expect((await res.json()).errors[0].field).toBe("name");
  });

  test("unsupported content type answers 415", async () => {
    const res = await post("/users", "<user/>", "application/xml");
    expect(res.status).toBe(415);
  });

  test("a body without content type answers 415", async () => {
    const res = await app.get("/users", { method: "POST", body: new Blob(["name=x"]) });
    expect(res.status).toBe(415);
  });

  test("malformed JSON answers 400", async () => {
    const res = await post("/users", "{not json", "application/json");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("bad_request");
  });

  test("a JSON body that is not an object answers 400", async () => {
    expect((await post("/users", "[1,2]", "application/json")).status).toBe(400);
  });

  test("invalid UTF-8 in a body answers 400", async () => {
    const res = await post("/users", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "application/json");
    expect(res.status).toBe(400);
  });

  test("a body over the limit answers 413", async () => {
    const res = await post("/users", JSON.stringify({ name: "x".repeat(5000) }), "application/json");
    expect(res.status).toBe(413);
  });
});

describe("context.request.parsed()", () => {
  /** Reads the body before the endpoint, as a rate limiter does, and records what it saw. */
  class Peek extends Fw.Handler {
    seen: unknown[] = [];
    async handle(context: Context, next: Next): Promise<Response> {
      try {
        this.seen.push(await context.request.parsed());
      } catch (error) {
        this.seen.push((error as { status?: number }).status);
      }
      return next();
    }
  }
  const peek = new Peek();
  const peeked = serve([Fw.ErrorHandler, peek, CreateUser], { body_limit: 2048 });
  afterAll(() => peeked.stop());
  const send = (body: BodyInit, type: string) => peeked.get("/users", { method: "POST", body, headers: { "content-type": type } });

  test("a handler and the endpoint share one read of the body", async () => {
    peek.seen = [];
    const res = await send("name=Grace&age=85", "application/x-www-form-urlencoded");
    expect(await res.json()).toEqual({ created: "Grace", age: 85 });
    expect(peek.seen).toEqual([{ name: "Grace", age: "85" }]);
  });

  test("a chunked body is read once too", async () => {
    const res = await send(new Blob(["name=Ada"]).stream() as unknown as BodyInit, "application/x-www-form-urlencoded");
    expect(await res.json()).toEqual({ created: "Ada", age: null });
  });

  test("the body rules are dispatch's: the handler sees the 413 and the endpoint answers it", async () => {
    peek.seen = [];
    const res = await send(JSON.stringify({ name: "x".repeat(3000) }), "application/json");
    expect(res.status).toBe(413);
    expect(peek.seen).toEqual([413]);
  });
});

describe("inside call", () => {
  test("params hold route and query parameters; a missing query parameter is absent", async () => {
    const a = await (await app.get("/users/42?q=yes", { headers: { "x-test": "case-insensitive" } })).json();
    expect(a).toEqual({ id: "42", q: "yes", method: "GET", path: "/users/42", ua: "case-insensitive" });
    const b = await (await app.get("/users/42")).json();
    expect(b.q).toBe("absent");
  });

  test("a route parameter wins over a query parameter of the same name", async () => {
    const a = await (await app.get("/users/42?id=evil")).json();
    expect(a.id).toBe("42");
  });

  test("the wildcard holds the rest of the path", async () => {
    expect(await (await app.get("/files/a/b/c.txt")).json()).toEqual({ rest: "a/b/c.txt" });
  });

  test("response headers set in call are sent", async () => {
    const res = await app.get("/text");
    expect(res.headers.get("x-extra")).toBe("1");
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("hello");
  });

  test("status(code) sets the status and accepts only valid HTTP statuses", async () => {
    expect((await app.get("/status/418")).status).toBe(418);
    const bad = await app.get("/status/1000");
    expect(bad.status).toBe(500);
    expect((await bad.json()).message).toBe("Internal server error");
  });
});

describe("responses", () => {
  test("async call returning Html", async () => {
    const res = await app.get("/page");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toBe("<p>hi</p>");
  });

  test("Empty answers 204 with no body", async () => {
    const res = await app.get("/users/1", { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });

  test("redirect_to defaults to 302; 301 for permanent", async () => {
    const temp = await app.get("/old", { redirect: "manual" });
    expect(temp.status).toBe(302);
    expect(temp.headers.get("location")).toBe("/new");
    const perm = await app.get("/old?permanent=1", { redirect: "manual" });
    expect(perm.status).toBe(301);
  });

  test("redirect_to refuses a non-redirect status", () => {
    expect(() => new Fw.Response.Redirect("/x", 200)).toThrow(RangeError);
  });

  test("a custom response type renders with its own content type", async () => {
    const res = await app.get("/report");
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await res.text()).toBe("a,b\n1,2");
  });

  test("a Json contract with a schema serialises only declared fields", async () => {
    expect(await (await app.get("/leaky")).json()).toEqual({ id: "u1" });
  });
});

describe("registration", () => {
  test("an endpoint without a route fails at start with a clear message", () => {
    class NoRoute extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
      call() {
        return this.json({});
      }
    }
    expect(() => Fw.build({}, [NoRoute])).toThrow(/NoRoute has no route/);
  });

  test("an endpoint without call() fails at start with a clear message", () => {
    const Base = Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json);
    const NoCall = class NoCall extends (Base as unknown as new () => object) {
      static route = "GET /x";
    };
    expect(() => Fw.build({}, [NoCall as never])).toThrow(/NoCall must implement call\(\)/);
  });

  test("a malformed route declaration fails at start", () => {
    class BadRoute extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
      static route = "FETCH /x";
      call() {
        return this.json({});
      }
    }
    expect(() => Fw.build({}, [BadRoute])).toThrow(/unknown method FETCH/);
  });

  test("handlers after endpoints are refused", () => {
    expect(() => Fw.build({}, [Greeting, Fw.ErrorHandler])).toThrow(/handlers come first/);
  });

  test("one route declaration may serve several methods", async () => {
    class Both extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Text) {
      static route = "GET|POST /both";
      call() {
        return this.text(this.request.method);
      }
    }
    const app2 = Fw.build({}, [Both]);
    expect(await (await app2.fetch(new Request("http://x/both", { method: "POST" }))).text()).toBe("POST");
    expect(app2.routes()).toEqual([
      { method: "GET", path: "/both" },
      { method: "POST", path: "/both" },
    ]);
  });
});
