/**
 * A link to an upstream account counts only under the issuer and subject claim it was made
 * under (OIDC Core §2: a subject is unique only within its issuer; migration 021,
 * oidc/federation/identity_source.ts). A sign-in whose subject string equals that of a link made
 * at another issuer is not signed in to that link's account: the user is unknown, and the
 * upstream's policy applies (here jit: a new account, whose link replaces the stale one). A link
 * made under the current source signs in as before. The upstream is a small OpenID Connect server
 * (serve_fetch, tokens signed with jose); driven by the fetch Browser.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { randomBytes } from "node:crypto";
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from "jose";
import { Browser } from "../helpers/browser.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";

let t: TestProvider;
let fake: FetchServer;
let fake_url: string;
let key: CryptoKey;
/** The `sub` of the next ID Token. */
let subject = "";

beforeAll(async () => {
  const pair = await generateKeyPair("ES256");
  key = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  const port = await free_port();
  fake_url = `http://127.0.0.1:${port}`;
  const nonces = new Map<string, string>();
  fake = await serve_fetch(
    async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/.well-known/openid-configuration") {
        return Response.json({
          issuer: fake_url,
          authorization_endpoint: `${fake_url}/authorize`,
          token_endpoint: `${fake_url}/token`,
          jwks_uri: `${fake_url}/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["ES256"],
        });
      }
      if (url.pathname === "/jwks") return Response.json({ keys: [jwk] });
      if (url.pathname === "/authorize") {
        const code = randomBytes(8).toString("hex");
        nonces.set(code, url.searchParams.get("nonce") ?? "");
        const back = new URL(url.searchParams.get("redirect_uri")!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state")!);
        return Response.redirect(back.href, 302);
      }
      if (url.pathname === "/token" && request.method === "POST") {
        const form = new URLSearchParams(await request.text());
        const now = Math.floor(Date.now() / 1000);
        const id_token = await new SignJWT({ nonce: nonces.get(form.get("code") ?? "") ?? "", email: `${subject}@new-issuer.example`, email_verified: true })
          .setProtectedHeader({ alg: "ES256", kid: "k1" })
          .setIssuer(fake_url)
          .setAudience("our-idp")
          .setSubject(subject)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .sign(key);
        return Response.json({ access_token: randomBytes(16).toString("hex"), token_type: "Bearer", expires_in: 300, id_token });
      }
      return new Response("not found", { status: 404 });
    },
    { port },
  );
  t = await start_provider({ config: { outbound: { allow_http: true, allow: ["127.0.0.1"] }, federation: { secret_key: randomBytes(32).toString("base64url") } } });
  await t.store.create_upstream(
    new_upstream(t.config, { name: "fake", display_name: "Fake", issuer: fake_url, client_id: "our-idp", client_secret: "fake-secret", policy: "jit" }),
  );
});

afterAll(async () => {
  await fake.stop();
  await t.stop();
});

/** Signs in through the upstream as `sub`; returns our callback's answer. */
async function sign_in_as(sub: string): Promise<Response> {
  subject = sub;
  const browser = new Browser();
  const start = await browser.get(`${t.issuer}/federation/fake/start`);
  expect(start.status).toBe(302);
  const at_upstream = await browser.get(start.headers.get("location")!);
  return browser.get(at_upstream.headers.get("location")!);
}

describe("links and the issuer they were made under", () => {
  test("a link made under the upstream's current issuer and subject claim signs in to its account", async () => {
    const owner = await t.add_user({ username: "current-owner" });
    await t.store.link_identity({ upstream: "fake", subject: "same-issuer", user_id: owner.id, email: null, ...identity_source((await t.store.get_upstream("fake"))!) });
    const response = await sign_in_as("same-issuer");
    expect(response.status).toBe(200);
    expect((await t.store.list_sessions_for_user(owner.id)).length).toBe(1);
    expect((await t.store.get_identity("fake", "same-issuer"))!.user_id).toBe(owner.id);
  });

  for (const [what, stale] of [
    ["another issuer", { issuer: "https://old-issuer.example", subject_claim: "sub" }],
    ["another subject claim", { issuer: "", subject_claim: "oid" }],
  ] as const) {
    test(`a link made under ${what} does not sign in to its account: the user is new (jit), and the stale link is replaced and audited`, async () => {
      const sub = `victim-${stale.subject_claim}`;
      const victim = await t.add_user({ username: `victim-${stale.subject_claim}` });
      await t.store.link_identity({ upstream: "fake", subject: sub, user_id: victim.id, email: null, issuer: stale.issuer || fake_url, subject_claim: stale.subject_claim });
      const response = await sign_in_as(sub);
      expect(response.status).toBe(200);
      expect(await t.store.list_sessions_for_user(victim.id)).toEqual([]);
      const link = (await t.store.get_identity("fake", sub))!;
      expect(link.user_id).not.toBe(victim.id);
      expect(link).toMatchObject(identity_source((await t.store.get_upstream("fake"))!));
      expect((await t.store.get_user_by_id(link.user_id))!.email).toBe(`${sub}@new-issuer.example`);
      expect((await t.store.list_sessions_for_user(link.user_id)).length).toBe(1);
      const [event] = await t.store.list_audit_events({ type: "federation_unlink", limit: 1 });
      expect(event).toMatchObject({ user_id: victim.id, outcome: "success", details: { upstream: "fake", reason: "made under another issuer or subject claim" } });
    });
  }
});
