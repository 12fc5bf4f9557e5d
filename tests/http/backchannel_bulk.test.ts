/**
 * Ending a user's sessions in bulk sends back-channel logout as a single sign-out does (OIDC
 * Back-Channel Logout 1.0 §2.4–2.6, logout/bulk.ts): relying parties (openid-client v6) sign in
 * through two browser sessions, a local server (serve_fetch) plays their backchannel_logout_uri, and each
 * logout token it receives is verified with jose against our JWKS: one per ended session and
 * client, with iss, aud, iat, exp, jti, sub, sid and the event. The administrator's request does
 * not wait for the deliveries (an RP that never answers does not hold it).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { Browser, account_login, account_page } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { until } from "../helpers/until.ts";
import { BACKCHANNEL_LOGOUT_EVENT, RESPONSE_WAIT_MS } from "../../src/oidc/logout/backchannel.ts";
import { make_rp, sign_in, type Rp } from "./logout_helpers.ts";
import { setTimeout as sleep } from "node:timers/promises";

let t: TestProvider;
let rp_server: FetchServer;
const received: { path: string; token: string }[] = [];
/** Requests the hanging route has not answered; released at the end. */
const hanging: (() => void)[] = [];
let admin_token: string;

beforeAll(async () => {
  // The RPs listen on 127.0.0.1 over http: the operator allow-lists it (oidc/outbound/fetch.ts).
  t = await start_provider({ config: { outbound: { allow_http: true, allow: ["127.0.0.1/32"] } } });
  rp_server = await serve_fetch(async (request) => {
    const path = new URL(request.url).pathname;
    const token = new URLSearchParams(await request.text()).get("logout_token") ?? "";
    received.push({ path, token });
    if (path.endsWith("/hang")) return new Promise<Response>((resolve) => hanging.push(() => resolve(new Response(null, { status: 200 }))));
    return new Response(null, { status: 200 });
  });
  const { client, secret } = await t.add_client({ client_name: "ops", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "admin", admin: true });
  const issued = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", scope: "admin" }),
  });
  admin_token = ((await issued.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  for (const release of hanging) release();
  await rp_server.stop();
  await t.stop();
});

const rp_uri = (path: string) => `http://127.0.0.1:${rp_server.port}${path}`;
const tokens_to = (path: string) => received.filter((r) => r.path === path).map((r) => r.token);
const jwks = () => createRemoteJWKSet(new URL(`${t.issuer}/.well-known/jwks.json`));
const admin = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  fetch(`${t.url}/admin/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${admin_token}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** §2.6: the token validated like an ID Token, against the provider's JWKS; its claims. */
async function verified(token: string, rp: Rp, user_id: string): Promise<JWTPayload> {
  expect(decodeProtectedHeader(token).typ).toBe("logout+jwt");
  const { payload } = await jwtVerify(token, jwks(), { issuer: t.issuer, audience: rp.client_id, typ: "logout+jwt" });
  expect(payload.sub).toBe(user_id);
  expect(payload.events).toEqual({ [BACKCHANNEL_LOGOUT_EVENT]: {} });
  expect(payload.nonce).toBeUndefined();
  expect(typeof payload.jti).toBe("string");
  expect(typeof payload.iat).toBe("number");
  expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
  expect(typeof payload.sid).toBe("string");
  return payload;
}

describe("back-channel logout when sessions end in bulk", () => {
  test("disabling a user through the admin API: each client of each ended session gets a valid logout token, and the request does not wait for them", async () => {
    const bob = await t.add_user({ username: "bob" });
    const a = await make_rp(t, { backchannel_logout_uri: rp_uri("/disable/a"), backchannel_logout_session_required: true });
    const b = await make_rp(t, { backchannel_logout_uri: rp_uri("/disable/b"), id_token_signed_response_alg: "ES256" });
    const slow = await make_rp(t, { backchannel_logout_uri: rp_uri("/disable/hang") });
    const quiet = await make_rp(t);
    const first = await sign_in(t, a, new Browser(), "bob");
    const at_b = await sign_in(t, b, first.browser, "bob");
    await sign_in(t, slow, first.browser, "bob");
    await sign_in(t, quiet, first.browser, "bob");
    const second = await sign_in(t, a, new Browser(), "bob");
    expect(first.claims.sid).not.toBe(second.claims.sid);

    const read = await admin("GET", `/users/${bob.id}`);
    const started = Date.now();
    const disabled = await admin("PATCH", `/users/${bob.id}`, { "if-match": read.headers.get("etag")! }, { status: "disabled" });
    const took = Date.now() - started;
    expect(disabled.status).toBe(200);
    expect(((await disabled.json()) as { status: string }).status).toBe("disabled");
    // The hanging RP has not answered, and the bounded wait of a single sign-out is not spent either.
    expect(took).toBeLessThan(RESPONSE_WAIT_MS);

    await until(
      () => (tokens_to("/disable/a").length === 2 && tokens_to("/disable/b").length === 1 && tokens_to("/disable/hang").length === 1 ? true : undefined),
      5000,
      "the logout tokens",
    );
    const to_a = await Promise.all(tokens_to("/disable/a").map((token) => verified(token, a, bob.id)));
    expect(to_a.map((p) => p.sid).sort()).toEqual([first.claims.sid, second.claims.sid].sort() as string[]);
    const [to_b] = await Promise.all(tokens_to("/disable/b").map((token) => verified(token, b, bob.id)));
    expect(decodeProtectedHeader(tokens_to("/disable/b")[0]!).alg).toBe("ES256");
    expect(to_b!.sid).toBe(at_b.claims.sid as string);
    expect(new Set([...to_a, to_b!].map((p) => p.jti)).size).toBe(3);
    // Nothing for the client without a backchannel_logout_uri, and the sessions are gone.
    expect(received.filter((r) => r.path.startsWith("/disable/")).length).toBe(4);
    expect(await t.store.list_sessions_for_user(bob.id)).toEqual([]);
  });

  test("the admin API's end sessions (sign out everywhere) sends them too", async () => {
    const cleo = await t.add_user({ username: "cleo" });
    const rp = await make_rp(t, { backchannel_logout_uri: rp_uri("/end/a") });
    const signed_in = await sign_in(t, rp, new Browser(), "cleo");
    expect((await admin("DELETE", `/users/${cleo.id}/sessions`)).status).toBe(200);
    const token = await until(() => tokens_to("/end/a")[0], 5000, "the logout token");
    expect((await verified(token, rp, cleo.id)).sid).toBe(signed_in.claims.sid as string);
  });

  test("a password change on the account page: the other sessions' clients are told, not this session's", async () => {
    const pat = await t.add_user({ username: "pat" }, "old password 1");
    const rp = await make_rp(t, { backchannel_logout_uri: rp_uri("/password/a") });
    const here = new Browser();
    expect((await account_login(t, here, "pat", "old password 1")).status).toBe(303);
    const kept = await sign_in(t, rp, here, "pat");
    const elsewhere = await sign_in(t, rp, await signed_in_browser("pat", "old password 1"), "pat");
    const { csrf } = await account_page(t, here);
    const changed = await here.post(`${t.url}/account/password`, { csrf, current_password: "old password 1", new_password: "new password 2", confirm_password: "new password 2" });
    expect(changed.status).toBe(303);
    const token = await until(() => tokens_to("/password/a")[0], 5000, "the logout token");
    expect((await verified(token, rp, pat.id)).sid).toBe(elsewhere.claims.sid as string);
    await sleep(200);
    expect(tokens_to("/password/a")).toHaveLength(1);
    expect(kept.claims.sid).not.toBe(elsewhere.claims.sid);
  });
});

/** A browser signed in at the account page. */
async function signed_in_browser(username: string, password: string): Promise<Browser> {
  const browser = new Browser();
  expect((await account_login(t, browser, username, password)).status).toBe(303);
  return browser;
}
