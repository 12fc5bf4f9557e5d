/**
 * UnavailableHandler on its own, in a tiny app: which errors become 503, in which shape, and the
 * request deadline. (tests/ops/outage.test.ts shows the same against a real database outage.)
 */
import { describe, expect, test } from "../helpers/test_api.ts";
import { Fw } from "../../src/fw/index.ts";
import { StoreConflictError, StoreUnavailableError } from "../../src/store/types.ts";
import { UnavailableHandler } from "../../src/http/middleware/unavailable.ts";

type Behaviour = () => Promise<never> | Promise<string>;

function app(behaviour: Behaviour, timeout_ms = 5_000) {
  const endpoint = (route: string) =>
    class extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Text) {
      static route = route;
      async call() {
        return this.text(await behaviour());
      }
    };
  return Fw.build({ log: () => {} }, [new Fw.ErrorHandler(), new UnavailableHandler(timeout_ms), endpoint("GET /token"), endpoint("GET /register/:id"), endpoint("GET /page")]);
}

const get = (a: ReturnType<typeof app>, path: string, accept = "application/json") => a.fetch(new Request(`http://x${path}`, { headers: { accept } }));
const down = () => Promise.reject(new StoreUnavailableError("PostgreSQL unavailable: connection refused"));

describe("UnavailableHandler", () => {
  test("at an OAuth endpoint: 503 temporarily_unavailable with Retry-After", async () => {
    for (const path of ["/token", "/register/abc"]) {
      const response = await get(app(down), path);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await response.json()).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });
    }
  });

  test("elsewhere: service_unavailable JSON, or an HTML page for a browser; the driver's message never shows", async () => {
    const json = await get(app(down), "/page");
    expect(json.status).toBe(503);
    expect(((await json.json()) as { error: string }).error).toBe("service_unavailable");
    const html = await get(app(down), "/page", "text/html");
    expect(html.status).toBe(503);
    expect(html.headers.get("content-type")).toStartWith("text/html");
    expect(await html.text()).not.toContain("connection refused");
  });

  test("found as the cause of another error too", async () => {
    const wrapped = () => Promise.reject(new Error("key refresh failed", { cause: new StoreUnavailableError("gone") }));
    expect((await get(app(wrapped), "/page")).status).toBe(503);
  });

  test("other errors pass through untouched (a conflict is not an outage)", async () => {
    const conflict = () => Promise.reject(new StoreConflictError("already exists"));
    expect((await get(app(conflict), "/page")).status).toBe(500);
  });

  test("a request past the deadline gets 503; one within it is answered", async () => {
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve("late"), 500));
    const response = await get(app(slow, 50), "/token");
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: string }).error).toBe("temporarily_unavailable");
    const fine = await get(app(slow, 2_000), "/page");
    expect(fine.status).toBe(200);
    expect(await fine.text()).toBe("late");
  });
});
