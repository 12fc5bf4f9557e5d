/**
 * What the upstream leg refuses (OIDC Core §3.1.3.7, RFC 9207, RFC 6749 §10.12): an ID Token
 * for another audience, with another nonce, from another issuer, or signed by another key, and
 * a state replayed or taken to another browser. The upstream is a small OpenID Connect server
 * (serve_fetch, tokens signed with jose) whose next ID Token carries one chosen defect; a valid
 * one first shows the fake is accepted when nothing is wrong. Driven by the fetch Browser.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { randomBytes } from "node:crypto";
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from "jose";
import { Browser } from "../helpers/browser.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";

type Defect = "none" | "aud" | "nonce" | "iss" | "signature";

let t: TestProvider;
let fake: FetchServer;
let fake_url: string;
let defect: Defect = "none";
let subject = 0;
let key: CryptoKey;
let other_key: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256");
  key = pair.privateKey;
  other_key = (await generateKeyPair("ES256")).privateKey;
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
        const nonce = nonces.get(form.get("code") ?? "") ?? "";
        const now = Math.floor(Date.now() / 1000);
        const id_token = await new SignJWT({ nonce: defect === "nonce" ? "another-nonce" : nonce, email: `user${subject}@fake.example`, email_verified: true })
          .setProtectedHeader({ alg: "ES256", kid: "k1" })
          .setIssuer(defect === "iss" ? "https://elsewhere.example" : fake_url)
          .setAudience(defect === "aud" ? "someone-else" : "our-idp")
          .setSubject(`user-${subject}`)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .sign(defect === "signature" ? other_key : key);
        return Response.json({ access_token: randomBytes(16).toString("hex"), token_type: "Bearer", expires_in: 300, id_token });
      }
      return new Response("not found", { status: 404 });
    },
    { port },
  );
  t = await start_provider({ config: { outbound: { allow_http: true, allow: ["127.0.0.1"] }, federation: { secret_key: randomBytes(32).toString("base64url") } } });
  await t.store.create_upstream(new_upstream(t.config, { name: "fake", display_name: "Fake", issuer: fake_url, client_id: "our-idp", client_secret: "fake-secret" }));
});

afterAll(async () => {
  await fake.stop();
  await t.stop();
});

/** Start, the upstream's redirect, and our callback's answer (with the callback URL). */
async function round_trip(browser = new Browser()): Promise<{ response: Response; callback: string; browser: Browser }> {
  subject += 1;
  const start = await browser.get(`${t.issuer}/federation/fake/start`);
  expect(start.status).toBe(302);
  const at_upstream = await browser.get(start.headers.get("location")!);
  const callback = at_upstream.headers.get("location")!;
  expect(callback.startsWith(`${t.issuer}/federation/fake/callback?`)).toBe(true);
  return { response: await browser.get(callback), callback, browser };
}

async function last_reason(): Promise<string> {
  const [event] = await t.store.list_audit_events({ type: "federation_login", limit: 1 });
  return String((event?.details as { reason?: string } | null)?.reason ?? "");
}

describe("the upstream's answer", () => {
  test("a valid ID Token signs in (the fake is accepted when nothing is wrong)", async () => {
    defect = "none";
    const { response } = await round_trip();
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("You are signed in with Fake");
    expect(await t.store.get_identity("fake", `user-${subject}`)).not.toBeNull();
  });

  for (const [kind, words] of [
    ["aud", "another audience"],
    ["nonce", "another nonce"],
    ["iss", "another issuer"],
    ["signature", "another key's signature"],
  ] as const) {
    test(`an ID Token with ${words} is refused and audited; no account is made`, async () => {
      defect = kind;
      try {
        const { response } = await round_trip();
        expect(response.status).toBe(403);
        expect(await response.text()).toContain("could not be verified");
        expect(await last_reason()).toContain("refused");
        expect(await t.store.get_identity("fake", `user-${subject}`)).toBeNull();
      } finally {
        defect = "none";
      }
    });
  }

  test("a state is single use, and bound to the browser that started the sign-in", async () => {
    const { response, callback, browser } = await round_trip();
    expect(response.status).toBe(200);
    const replay = await browser.get(callback);
    expect(replay.status).toBe(403);
    expect(await last_reason()).toBe("unknown or expired state");

    // Started in one browser, the upstream's answer delivered to another.
    subject += 1;
    const first = new Browser();
    const start = await first.get(`${t.issuer}/federation/fake/start`);
    const answer = (await first.get(start.headers.get("location")!)).headers.get("location")!;
    const other = await new Browser().get(answer);
    expect(other.status).toBe(403);
    expect(await last_reason()).toBe("state of another browser");
  });
});
