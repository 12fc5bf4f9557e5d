// Precomputed endpoints answered by Bun's native route table (app.ts native_routes, runtime/serve.ts refresh_native).
import { createHash } from "node:crypto";
import { afterEach, describe, expect, RUNTIME, spyOn, test } from "../helpers/test_api.ts";
import { Fw, type Context, type Next } from "../../src/fw/index.ts";
import { serve, type Served } from "./helpers.ts";
import { rejection } from "../helpers/settle.ts";

/** A document whose calls are counted: a GET answered natively never reaches call(). */
function document_endpoint() {
  const state = { calls: 0, body: '{"version":1}', status: 200 };
  class Document extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Bytes) {
    static route = "GET /doc.json";
    static precomputed = true;
    call() {
      state.calls++;
      this.response.headers.set("etag", `"v${state.body.length}-${createHash("sha256").update(state.body).digest("hex").slice(0, 16)}"`);
      this.response.headers.set("cache-control", "public, max-age=60");
      return new Fw.Response.Bytes(state.body, "application/json; charset=utf-8", state.status);
    }
  }
  return { Document, state };
}

class Stamp extends Fw.Handler {
  async handle(_context: Context, next: Next): Promise<Response> {
    const response = await next();
    response.headers.set("x-stamp", "from-the-chain");
    return response;
  }
}

let running: Served | undefined;
afterEach(async () => {
  await running?.stop(0);
  running = undefined;
});

// Bun only: the answers under test are Bun.serve's own route table (src/fw/runtime/serve.ts).
describe.skipIf(RUNTIME !== "bun")("precomputed endpoints answered by Bun's route table (Bun only)", () => {
  test("Bun answers GET and HEAD natively with the chain's headers, and 304 on a matching If-None-Match", async () => {
    const { Document, state } = document_endpoint();
    running = serve([new Fw.RequestIdHandler(), new Stamp(), new Fw.ErrorHandler(), Document]);
    await running.native_ready;
    const calls_after_freeze = state.calls;
    expect(calls_after_freeze).toBe(1);

    const first = await running.get("/doc.json");
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('{"version":1}');
    expect(first.headers.get("x-stamp")).toBe("from-the-chain");
    expect(first.headers.get("content-type")).toBe("application/json; charset=utf-8");
    // A request id belongs to one exchange: never frozen into the shared answer.
    expect(first.headers.get("x-request-id")).toBeNull();
    const etag = first.headers.get("etag")!;

    const head = await running.get("/doc.json", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");

    const again = await running.get("/doc.json?ignored=1", { headers: { "if-none-match": `"other", W/${etag}` } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(state.calls).toBe(calls_after_freeze);
  });

  test("other methods on the path still get the app's 405 with Allow", async () => {
    const { Document, state } = document_endpoint();
    running = serve([new Fw.ErrorHandler(), Document]);
    await running.native_ready;
    const post = await running.get("/doc.json", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toContain("GET");
    expect(((await post.json()) as { error: string }).error).toBe("method_not_allowed");
    expect(state.calls).toBe(1);
  });

  test("refresh_native installs a changed answer and reports whether anything changed", async () => {
    const { Document, state } = document_endpoint();
    running = serve([new Fw.ErrorHandler(), Document]);
    await running.native_ready;
    expect(await running.refresh_native()).toBe(false);
    state.body = '{"version":2,"more":true}';
    expect(await running.refresh_native()).toBe(true);
    const response = await running.get("/doc.json");
    expect(await response.text()).toBe('{"version":2,"more":true}');
    expect(response.headers.get("etag")).toContain(`v${state.body.length}-`);
  });

  test("after a refresh that failed, the next one still installs the new answer", async () => {
    const { Document, state } = document_endpoint();
    running = serve([new Fw.ErrorHandler(), Document]);
    await running.native_ready;
    const reload = spyOn(running.server as { reload(options: unknown): void }, "reload").mockImplementationOnce(() => {
      throw new Error("reload failed");
    });
    state.body = '{"version":2}';
    expect((await rejection(running.refresh_native())).message).toContain("reload failed");
    reload.mockRestore();
    state.body = '{"version":3}';
    expect(await running.refresh_native()).toBe(true);
    expect(await (await running.get("/doc.json")).text()).toBe('{"version":3}');
  });

  test("only a 200 is frozen: any other answer stays with the app", async () => {
    const { Document, state } = document_endpoint();
    state.status = 203;
    running = serve([new Fw.ErrorHandler(), Document]);
    await running.native_ready;
    await running.get("/doc.json");
    await running.get("/doc.json");
    expect(state.calls).toBe(3);
  });

  test("while a handler must see every request, nothing is answered natively", async () => {
    const { Document, state } = document_endpoint();
    running = serve([new Fw.LoggingHandler(), new Fw.ErrorHandler(), Document]);
    await running.native_ready;
    expect(running.app.native_paths()).toEqual([]);
    await running.get("/doc.json");
    await running.get("/doc.json");
    expect(state.calls).toBe(2);
    expect(running.logs.filter((line) => line.path === "/doc.json")).toHaveLength(2);
  });

  test("serve_natively: false keeps every answer in JavaScript", async () => {
    const { Document, state } = document_endpoint();
    running = serve([new Fw.ErrorHandler(), Document], { serve_natively: false });
    await running.native_ready;
    await running.get("/doc.json");
    expect(state.calls).toBe(1);
  });
});

describe("precomputed endpoints", () => {
  test("a precomputed endpoint needs one GET route on a fixed path", () => {
    for (const route of ["GET /doc/:id", "GET|HEAD /doc", "POST /doc", "GET /files/*"]) {
      class Bad extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Text) {
        static route = route;
        static precomputed = true;
        call() {
          return this.text("x");
        }
      }
      expect(() => Fw.build({}, [Bad])).toThrow(/precomputed endpoint has one GET route on a fixed path/);
    }
  });
});
