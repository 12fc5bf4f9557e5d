/**
 * What the database must hold up: the store calls each step of a login and of a token request
 * makes, counted by wrapping the store. These are the numbers the README gives for sizing the
 * database; a change in them is a change in the load every instance puts on it.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { hash_password } from "../../src/platform/passwords.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { serve, type Served } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import { SQLITE_ACCESS } from "../../src/store/sqlite/access.ts";
import type { Store } from "../../src/store/types.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { free_port } from "../helpers/provider.ts";
import { CALLBACK, get_code, redeem, userinfo, type Client } from "./flow.ts";

const PASSWORD = "correct horse battery staple";
/** A call changes rows unless the store declares it a read (src/store/sqlite/access.ts). */
const is_write = (name: string): boolean => (SQLITE_ACCESS as Record<string, string>)[name] !== "read";

type Counts = { reads: number; writes: number; calls: string[] };

/** The store with every call counted (the key poller's keys_version and the mail and webhook workers' mail_queue and webhook_queue reads excluded). */
function counting(store: Store): { store: Store; take(): Counts } {
  let calls: string[] = [];
  const wrapped = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(store)) {
    wrapped[name] =
      typeof value === "function" && name !== "keys_version" && name !== "mail_queue" && name !== "webhook_queue"
        ? (...args: unknown[]) => {
            calls.push(name);
            return (value as (...a: unknown[]) => unknown)(...args);
          }
        : value;
  }
  return {
    store: wrapped as unknown as Store,
    take() {
      const taken = calls;
      calls = [];
      return { reads: taken.filter((c) => !is_write(c)).length, writes: taken.filter(is_write).length, calls: taken };
    },
  };
}

describe("store calls per step of the flow", () => {
  let raw: Store;
  let served: Served;
  let counter: ReturnType<typeof counting>;
  let client: Client;

  beforeAll(async () => {
    raw = await open_store("sqlite::memory:");
    const port = await free_port();
    const config = load_config(
      {},
      { issuer: `http://127.0.0.1:${port}`, port, database_url: "sqlite::memory:", signing_algs: ["RS256"], log_requests: false, argon2: { memory_kib: 1024, time_cost: 1 } },
    );
    await raw.create_user({ username: "alice", password_hash: await hash_password(PASSWORD, config.argon2), email: "alice@example.com", email_verified: true });
    const secret = random_token(32);
    const row = await raw.create_client({
      client_id: "app",
      client_secret_hash: sha256(secret),
      metadata: { redirect_uris: [CALLBACK], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" },
    });
    client = { client_id: row.client_id, client_secret: secret };
    counter = counting(raw);
    served = await serve(config, { store: counter.store, port, log: () => {}, out: () => {} });
    counter.take();
  });
  afterAll(async () => {
    await served?.stop();
    await raw?.close();
  });

  test("first sign-in: /authorize 2 writes (its rate-limit counter, the interaction), password login 10 (reserve, verify, release), consent 5; code exchange 4 (1 atomic update, 1 insert, the client's first use, its secret's last use; no rate-limit counter); userinfo 0", async () => {
    const browser = new Browser();
    const url = new URL("/authorize", served.url);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid email",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    })) {
      url.searchParams.set(k, v);
    }
    const start = await browser.get(url.href);
    // The address's count of authorization requests comes first (rate_limits.authorize_per_ip);
    // the operator's attribute definitions are read for their scopes (attributes/claims.ts).
    expect(counter.take()).toMatchObject({ writes: 2, calls: ["hit", "get_client", "list_attribute_definitions", "create_interaction"] });

    const html = await (await browser.get(new URL(start.headers.get("location")!, served.url).href)).text();
    expect(counter.take().writes).toBe(0);

    const failed = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "alice", password: "wrong" });
    expect(failed.status).toBe(200);
    // Three failure counters (address and username, address, username) and an audit event.
    expect(counter.take().writes).toBe(4);

    const login = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "alice", password: PASSWORD });
    expect(login.status).toBe(303);
    const after_login = counter.take();
    // The attempt is reserved before the password check (two reservations and the per-username
    // count) and given back after it succeeds (three releases): oidc/limits/login.ts. Then the
    // session insert, the rate-limit counter reset, the audit event and the interaction update.
    expect(after_login.calls.filter(is_write)).toEqual([
      "reserve",
      "reserve",
      "hit",
      "release",
      "release",
      "release",
      "create_session",
      "reset_counter",
      "add_audit_event",
      "update_interaction",
    ]);

    const consent_html = await (await browser.get(new URL(login.headers.get("location")!, served.url).href)).text();
    counter.take();
    const consent = await browser.post(form_action(consent_html)!, { csrf: hidden_field(consent_html, "csrf")!, decision: "allow" });
    expect(consent.status).toBe(303);
    // Interaction delete, grant upsert, consent_granted audit event, code insert, session-client insert (for logout).
    expect(counter.take().writes).toBe(5);

    const code = new URL(consent.headers.get("location")!).searchParams.get("code")!;
    const token = await redeem(served.url, client, code, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
    expect(token.status).toBe(200);
    const exchange = counter.take();
    // No rate-limit counter is written for a client that authenticates: the failure counters
    // (oidc/limits/client_auth.ts: per client and address, per address) are only read, and written
    // when an authentication fails. Before, every request wrote two counters (4 writes). This is
    // the client's first token, so its first use is recorded (mark_client_used: once per client
    // ever, oidc/registration/unused_clients.ts), and its secret's last use (note_client_secret_use:
    // at most once a minute per client, oidc/clients/authentication.ts); the next exchange below,
    // within the minute, writes 2.
    expect(exchange.writes).toBe(4);
    expect(exchange.calls.filter(is_write).sort()).toEqual(["consume_code", "insert_token", "mark_client_used", "note_client_secret_use"]);
    expect(exchange.calls.filter((c) => c === "get_counter")).toEqual(["get_counter", "get_counter"]);

    const { access_token } = (await token.json()) as { access_token: string };
    expect((await userinfo(served.url, access_token)).status).toBe(200);
    // The token, its user, and its client (whose metadata shapes the answer: group mapping,
    // pairwise sub, signed UserInfo), the user and client reads in parallel; and the attribute
    // definitions (released claims, attributes/claims.ts).
    expect(counter.take()).toMatchObject({ writes: 0, reads: 4 });
  });

  test("signed in already (session and grant): an authorization costs 3 writes (rate-limit counter, code and session-client)", async () => {
    const browser = new Browser();
    await get_code(served.url, client, PASSWORD, browser);
    counter.take();
    const again = await get_code(served.url, client, PASSWORD, browser);
    expect(again.steps).toEqual([]);
    expect(counter.take().calls.filter(is_write)).toEqual(["hit", "insert_code", "add_session_client"]);
    // The client was used before: its exchange writes the code's consumption and the token only.
    expect((await redeem(served.url, client, again.code, again.pkce.verifier)).status).toBe(200);
    expect(counter.take().calls.filter(is_write).sort()).toEqual(["consume_code", "insert_token"]);
  });
});
