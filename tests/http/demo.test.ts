/**
 * The demo: `serve --demo` (npm start) on an empty database in development mode creates a demo
 * user and the public demo client; /demo and /demo/callback are the provider acting as its own
 * relying party. Production never seeds and does not mount the demo.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { serve, type Served } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { Browser, authorize } from "../helpers/browser.ts";
import { free_port } from "../helpers/provider.ts";

const running: { served: Served; store: Store }[] = [];
afterAll(async () => {
  for (const { served, store } of running) {
    await served.stop();
    await store.close();
  }
});

async function start(options: { production?: boolean; seed?: boolean; prepare?: (store: Store) => Promise<void> } = {}) {
  const port = await free_port();
  const issuer = `http://127.0.0.1:${port}`;
  const config = load_config(
    {},
    {
      issuer,
      port,
      database_url: "sqlite::memory:",
      signing_algs: ["RS256"],
      log_requests: false,
      argon2: { memory_kib: 1024, time_cost: 1 },
      production: options.production ?? false,
    },
  );
  const store = await open_store("sqlite::memory:", { migrate: true });
  await options.prepare?.(store);
  let printed = "";
  const served = await serve(config, { store, port, seed_demo: options.seed ?? true, out: (text) => void (printed += text), log: () => {} });
  running.push({ served, store });
  const password = /user: {3}demo \/ (\S+)/.exec(printed)?.[1] ?? null;
  return { issuer, store, printed, password, url: served.url };
}

describe("seeding", () => {
  test("development, empty database: a demo user and a public demo client; prints the password and the URL to open", async () => {
    const { issuer, store, printed, password } = await start();
    expect(password).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(printed).toContain(`Open ${issuer}/demo to sign in to the demo application.`);
    // npm start on an empty database also says how to add real users and clients.
    expect(printed).toContain("users add alice --password-stdin");
    expect(printed).toContain("clients add --name App --redirect-uri");
    expect(printed).toContain(`${issuer}/account`);
    const user = await store.get_user_by_username("demo");
    expect(user?.name).toBe("Demo User");
    expect(user?.password_hash).toStartWith("$argon2id$");
    const client = await store.get_client("demo");
    expect(client?.client_secret_hash).toBeNull();
    expect(client?.metadata.token_endpoint_auth_method).toBe("none");
    expect(client?.metadata.redirect_uris).toEqual([`${issuer}/demo/callback`]);
  });

  test("a database in use is never seeded", async () => {
    const { store, printed } = await start({ prepare: async (s) => void (await s.create_user({ username: "someone", password_hash: "x" })) });
    expect(await store.get_user_by_username("demo")).toBeNull();
    expect(printed).not.toContain("Demo data created");
  });

  test("production never seeds and does not mount /demo", async () => {
    const { store, printed, url } = await start({ production: true });
    expect(printed).toContain("Production mode: no demo data is created.");
    expect(await store.list_users()).toEqual([]);
    expect(await store.get_client("demo")).toBeNull();
    expect((await fetch(`${url}/demo`, { redirect: "manual", headers: { accept: "text/html" } })).status).toBe(404);
    expect((await fetch(`${url}/demo/callback`, { redirect: "manual", headers: { accept: "text/html" } })).status).toBe(404);
  });

  test("without the demo client, /demo says how to create it", async () => {
    const { url } = await start({ seed: false });
    const response = await fetch(`${url}/demo`, { redirect: "manual", headers: { accept: "text/html" } });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("The demo is not set up");
  });
});

describe("the demo relying party", () => {
  test("/demo → sign in → consent → /demo/callback shows the verified ID Token claims and the userinfo answer", async () => {
    const { issuer, url, password } = await start();
    const browser = new Browser();
    const begin = await browser.get(`${url}/demo`);
    expect(begin.status).toBe(302);
    const authorize_url = new URL(begin.headers.get("location")!);
    expect(authorize_url.pathname).toBe("/authorize");
    expect(authorize_url.searchParams.get("client_id")).toBe("demo");
    expect(authorize_url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize_url.searchParams.get("redirect_uri")).toBe(`${issuer}/demo/callback`);
    const cookie = begin.headers.getSetCookie().find((c) => c.startsWith("idp_demo="))!;
    expect(cookie).toContain("Path=/demo");
    expect(cookie).toContain("HttpOnly");

    const { callback, steps } = await authorize(browser, authorize_url.href, { username: "demo", password: password!, callback_prefix: `${issuer}/demo/callback` });
    expect(steps).toEqual(["login", "consent"]);
    const page = await browser.get(callback.href);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("You are signed in to the demo app");
    expect(html).toContain("&quot;aud&quot;: &quot;demo&quot;");
    expect(html).toContain("&quot;email&quot;: &quot;demo@example.com&quot;");
    expect(html).toContain("Sign-in methods (<code>amr</code>): <strong>pwd</strong>");
    // The state is single use: the same answer again is refused.
    expect((await browser.get(callback.href)).status).toBe(400);
  });

  test("Deny: the callback shows the error the application receives", async () => {
    const { issuer, url, password } = await start();
    const browser = new Browser();
    const begin = await browser.get(`${url}/demo`);
    const { callback } = await authorize(browser, begin.headers.get("location")!, {
      username: "demo",
      password: password!,
      decision: "deny",
      callback_prefix: `${issuer}/demo/callback`,
    });
    const html = await (await browser.get(callback.href)).text();
    expect(html).toContain("The demo sign-in did not complete");
    expect(html).toContain("access_denied");
  });

  test("a callback that the demo did not start (no or another state) is refused", async () => {
    const { url } = await start();
    const stranger = await fetch(`${url}/demo/callback?code=abc&state=xyz`, { headers: { accept: "text/html" } });
    expect(stranger.status).toBe(400);
    expect(await stranger.text()).toContain("Start the demo again");
  });
});
