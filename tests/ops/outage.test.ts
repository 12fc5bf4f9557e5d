/**
 * A database outage under a running provider: PostgreSQL behind a TCP proxy we control (the
 * shared server is never stopped). While the proxy is cut, requests that need the database
 * answer 503 with Retry-After in the right shape (OAuth JSON at /token and /userinfo, the error
 * page for a browser, the framework's JSON elsewhere), promptly and without a stack; /healthz
 * stays 200. When the proxy is back the same requests succeed, without restarting the server.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { get_code, redeem, userinfo, type Pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, TEST_DATABASE_URL, use_postgres, type TempDatabase } from "../store/pg.ts";
import { tcp_proxy, type TcpProxy } from "../store/tcp_proxy.ts";
import { redeem as redeem_at } from "./flow.ts";
import { freeze_proxy, type FreezeProxy } from "./freeze_proxy.ts";

/** Each request must answer within this bound (the pool's connect timeout is 5 s); a hang fails it. */
const BOUND_MS = 8_000;
const bounded = () => AbortSignal.timeout(BOUND_MS);

if (await use_postgres()) {
  describe("database outage behind a running provider (PostgreSQL through a TCP proxy)", () => {
    let db: TempDatabase;
    let proxy: TcpProxy;
    let t: TestProvider;
    const logs: Record<string, unknown>[] = [];
    // Taken before the outage: a live access token and an unredeemed code.
    let access_token: string;
    let pending: { code: string; pkce: Pkce | null };

    beforeAll(async () => {
      db = await create_temp_database();
      const target = new URL(TEST_DATABASE_URL);
      proxy = await tcp_proxy(target.hostname, Number(target.port || 5432));
      const url = new URL(db.url);
      url.hostname = "127.0.0.1";
      url.port = String(proxy.port);
      t = await start_provider({ database_url: url.toString(), log: (line) => void logs.push(line), config: { log_requests: true } });
      const first = await get_code(t);
      const response = await redeem(t, first.code, first.pkce!.verifier);
      expect(response.status).toBe(200);
      access_token = ((await response.json()) as { access_token: string }).access_token;
      pending = await get_code(t, {}, { browser: first.browser });
    }, 30_000);

    afterAll(async () => {
      await proxy?.start().catch(() => {});
      await t?.stop().catch(() => {});
      await proxy?.stop();
      await db?.drop();
    });

    test("cut: /token, /userinfo and /readyz answer 503 with Retry-After; /healthz stays 200", async () => {
      await proxy.stop();

      const token = await redeem_at(t.url, { client_id: t.client.client_id, client_secret: t.secret }, pending.code, pending.pkce!.verifier, bounded());
      expect(token.status).toBe(503);
      expect(token.headers.get("retry-after")).toBe("5");
      expect(token.headers.get("cache-control")).toBe("no-store");
      expect(await token.json()).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });

      const info = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${access_token}` }, signal: bounded() });
      expect(info.status).toBe(503);
      expect(info.headers.get("retry-after")).toBe("5");
      expect(((await info.json()) as { error: string }).error).toBe("temporarily_unavailable");

      const ready = await fetch(`${t.url}/readyz`, { signal: bounded() });
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "unavailable", database: "unavailable", keys: "ok" });

      expect((await fetch(`${t.url}/healthz`, { signal: bounded() })).status).toBe(200);
    }, 30_000);

    test("cut: a browser at /authorize gets the 'temporarily unavailable' page; a JSON caller service_unavailable", async () => {
      const authorize = `${t.url}/authorize?client_id=${t.client.client_id}&response_type=code&scope=openid&redirect_uri=${encodeURIComponent("https://rp.example.com/callback")}`;
      const page = await fetch(authorize, { headers: { accept: "text/html" }, redirect: "manual", signal: bounded() });
      expect(page.status).toBe(503);
      expect(page.headers.get("content-type")).toStartWith("text/html");
      expect(page.headers.get("retry-after")).toBe("5");
      const html = await page.text();
      expect(html).toContain("Temporarily unavailable");
      expect(html).not.toMatch(/StoreUnavailableError|PostgreSQL|at .*\.ts:\d+/);

      const json = await fetch(authorize, { headers: { accept: "application/json" }, redirect: "manual", signal: bounded() });
      expect(json.status).toBe(503);
      expect(((await json.json()) as { error: string }).error).toBe("service_unavailable");
    }, 30_000);

    test("cut: the log says 'database unavailable' with the request id, never an unhandled error or a stack", () => {
      const warnings = logs.filter((l) => l.msg === "database unavailable");
      expect(warnings.length).toBeGreaterThanOrEqual(3);
      for (const w of warnings) expect(typeof w.request_id).toBe("string");
      expect(logs.filter((l) => l.msg === "unhandled error")).toEqual([]);
      expect(JSON.stringify(logs)).not.toMatch(/\.ts:\d+:\d+/);
      const statuses = logs.filter((l) => l.msg === "request" && l.path === "/token").map((l) => l.status);
      expect(statuses).toContain(503);
      expect(statuses).not.toContain(500);
    });

    test("restored: the same requests succeed without restarting the server (the code was not consumed)", async () => {
      await proxy.start();
      const ready = await fetch(`${t.url}/readyz`, { signal: bounded() });
      expect(ready.status).toBe(200);
      const token = await redeem(t, pending.code, pending.pkce!.verifier);
      expect(token.status).toBe(200);
      const body = (await token.json()) as { access_token: string; id_token: string };
      expect(typeof body.id_token).toBe("string");
      const info = await userinfo(t, access_token);
      expect(info.status).toBe(200);
      expect(((await info.json()) as { sub: string }).sub).toBe(t.user.id);
      expect((await userinfo(t, body.access_token)).status).toBe(200);
    }, 30_000);
  });

  describe("a database that stops answering without closing (frozen network)", () => {
    let db: TempDatabase;
    let proxy: FreezeProxy;
    let t: TestProvider;
    const logs: Record<string, unknown>[] = [];
    let access_token: string;

    beforeAll(async () => {
      db = await create_temp_database();
      const target = new URL(TEST_DATABASE_URL);
      proxy = await freeze_proxy(target.hostname, Number(target.port || 5432));
      const url = new URL(db.url);
      url.hostname = "127.0.0.1";
      url.port = String(proxy.port);
      t = await start_provider({ database_url: url.toString(), log: (line) => void logs.push(line), config: { request_timeout_seconds: 2 } });
      const { code, pkce } = await get_code(t);
      access_token = ((await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string }).access_token;
    }, 30_000);

    afterAll(async () => {
      proxy?.thaw();
      await t?.stop().catch(() => {});
      await proxy?.close();
      await db?.drop();
    });

    test("frozen: requests answer 503 at the request deadline instead of hanging", async () => {
      proxy.freeze();
      const info = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${access_token}` }, signal: bounded() });
      expect(info.status).toBe(503);
      expect(((await info.json()) as { error: string }).error).toBe("temporarily_unavailable");
      const page = await fetch(`${t.url}/authorize?client_id=${t.client.client_id}`, { headers: { accept: "text/html" }, redirect: "manual", signal: bounded() });
      expect(page.status).toBe(503);
      expect(await page.text()).toContain("Temporarily unavailable");
      expect(logs.filter((l) => l.msg === "request deadline exceeded").length).toBeGreaterThanOrEqual(2);
    }, 30_000);

    test("thawed: the same requests succeed again", async () => {
      proxy.thaw();
      const info = await userinfo(t, access_token);
      expect(info.status).toBe(200);
      expect((await fetch(`${t.url}/readyz`, { signal: bounded() })).status).toBe(200);
    }, 30_000);
  });
}
