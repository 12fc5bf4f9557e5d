/** serve(): opens and migrates the database, starts the server, tells the operator what to do next. */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load_config } from "../../src/app/config.ts";
import { argon2_impl } from "../../src/platform/passwords.ts";
import { serve } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import { rejection } from "../helpers/settle.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-serve-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config_for(name: string) {
  return load_config(
    {},
    {
      issuer: "http://localhost:9999",
      port: 0,
      database_url: `sqlite:${join(dir, name)}`,
      signing_algs: ["RS256"],
      log_requests: false,
      argon2: { memory_kib: 1024, time_cost: 1 },
    },
  );
}

describe("serve()", () => {
  test("on an empty database (temp file) prints the issuer URL and how to add a user and a client", async () => {
    const config = config_for("empty.sqlite");
    let printed = "";
    const logs: Record<string, unknown>[] = [];
    const server = await serve(config, { out: (text) => void (printed += text), log: (line) => void logs.push(line) });
    try {
      expect(printed).toContain("http://localhost:9999");
      expect(printed).toContain("npx idp users add alice --password-stdin");
      expect(printed).toContain("npx idp clients add --name App --redirect-uri");
      expect(logs.some((l) => l.msg === "listening" && typeof l.url === "string")).toBe(true);
      // The start line names the argon2id implementation in use (README, IDP_ARGON2_IMPL).
      expect(logs.find((l) => l.msg === "listening")?.password_hashing).toBe(argon2_impl.name);
      expect(existsSync(join(dir, "empty.sqlite"))).toBe(true);
      const discovery = await fetch(`${server.url}/.well-known/openid-configuration`);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe("http://localhost:9999");
    } finally {
      await server.stop();
    }
    // stop() closed the server.
    await rejection(fetch(`${server.url}/healthz`));
  });

  test("a second start on the same file keeps the keys (they live in the store)", async () => {
    const config = config_for("keys.sqlite");
    const first = await serve(config, { out: () => {}, log: () => {} });
    const jwks1 = await (await fetch(`${first.url}/.well-known/jwks.json`)).text();
    await first.stop();
    const second = await serve(config, { out: () => {}, log: () => {} });
    const jwks2 = await (await fetch(`${second.url}/.well-known/jwks.json`)).text();
    await second.stop();
    expect(jwks2).toBe(jwks1);
  });

  test("with seed_demo on an empty database, creates a demo user and client and prints them", async () => {
    const config = config_for("demo.sqlite");
    let printed = "";
    const server = await serve(config, { seed_demo: true, out: (text) => void (printed += text), log: () => {} });
    await server.stop();
    expect(printed).toContain("user:   demo / ");
    expect(printed).toContain("client: demo (public, PKCE)");
    expect(printed).toContain("Open http://localhost:9999/demo");
    const store = await open_store(config.database_url);
    try {
      expect((await store.get_user_by_username("demo"))?.name).toBe("Demo User");
      expect((await store.get_client("demo"))?.metadata.redirect_uris).toEqual(["http://localhost:9999/demo/callback"]);
    } finally {
      await store.close();
    }
  });

  test("with users and clients, prints no hint", async () => {
    const config = config_for("demo.sqlite");
    let printed = "";
    const server = await serve(config, { out: (text) => void (printed += text), log: () => {} });
    await server.stop();
    expect(printed).toBe("");
  });
});
