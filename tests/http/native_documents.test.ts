/**
 * Discovery and the JWKS answered by Bun's native route table (Fw `precomputed`): the same bytes
 * and headers as the JavaScript path, a rotation published at once, and every request still
 * logged when request logging is on. Deno has no native route table (src/fw/runtime/serve_deno.ts):
 * there the app answers them, so everything here holds but the missing request id.
 */
import { afterAll, describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load_config } from "../../src/app/config.ts";
import { serve } from "../../src/app/server.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-native-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATHS = ["/.well-known/openid-configuration", "/.well-known/jwks.json"];

function config_for(name: string, log_requests: boolean, extra: Record<string, unknown> = {}) {
  return load_config(
    {},
    {
      issuer: "https://idp.example.com",
      port: 0,
      database_url: `sqlite:${join(dir, name)}`,
      signing_algs: ["RS256", "ES256"],
      log_requests,
      argon2: { memory_kib: 1024, time_cost: 1 },
      ...extra,
    },
  );
}

async function jwks_kids(url: string): Promise<string[]> {
  return ((await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
}

function comparable(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers);
  delete headers.date;
  delete headers["x-request-id"];
  return headers;
}

describe("discovery and JWKS served natively", () => {
  test("the answers carry the same bytes and headers as the JavaScript path, with 304 and HEAD", async () => {
    const server = await serve(config_for("same.sqlite", false), { out: () => {}, log: () => {} });
    const js_path = await serve(config_for("same.sqlite", true), { out: () => {}, log: () => {} });
    try {
      for (const path of PATHS) {
        const native = await fetch(server.url + path);
        const js = await fetch(js_path.url + path);
        expect(native.status).toBe(200);
        expect(js.headers.get("x-request-id")).not.toBeNull();
        // Bun only: a natively answered request never reaches the app's request-id handler.
        if (RUNTIME === "bun") expect(native.headers.get("x-request-id")).toBeNull();
        expect(await native.text()).toBe(await js.text());
        expect(comparable(native)).toEqual(comparable(js));
        expect(native.headers.get("x-content-type-options")).toBe("nosniff");
        expect(native.headers.get("strict-transport-security")).toContain("max-age=");
        expect(native.headers.get("access-control-allow-origin")).toBe("*");

        const etag = native.headers.get("etag")!;
        const not_modified = await fetch(server.url + path, { headers: { "if-none-match": etag } });
        expect(not_modified.status).toBe(304);
        expect(await not_modified.text()).toBe("");
        const head = await fetch(server.url + path, { method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.headers.get("etag")).toBe(etag);
        const post = await fetch(server.url + path, { method: "POST" });
        expect(post.status).toBe(405);
        expect(post.headers.get("allow")).toContain("GET");
      }
    } finally {
      await server.stop();
      await js_path.stop();
    }
  });

  test("a rotation is in the natively served JWKS as soon as rotate() returns", async () => {
    const server = await serve(config_for("rotate.sqlite", false), { out: () => {}, log: () => {} });
    try {
      const kids = async () => ((await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      const before = await kids();
      const rotated = await server.provider.keys.rotate("RS256");
      const after = await kids();
      expect(after).toContain(rotated.get("RS256")!);
      expect(after).not.toEqual(before);
      // The JWKS the server answers is the one the key ring publishes.
      expect(await (await fetch(`${server.url}/.well-known/jwks.json`)).text()).toBe(new TextDecoder().decode(server.provider.keys.jwks().body));
    } finally {
      await server.stop();
    }
  });

  test("with request logging on, every discovery and JWKS request is logged", async () => {
    const logs: Record<string, unknown>[] = [];
    const server = await serve(config_for("logged.sqlite", true), { out: () => {}, log: (line) => void logs.push(line) });
    try {
      for (const path of [...PATHS, ...PATHS]) expect((await fetch(server.url + path)).status).toBe(200);
    } finally {
      await server.stop();
    }
    for (const path of PATHS) expect(logs.filter((line) => line.path === path && line.status === 200)).toHaveLength(2);
  });

  test("a retired key leaves the natively served JWKS at the first key refresh after its retire_at", async () => {
    let now = Math.floor(Date.now() / 1000);
    const server = await serve(config_for("retire.sqlite", false), { out: () => {}, log: () => {}, now: () => now });
    try {
      const old_kid = server.provider.keys.active_kid("RS256");
      await server.provider.keys.rotate("RS256");
      // Still published: tokens it signed verify until they expire.
      expect(await jwks_kids(server.url)).toContain(old_kid);
      now += 30 * 24 * 3600;
      await server.provider.keys.refresh();
      expect(await jwks_kids(server.url)).not.toContain(old_kid);
      expect(await (await fetch(`${server.url}/.well-known/jwks.json`)).text()).toBe(new TextDecoder().decode(server.provider.keys.jwks().body));
    } finally {
      await server.stop();
    }
  });

  test("with /metrics on, every discovery and JWKS request is counted (nothing is answered natively)", async () => {
    const metrics_token = "m".repeat(24);
    const server = await serve(config_for("metrics.sqlite", false, { metrics_token }), { out: () => {}, log: () => {} });
    try {
      for (const path of [...PATHS, ...PATHS]) expect((await fetch(server.url + path)).status).toBe(200);
      const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metrics_token}` } })).text();
      for (const path of PATHS) expect(text).toContain(`idp_http_requests_total{route="${path}",method="GET",status="200"} 2`);
    } finally {
      await server.stop();
    }
  });
});
