/**
 * Revoking a compromised signing key (oidc/keys/keyring.ts `revoke`, oidc/admin/keys.ts): through
 * the admin API, the console (a confirmation page) and the key ring itself. After it the JWKS
 * lacks the kid, an ID Token it signed is refused as id_token_hint, a JWT access token it signed
 * is refused at introspection and /userinfo, new tokens are signed by another key; an instance
 * sharing the database sees it within its poll interval. Plain HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KeyRing, type KeyRingOptions } from "../../src/oidc/keys/keyring.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { confirm, console_browser, console_page } from "../helpers/admin_console.ts";
import { Browser } from "../helpers/browser.ts";
import { authorization_url, basic, get_code, pkce, redeem, token_request, userinfo } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { rejection } from "../helpers/settle.ts";
import { setTimeout as sleep } from "node:timers/promises";

const API = "/admin/api/v1";
const DOCS = "https://docs.example.com/";

const kid_of = (jwt: string) => (JSON.parse(atob(jwt.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))) as { kid: string }).kid;

let t: TestProvider;
let admin_token: string;
let service: { client_id: string; secret: string };

async function jwks_kids(): Promise<string[]> {
  return ((await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

async function id_token(): Promise<string> {
  const { code, pkce: challenge } = await get_code(t);
  return ((await (await redeem(t, code, challenge!.verifier)).json()) as { id_token: string }).id_token;
}

/** A JWT access token (RFC 9068) for the DOCS resource, from client_credentials. */
async function jwt_access_token(): Promise<string> {
  const answer = await token_request(t, { grant_type: "client_credentials", scope: "read:docs", resource: DOCS }, { method: "basic", ...service });
  const body = (await answer.json()) as { access_token: string };
  expect(body.access_token.split(".")).toHaveLength(3);
  return body.access_token;
}

async function introspect(token: string): Promise<{ active: boolean }> {
  const answer = await fetch(`${t.url}/introspect`, {
    method: "POST",
    headers: { authorization: basic(service.client_id, service.secret), "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ token }),
  });
  return (await answer.json()) as { active: boolean };
}

/** /authorize with `hint` as id_token_hint: the error the client receives (null: none). */
async function hint_error(hint: string): Promise<string | null> {
  const response = await new Browser().get(authorization_url(t, { id_token_hint: hint, prompt: "none", code_challenge: pkce().challenge, code_challenge_method: "S256" }));
  const location = response.headers.get("location");
  if (location === null || !location.startsWith(REDIRECT_URI)) return `status ${response.status}`;
  return new URL(location).searchParams.get("error");
}

beforeAll(async () => {
  t = await start_provider();
  await t.store.create_resource_server({ uri: DOCS, scopes: ["read:docs"], access_token_format: "jwt", access_token_ttl: 300 });
  const svc = await t.add_client({
    client_name: "Service",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "read:docs",
    token_endpoint_auth_method: "client_secret_basic",
  });
  service = { client_id: svc.client.client_id, secret: svc.secret! };
  const ops = await t.add_client({
    client_name: "Ops",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "admin",
    admin: true,
    token_endpoint_auth_method: "client_secret_basic",
  });
  const answer = await token_request(t, { grant_type: "client_credentials", scope: "admin" }, { method: "basic", client_id: ops.client.client_id, secret: ops.secret! });
  admin_token = ((await answer.json()) as { access_token: string }).access_token;
});

afterAll(() => t.stop());

describe("revoking a signing key", () => {
  test("admin API: the active key leaves the JWKS, its ID Token and JWT access token are refused, another key signs", async () => {
    const token = await id_token();
    const at = await jwt_access_token();
    const kid = kid_of(token);
    expect(kid_of(at)).toBe(kid);
    expect(await jwks_kids()).toContain(kid);
    expect(await hint_error(token)).toBe("login_required"); // a valid hint: only the missing session is refused
    expect((await introspect(at)).active).toBe(true);

    const answer = await fetch(`${t.url}${API}/keys/${kid}/revoke`, { method: "POST", headers: { authorization: `Bearer ${admin_token}`, accept: "application/json" } });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { revoked: { kid: string; status: string }; active: Record<string, string> };
    expect(body.revoked).toMatchObject({ kid, status: "active" });
    expect(body.active.RS256).not.toBe(kid);

    expect(await jwks_kids()).not.toContain(kid);
    expect(await hint_error(token)).toBe("invalid_request");
    expect((await introspect(at)).active).toBe(false);
    expect((await userinfo(t, at)).status).toBe(401);
    expect(t.provider.keys.signing_algs()).toEqual(t.config.signing_algs);
    const fresh = await id_token();
    expect(kid_of(fresh)).toBe(body.active.RS256!);
    expect(await hint_error(fresh)).toBe("login_required");
    expect(kid_of(await jwt_access_token())).toBe(body.active.RS256!);

    const events = await t.store.list_audit_events({ type: "admin_api", limit: 10 });
    expect(events.some((event) => event.details?.action === "key_revoked" && event.details?.kid === kid)).toBe(true);
    // An unknown kid is a 404 problem, and changes nothing.
    const kids = await jwks_kids();
    expect((await fetch(`${t.url}${API}/keys/nope/revoke`, { method: "POST", headers: { authorization: `Bearer ${admin_token}` } })).status).toBe(404);
    expect(await jwks_kids()).toEqual(kids);
  });

  test("console: the keys page shows the states and schedule; the revocation goes through its confirmation page", async () => {
    const root = await t.add_user({ username: "keyroot" });
    const admins = (await t.store.get_group_by_name("admins")) ?? (await t.store.create_group({ name: "admins", description: null }));
    await t.store.add_group_member(admins.id, root.id, t.clock.now());
    const browser = await console_browser(t, root);
    const next = t.provider.keys.list().find((key) => key.alg === "RS256" && key.status === "next")!.kid;
    const { html } = await console_page(browser, `${t.url}/admin/keys`);
    expect(html).toContain("Rotation schedule");
    expect(html).toContain(`/admin/keys/confirm?action=revoke&amp;kid=${next}`);
    // Not without the confirmation's token and password.
    const forged = await browser.post(`${t.url}/admin/keys/${next}/revoke`, { password: t.password });
    expect(forged.status).toBe(403);
    expect(await jwks_kids()).toContain(next);

    const done = await confirm(browser, `${t.url}/admin/keys/confirm?action=revoke&kid=${next}`, t.password);
    expect(done.status).toBe(303);
    expect(done.location).toEndWith("/admin/keys?done=key_revoked");
    expect(await jwks_kids()).not.toContain(next);
    // A new next key is published in its place.
    expect(t.provider.keys.list().filter((key) => key.alg === "RS256" && key.status === "next")).toHaveLength(1);
    const events = await t.store.list_audit_events({ type: "admin_console", limit: 10 });
    expect(events.some((event) => event.details?.action === "key_revoked" && event.details?.kid === next)).toBe(true);
  });
});

describe("two instances on one database", () => {
  let clock = 1_800_000_000;
  const options: KeyRingOptions = { algs: ["RS256", "ES256"], retire_after_seconds: 3600, publish_lead_seconds: 10, now: () => clock };
  const opened: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  test("the other instance stops trusting and publishing the key at its next poll, and signs with another", async () => {
    const dir = mkdtempSync(join(tmpdir(), "idp-revoke-"));
    dirs.push(dir);
    const [store_a, store_b] = await Promise.all([open_store(`sqlite:${join(dir, "idp.sqlite")}`), open_store(`sqlite:${join(dir, "idp.sqlite")}`)]);
    opened.push(store_a, store_b);
    const a = await KeyRing.load(store_a, options);
    const b = await KeyRing.load(store_b, options);
    clock += 600;
    const kid = a.active_kid("RS256");
    expect(b.active_kid("RS256")).toBe(kid);
    const token = await b.sign({ iss: "https://op.example", sub: "u1", exp: clock + 3600 });
    b.start_polling(50);
    try {
      await a.revoke(kid);
      expect(a.active_kid("RS256")).not.toBe(kid);
      await sleep(300);
      const published = (JSON.parse(new TextDecoder().decode(b.jwks().body)) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
      expect(published).not.toContain(kid);
      expect(b.active_kid("RS256")).toBe(a.active_kid("RS256"));
      expect(await rejection(b.verify(token))).toMatchObject({ reason: "unknown_key" });
      expect(kid_of(await b.sign({ sub: "u1" }))).not.toBe(kid);
    } finally {
      b.stop_polling();
    }
  });

  test("revoking the only key of an alg (no next key) creates one: the alg never lacks a signer", async () => {
    const store = await open_store("sqlite::memory:");
    opened.push(store);
    const ring = await KeyRing.load(store, { ...options, publish_next: false });
    const kid = ring.active_kid("ES256");
    const done = await ring.revoke(kid);
    expect(done?.active.get("ES256")).toBeDefined();
    expect(done?.active.get("ES256")).not.toBe(kid);
    expect(ring.signing_algs()).toEqual(["RS256", "ES256"]);
    expect(await ring.revoke("no-such-kid")).toBeNull();
  });
});
