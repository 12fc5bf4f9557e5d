// Streaming, negotiation, downloads, templates, handler chain, graceful stop.
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { join } from "node:path";
import { Fw, type Context, type CookieOptions, type CookieReader, type Next } from "../../src/fw/index.ts";
import { serve } from "./helpers.ts";
import { rejection } from "../helpers/settle.ts";
import { setTimeout as sleep } from "node:timers/promises";

const FILES = join(import.meta.dirname, "fixtures/files");
const views = new Fw.ViewEngine({ dir: join(import.meta.dirname, "fixtures/views") });

let release: () => void = () => {};
class Ticks extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Stream) {
  static route = "GET /ticks";
  call() {
    const gate = new Promise<void>((done) => (release = done));
    return this.stream(
      (async function* () {
        yield "first\n";
        await gate; // the test reads "first" before letting the stream go on
        yield "second\n";
      })(),
      "text/event-stream",
    );
  }
}

class Greeting extends Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Json, Fw.Response.Html, Fw.Response.Text]) {
  static route = "GET /greeting";
  call() {
    const kind = this.accepts();
    if (kind === "html") return this.html("<p>hello</p>");
    if (kind === "text") return this.text("hello");
    return this.json({ greeting: "hello" });
  }
}

class Download extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.FileDownload) {
  static route = "GET /download/*";
  call() {
    return this.download(FILES, this.params["*"] ?? "", this.params.as);
  }
}

class Hello extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Html)) {
  static route = "GET /hello/:name";
  call() {
    return this.view("hello", { title: "Greeting", name: this.params.name, year: 2026 });
  }
}

class Slow extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Text) {
  static route = "GET /slow";
  async call() {
    await sleep(300);
    return this.text("done");
  }
}

const order: string[] = [];
class Outer extends Fw.Handler {
  async handle(context: Context, next: Next) {
    order.push("outer:in");
    const res = await next();
    order.push("outer:out");
    res.headers.set("x-outer", String(context.state.inner));
    return res;
  }
}
class Inner extends Fw.Handler {
  async handle(context: Context, next: Next) {
    order.push("inner:in");
    context.state.inner = "seen";
    return next();
  }
}

const app = serve([Fw.RequestIdHandler, Fw.LoggingHandler, Fw.ErrorHandler, new Outer(), Inner, Ticks, Greeting, Download, Hello, Slow], { views });
afterAll(() => app.stop());

describe("streaming", () => {
  test("parts arrive as they are written, before the stream ends", async () => {
    const res = await app.get("/ticks");
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("transfer-encoding")).toBe("chunked");
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("first\n");
    release();
    let rest = "";
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
    expect(rest).toBe("second\n");
  });
});

describe("content negotiation", () => {
  const cases: [string | undefined, string][] = [
    [undefined, "application/json; charset=utf-8"],
    ["text/html,application/xhtml+xml;q=0.9", "text/html; charset=utf-8"],
    ["text/plain", "text/plain; charset=utf-8"],
    ["application/json", "application/json; charset=utf-8"],
    ["application/xml", "application/json; charset=utf-8"],
    ["image/png, text/html", "application/json; charset=utf-8"],
  ];
  for (const [accept, type] of cases) {
    test(`Accept ${accept ?? "(none)"} → ${type}`, async () => {
      const res = await app.get("/greeting", { headers: accept ? { accept } : {} });
      expect(res.headers.get("content-type")).toBe(type);
    });
  }
  test("negotiate() looks at the first media type only", () => {
    expect(Fw.negotiate("TEXT/HTML; q=0.1, application/json")).toBe("html");
    expect(Fw.negotiate("")).toBe("json");
  });
});

describe("file download", () => {
  test("sends the file as an attachment", async () => {
    const res = await app.get("/download/report.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="report.txt"; filename*=UTF-8''report.txt`);
    expect(await res.text()).toBe("report body\n");
  });

  test("the filename is safely quoted and encoded", async () => {
    const res = await app.get(`/download/report.txt?as=${encodeURIComponent('ré"port\r\n.txt')}`);
    const header = res.headers.get("content-disposition")!;
    expect(header).toStartWith(`attachment; filename="r__port__.txt"; filename*=UTF-8''r%C3%A9%22port%0D%0A.txt`);
  });

  test("a missing file is NotFound", async () => {
    expect((await app.get("/download/nothing.txt")).status).toBe(404);
  });

  test("no path traversal out of the folder", async () => {
    expect((await app.get("/download/..%2Foutside.txt")).status).toBe(404);
    expect((await app.get("/download/%2E%2E/outside.txt")).status).toBe(404);
    expect((await app.get("/download/")).status).toBe(404);
  });
});

describe("templates", () => {
  test("view() renders with layout and partials, autoescaped", async () => {
    const res = await app.get(`/hello/${encodeURIComponent("<b>Ada</b>")}`);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain("<title>Greeting</title>");
    expect(html).toContain("<h1>Hello &lt;b&gt;Ada&lt;/b&gt;</h1>");
    expect(html).toContain("<footer>2026</footer>");
  });

  test("templates can come from an embedded map", () => {
    const engine = new Fw.ViewEngine({ templates: { page: "<p><%= it.x %></p>" } });
    expect(engine.render("page", { x: "<i>" })).toBe("<p>&lt;i&gt;</p>");
    expect(() => engine.render("missing")).toThrow(/No template named "missing"/);
  });
});

describe("handler chain", () => {
  test("handlers run in order around the endpoint", async () => {
    order.length = 0;
    const res = await app.get("/greeting");
    expect(order).toEqual(["outer:in", "inner:in", "outer:out"]);
    expect(res.headers.get("x-outer")).toBe("seen");
  });

  test("the logger writes one JSON line per request: method, path without query, status, duration, request id", async () => {
    app.logs.length = 0;
    const res = await app.get("/greeting?secret=1", { headers: { "x-request-id": "log-1" } });
    await res.text();
    const lines = app.logs.filter((l) => l.msg === "request");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", path: "/greeting", status: 200, request_id: "log-1" });
    expect(typeof lines[0]!.duration_ms).toBe("number");
    expect(JSON.stringify(lines[0])).not.toContain("secret");
  });

  test("the logger keeps a synchronous chain synchronous: the response is returned, not a promise, and logged once", () => {
    const logs: Record<string, unknown>[] = [];
    const plain = Fw.build({ log: (line) => logs.push(line) }, [Fw.LoggingHandler, Fw.ErrorHandler, Greeting]);
    const answered = plain.answer(new Request("http://localhost/greeting"));
    expect(answered).toBeInstanceOf(Response);
    expect((answered as Response).status).toBe(200);
    const missing = plain.answer(new Request("http://localhost/nowhere"));
    expect((missing as Response).status).toBe(404);
    expect(logs.filter((l) => l.msg === "request").map((l) => l.status)).toEqual([200, 404]);
  });

  test("the logger records the status of errors", async () => {
    app.logs.length = 0;
    await app.get("/nowhere");
    expect(app.logs.find((l) => l.msg === "request")?.status).toBe(404);
  });
});

describe("graceful stop", () => {
  test("stop() finishes in-flight requests and refuses new ones", async () => {
    const other = serve([Slow]);
    const inflight = other.get("/slow");
    await sleep(50);
    const stopped = other.stop(5000);
    const res = await inflight;
    expect(await res.text()).toBe("done");
    await stopped;
    await rejection(other.get("/slow"));
  });
});

describe("cookies", () => {
  class Counter extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = "GET /count";
    call() {
      const seen = Number(this.cookies.get("n") ?? "0");
      this.set_cookie("n", String(seen + 1), { maxAge: 60 });
      return this.json({ seen });
    }
  }

  test("request cookies are readable and set_cookie defaults to HttpOnly, SameSite=Lax, Path=/", async () => {
    const app = Fw.build({}, [Counter]);
    const res = await app.fetch(new Request("http://x/count", { headers: { cookie: "n=41; other=x" } }));
    expect(await res.json()).toEqual({ seen: 41 });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toContain("n=42");
    expect(cookie).toContain("HttpOnly");
    expect(cookie.toLowerCase()).toContain("samesite=lax");
    expect(cookie).toContain("Path=/");
  });

  class Options extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = "GET /cookie-options";
    call() {
      const options: CookieOptions = { path: "/a", domain: "example.com", httpOnly: false, secure: true, sameSite: "strict", maxAge: 0, expires: new Date(0) };
      this.set_cookie("gone", "", options);
      const cookies: CookieReader = this.cookies;
      return this.json({ missing: cookies.get("missing"), n: cookies.get("n") });
    }
  }

  test("CookieOptions override the defaults; CookieReader.get is null for a cookie the request lacks", async () => {
    const app = Fw.build({}, [Options]);
    const res = await app.fetch(new Request("http://x/cookie-options", { headers: { cookie: "n=1" } }));
    expect(await res.json()).toEqual({ missing: null, n: "1" });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toStartWith("gone=;");
    expect(cookie).toContain("Path=/a");
    expect(cookie).toContain("Domain=example.com");
    expect(cookie).toContain("Secure");
    expect(cookie.toLowerCase()).toContain("samesite=strict");
    expect(cookie).toContain("Max-Age=0");
    expect(cookie).toContain("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
    expect(cookie).not.toContain("HttpOnly");
  });
});
