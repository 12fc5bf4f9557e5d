/**
 * Several instances: two `main.ts serve` processes on two ports share nothing but one PostgreSQL
 * database (fresh for this file), as behind a load balancer. Users and clients are added with the
 * CLI against the same DATABASE_URL. Both instances carry the same issuer (the load balancer's
 * address; here instance A's). What one instance writes, the other must honour: codes, sessions,
 * tokens, keys, and single use under concurrency.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { Browser } from "../helpers/browser.ts";
import { free_port } from "../helpers/provider.ts";
import { get_code, jws_header, redeem, tokens, userinfo, CALLBACK, type Client } from "../ops/flow.ts";
import { base_env, cli_json, seed, spawn_server, type ServerProcess } from "../ops/process.ts";
import { create_temp_database, use_postgres, type TempDatabase } from "../store/pg.ts";
import { setTimeout as sleep } from "node:timers/promises";

const PASSWORD = "correct horse battery staple";

async function jwks(server: ServerProcess): Promise<JSONWebKeySet> {
  return (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
}

const kids = (set: JSONWebKeySet) => set.keys.map((k) => k.kid!).sort();

async function eventually<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(100);
  }
}

if (await use_postgres()) {
  describe("two instances sharing one PostgreSQL database", () => {
    let db: TempDatabase;
    let env: Record<string, string>;
    let a: ServerProcess;
    let b: ServerProcess;
    let client: Client;
    let user_id: string;

    beforeAll(async () => {
      db = await create_temp_database();
      const port_a = await free_port();
      let port_b = await free_port();
      while (port_b === port_a) port_b = await free_port();
      env = base_env(db.url, { IDP_ISSUER: `http://127.0.0.1:${port_a}`, IDP_LOG_REQUESTS: "false" });
      // `idp migrate` on the empty database, then both instances start at once (keys created by one).
      const migrated = await cli_json<{ applied: number[]; version: number }>(["migrate"], env);
      expect(migrated.applied.length).toBeGreaterThan(0);
      [a, b] = await Promise.all([spawn_server(env, { port: port_a }), spawn_server(env, { port: port_b })]);
      const seeded = await seed(env, CALLBACK, PASSWORD);
      client = { client_id: seeded.client_id, client_secret: seeded.client_secret };
      user_id = seeded.user_id;
    }, 60_000);

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await db?.drop();
    });

    test("both are ready, and after one polling interval publish the same JWKS", async () => {
      for (const server of [a, b]) expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const same = await eventually(async () => {
        const [ja, jb] = await Promise.all([jwks(a), jwks(b)]);
        return JSON.stringify(kids(ja)) === JSON.stringify(kids(jb)) ? kids(ja) : undefined;
      });
      expect(same.length).toBeGreaterThanOrEqual(1);
    }, 20_000);

    test("login and consent on A, code redeemed on B, userinfo on A", async () => {
      const result = await get_code(a.url, client, PASSWORD);
      expect(result.steps).toEqual(["login", "consent"]);
      const issued = await tokens(b.url, client, result);
      // B's ID Token verifies against A's JWKS: one issuer, shared keys.
      const { payload } = await jwtVerify(issued.id_token!, createLocalJWKSet(await jwks(a)), { issuer: env.IDP_ISSUER, audience: client.client_id });
      expect(payload.sub).toBe(user_id);
      const info = await userinfo(a.url, issued.access_token);
      expect(info.status).toBe(200);
      expect(await info.json()).toEqual({ sub: user_id, email: "alice@example.com", email_verified: true });
    }, 30_000);

    test("the session cookie from A signs the user in on B: no password, no consent, a code that A redeems", async () => {
      const browser = new Browser();
      await get_code(a.url, client, PASSWORD, browser);
      const again = await get_code(b.url, client, "not used: there must be no login page", browser);
      expect(again.steps).toEqual([]);
      const issued = await tokens(a.url, client, again);
      expect((await userinfo(b.url, issued.access_token)).status).toBe(200);
    }, 30_000);

    test("20 concurrent redemptions of one code spread over both instances: exactly one succeeds", async () => {
      const result = await get_code(a.url, client, PASSWORD);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => redeem(i % 2 === 0 ? a.url : b.url, client, result.code, result.pkce.verifier)));
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 200).length).toBe(1);
      expect(statuses.filter((s) => s === 400).length).toBe(19);
      for (const response of answers.filter((r) => r.status === 400)) {
        expect(((await response.json()) as { error: string }).error).toBe("invalid_grant");
      }
    }, 30_000);

    test("`idp keys rotate` against the database: both instances publish the new keys and B signs with the new one", async () => {
      const rotated = await cli_json<{ rotated: Record<string, string>; keys: { kid: string; status: string }[] }>(["keys", "rotate"], env);
      const active = rotated.rotated.RS256!;
      // The new active key and the freshly published next one.
      const fresh = rotated.keys.filter((k) => k.status !== "retired").map((k) => k.kid);
      expect(fresh).toContain(active);
      expect(rotated.keys.some((k) => k.status === "next")).toBe(true);
      for (const server of [a, b]) {
        // IDP_KEYS_POLL_SECONDS=1: seen within a few polls, without a restart.
        await eventually(async () => {
          const set = kids(await jwks(server));
          return fresh.every((kid) => set.includes(kid)) ? set : undefined;
        }, 10_000);
      }
      // A new key signs only once it has been published for two poll intervals (keyring.ts), so
      // B may go on signing with the previous, still published key for a moment: every token
      // verifies against A's JWKS meanwhile, and B switches to the new key within a few polls.
      const switched = await eventually(async () => {
        const issued = await tokens(b.url, client, await get_code(b.url, client, PASSWORD));
        await jwtVerify(issued.id_token!, createLocalJWKSet(await jwks(a)), { issuer: env.IDP_ISSUER });
        return jws_header(issued.id_token!).kid === active ? issued : undefined;
      }, 15_000);
      expect(jws_header(switched.id_token!).kid).toBe(active);
    }, 40_000);
  });
}
