/**
 * OIDC Back-Channel Logout 1.0 over real HTTP: relying parties (openid-client v6) sign in through
 * one browser session, a local server (serve_fetch) plays their backchannel_logout_uri, and each logout
 * token it receives is verified with jose against our JWKS (§2.4, §2.6). Delivery failures
 * (unreachable, 400, redirect, no answer) never break the user's logout (§2.5, §2.8).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { Browser } from "../helpers/browser.ts";
import * as client from "openid-client";
import { REDIRECT_URI, free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { BACKCHANNEL_LOGOUT_EVENT, backchannel_uri_problem, deliver_logout_token, notify_clients } from "../../src/oidc/logout/backchannel.ts";
import type { LogLine, Provider } from "../../src/oidc/provider.ts";
import { BYE, end_session_url, make_rp, sign_in, silent_authorize } from "./logout_helpers.ts";
import { setTimeout as sleep } from "node:timers/promises";

type Received = { path: string; content_type: string | null; form: URLSearchParams };

let t: TestProvider;
let rp_server: FetchServer;
const received: Received[] = [];
/** Requests the hanging route has not answered; released at the end. */
const hanging: (() => void)[] = [];

/** The RPs of these tests listen on 127.0.0.1 over http: the operator allow-lists it (oidc/outbound/fetch.ts). */
const LOOPBACK_ALLOWED = { outbound: { allow_http: true, allow: ["127.0.0.1/32"] } };

beforeAll(async () => {
  t = await start_provider({ config: LOOPBACK_ALLOWED });
  rp_server = await serve_fetch(async (request) => {
    const path = new URL(request.url).pathname;
    received.push({ path, content_type: request.headers.get("content-type"), form: new URLSearchParams(await request.text()) });
    if (path === "/refuse") return new Response(JSON.stringify({ error: "invalid_request" }), { status: 400 });
    if (path === "/moved") return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${rp_server.port}/ok` } });
    if (path === "/hang") return new Promise<Response>((resolve) => hanging.push(() => resolve(new Response(null, { status: 200 }))));
    return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
  });
});
afterAll(async () => {
  for (const release of hanging) release();
  await rp_server.stop();
  await t.stop();
});

const rp_uri = (path: string) => `http://127.0.0.1:${rp_server.port}${path}`;
const tokens_to = (path: string) => received.filter((r) => r.path === path);
const jwks = () => createRemoteJWKSet(new URL(`${t.issuer}/.well-known/jwks.json`));

/** A provider whose log lines land in `lines`. */
function logging(lines: LogLine[]): Provider {
  return { ...t.provider, log: (line) => void lines.push(line) };
}

describe("logout tokens", () => {
  test("every client of the session with a backchannel_logout_uri gets a valid logout token", async () => {
    const a = await make_rp(t, { backchannel_logout_uri: rp_uri("/a"), backchannel_logout_session_required: true });
    const b = await make_rp(t, { backchannel_logout_uri: rp_uri("/b"), id_token_signed_response_alg: "ES256" });
    const quiet = await make_rp(t);
    const signed_in = await sign_in(t, a);
    const browser = signed_in.browser;
    const at_b = await sign_in(t, b, browser);
    await sign_in(t, quiet, browser);
    // Another browser's session with client a is not logged out.
    const elsewhere = await sign_in(t, a);

    const response = await browser.get(end_session_url(a, { id_token_hint: signed_in.id_token, post_logout_redirect_uri: BYE, state: "s" }));
    expect(response.headers.get("location")).toBe(`${BYE}?state=s`);
    expect(tokens_to("/a")).toHaveLength(1);
    expect(tokens_to("/b")).toHaveLength(1);

    for (const [path, rp, sid, alg] of [
      ["/a", a, signed_in.claims.sid, "RS256"],
      ["/b", b, at_b.claims.sid, "ES256"],
    ] as const) {
      const delivery = tokens_to(path)[0]!;
      // §2.5: a form POST with one logout_token parameter.
      expect(delivery.content_type).toStartWith("application/x-www-form-urlencoded");
      expect([...delivery.form.keys()]).toEqual(["logout_token"]);
      const token = delivery.form.get("logout_token")!;
      expect(decodeProtectedHeader(token)).toMatchObject({ alg, typ: "logout+jwt" });
      // §2.6: verified like an ID Token, against the provider's JWKS.
      const { payload } = await jwtVerify(token, jwks(), { issuer: t.issuer, audience: rp.client_id, typ: "logout+jwt" });
      expect(payload.sub).toBe(t.user.id);
      expect(payload.sid).toBe(sid as string);
      expect(payload.events).toEqual({ [BACKCHANNEL_LOGOUT_EVENT]: {} });
      expect(payload.nonce).toBeUndefined();
      expect(typeof payload.jti).toBe("string");
      expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
    }
    expect(signed_in.claims.sid).toBe(at_b.claims.sid);
    expect(tokens_to("/a")[0]!.form.get("logout_token")).not.toBe(tokens_to("/b")[0]!.form.get("logout_token"));
    // The other browser is still signed in to a.
    expect((await silent_authorize(a, elsewhere.browser)).searchParams.get("code")).not.toBeNull();
  });

  test("the confirmation path (no hint) sends them too", async () => {
    const rp = await make_rp(t, { backchannel_logout_uri: rp_uri("/confirmed") });
    const { browser, claims } = await sign_in(t, rp);
    const page = await (await browser.get(`${t.issuer}/logout`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const response = await browser.post(`${t.issuer}/logout/confirm`, { csrf, decision: "logout" });
    expect(response.status).toBe(200);
    const [delivery] = tokens_to("/confirmed");
    const { payload } = await jwtVerify(delivery!.form.get("logout_token")!, jwks(), { issuer: t.issuer, audience: rp.client_id, typ: "logout+jwt" });
    expect(payload.sid).toBe(claims.sid as string);
  });
});

describe("failed deliveries do not break logout", () => {
  test("an unreachable backchannel_logout_uri: the user is still signed out and redirected", async () => {
    const dead = `http://127.0.0.1:${await free_port()}/gone`;
    const rp = await make_rp(t, { backchannel_logout_uri: dead });
    const ok = await make_rp(t, { backchannel_logout_uri: rp_uri("/beside-dead") });
    const { id_token, browser } = await sign_in(t, rp);
    await sign_in(t, ok, browser);
    const response = await browser.get(end_session_url(rp, { id_token_hint: id_token, post_logout_redirect_uri: BYE }));
    expect(response.headers.get("location")).toBe(BYE);
    expect((await silent_authorize(rp, browser)).searchParams.get("error")).toBe("login_required");
    expect(tokens_to("/beside-dead")).toHaveLength(1);
  });

  test("refused (400), redirected (302) and unreachable deliveries are logged without the token", async () => {
    const lines: LogLine[] = [];
    const idp = logging(lines);
    const sid = "test-sid";
    const clients = await Promise.all(["/refuse", "/moved"].map(async (path) => (await t.add_client({ client_name: path, backchannel_logout_uri: rp_uri(path) })).client));
    const { client: dead } = await t.add_client({ backchannel_logout_uri: `http://127.0.0.1:${await free_port()}/gone` });
    const outcomes = await Promise.all([...clients, dead].map((client) => deliver_logout_token(idp, client, { user_id: t.user.id, sid })));
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false]);
    expect(outcomes[0]!.reason).toBe("answered 400");
    expect(outcomes[1]!.reason).toStartWith("answered 302");
    // Not followed: nothing arrived at /ok from the redirect.
    expect(tokens_to("/ok")).toHaveLength(0);
    const failures = lines.filter((line) => line.msg === "back-channel logout failed");
    expect(failures).toHaveLength(3);
    const sent = [...tokens_to("/refuse"), ...tokens_to("/moved")].map((r) => r.form.get("logout_token")!);
    for (const line of failures) {
      expect(line.level).toBe("warn");
      for (const token of sent) expect(JSON.stringify(line)).not.toContain(token);
      expect(JSON.stringify(line)).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    }
  });

  test("an RP that never answers does not hold the logout beyond the bounded wait", async () => {
    const { client } = await t.add_client({ backchannel_logout_uri: rp_uri("/hang") });
    const lines: LogLine[] = [];
    const before = hanging.length;
    const done = await notify_clients(logging(lines), [client.client_id], { user_id: t.user.id, sid: "s" }, 50);
    // The wait ended before the delivery did: the RP has the request (or soon will) and has not answered.
    expect(done).toEqual([]);
    for (let i = 0; i < 200 && hanging.length === before; i++) await sleep(10);
    expect(hanging.length).toBe(before + 1);
    expect(lines.filter((line) => line.msg === "back-channel logout delivered")).toHaveLength(0);
  });

  test("only https, or http on loopback, is ever called", () => {
    expect(backchannel_uri_problem("https://rp.example.com/bc")).toBeNull();
    expect(backchannel_uri_problem("http://127.0.0.1:8080/bc")).toBeNull();
    expect(backchannel_uri_problem("http://localhost/bc")).toBeNull();
    expect(backchannel_uri_problem("http://rp.example.com/bc")).not.toBeNull();
    expect(backchannel_uri_problem("http://10.0.0.1/bc")).not.toBeNull();
    expect(backchannel_uri_problem("https://rp.example.com/bc#x")).not.toBeNull();
    expect(backchannel_uri_problem("https://user:pw@rp.example.com/bc")).not.toBeNull();
    expect(backchannel_uri_problem("ftp://rp.example.com/bc")).not.toBeNull();
  });

  test("a non-loopback http URI is refused without a request", async () => {
    const lines: LogLine[] = [];
    const { client } = await t.add_client({ backchannel_logout_uri: "http://rp.example.com/bc" });
    const outcome = await deliver_logout_token(logging(lines), client, { user_id: t.user.id, sid: "s" });
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.reason).toContain("neither https nor http on a loopback host");
  });
});

describe("registration", () => {
  test("a dynamically registered client's backchannel_logout_uri gets the logout token", async () => {
    const open = await start_provider({ config: { registration: "open", ...LOOPBACK_ALLOWED } });
    try {
      const response = await fetch(`${open.issuer}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], backchannel_logout_uri: rp_uri("/registered"), backchannel_logout_session_required: true }),
      });
      expect(response.status).toBe(201);
      const info = (await response.json()) as { client_id: string; client_secret: string; backchannel_logout_uri: string; backchannel_logout_session_required: boolean };
      expect(info).toMatchObject({ backchannel_logout_uri: rp_uri("/registered"), backchannel_logout_session_required: true });
      const config = await client.discovery(new URL(open.issuer), info.client_id, undefined, client.ClientSecretBasic(info.client_secret), {
        execute: [client.allowInsecureRequests],
      });
      const rp = { config, client_id: info.client_id };
      const { id_token, claims, browser } = await sign_in(open, rp);
      expect((await browser.get(end_session_url(rp, { id_token_hint: id_token }))).status).toBe(200);
      const [delivery] = tokens_to("/registered");
      const { payload } = await jwtVerify(delivery!.form.get("logout_token")!, createRemoteJWKSet(new URL(`${open.issuer}/.well-known/jwks.json`)), {
        issuer: open.issuer,
        audience: info.client_id,
        typ: "logout+jwt",
      });
      expect(payload.sid).toBe(claims.sid as string);
    } finally {
      await open.stop();
    }
  });
});

test("a browser that never signed in anywhere logs out without any delivery", async () => {
  const before = received.length;
  const response = await new Browser().get(`${t.issuer}/logout`);
  expect(response.status).toBe(200);
  expect(received.length).toBe(before);
});
