/**
 * The admin API honours DPoP binding (RFC 9449 §7), through real HTTP: an admin client gets a
 * DPoP-bound token from client_credentials (oauth4webapi) and calls the API with the DPoP scheme
 * and a proof of each request; the same token sent as Bearer (a stolen token without its key) is
 * refused and audited, and so are proofs by another key, of another request, replayed or without
 * `ath` (hand-made with jose).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import * as oauth from "oauth4webapi";
import { access_token_hash } from "../../src/oidc/tokens/dpop.ts";
import { random_token } from "../../src/oidc/crypto/secrets.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const API = "/admin/api/v1";
const insecure = { [oauth.allowInsecureRequests]: true };

let t: TestProvider;
let as: oauth.AuthorizationServer;
let admin: oauth.Client;
let secret: string;

type ProofKey = { privateKey: CryptoKey; jwk: JWK };

async function proof_key(): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, jwk: await exportJWK(publicKey) };
}

/** A hand-made proof of `htm` `path` for `token`; `claims` override the correct values. */
async function proof(key: ProofKey, htm: string, path: string, token: string, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ jti: random_token(16), htm, htu: `${t.issuer}${path}`, iat: Math.floor(Date.now() / 1000), ath: access_token_hash(token), ...claims })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: key.jwk })
    .sign(key.privateKey);
}

function call(method: string, path: string, authorization: string, dpop?: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json", authorization };
  if (dpop !== undefined) headers.dpop = dpop;
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${t.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** A client_credentials token of the admin client, bound to `key` when given (a hand-made proof at /token). */
async function admin_token(key?: ProofKey): Promise<{ access_token: string; token_type: string }> {
  const headers: Record<string, string> = {
    authorization: `Basic ${btoa(`${admin.client_id}:${secret}`)}`,
    "content-type": "application/x-www-form-urlencoded",
  };
  if (key !== undefined) {
    headers.dpop = await new SignJWT({ jti: random_token(16), htm: "POST", htu: `${t.issuer}/token`, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: key.jwk })
      .sign(key.privateKey);
  }
  const response = await fetch(`${t.url}/token`, { method: "POST", headers, body: new URLSearchParams({ grant_type: "client_credentials", scope: "admin" }) });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; token_type: string };
}

async function refusal(response: Response, code: string): Promise<string> {
  expect(response.status).toBe(401);
  expect(response.headers.get("content-type")).toStartWith("application/problem+json");
  expect(((await response.json()) as { code: string }).code).toBe(code);
  return response.headers.get("www-authenticate") ?? "";
}

beforeAll(async () => {
  t = await start_provider();
  as = await oauth.processDiscoveryResponse(new URL(t.issuer), await oauth.discoveryRequest(new URL(t.issuer), insecure));
  const added = await t.add_client({
    client_name: "ops",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "admin",
    admin: true,
  });
  admin = { client_id: added.client.client_id };
  secret = added.secret!;
});
afterAll(() => t.stop());

describe("admin API with DPoP-bound tokens (RFC 9449 §7)", () => {
  test("oauth4webapi: a DPoP-bound admin token works with the DPoP scheme and a proof of each request", async () => {
    const keys = await oauth.generateKeyPair("ES256");
    const DPoP = oauth.DPoP(admin, keys);
    const granted = await oauth.processClientCredentialsResponse(
      as,
      admin,
      await oauth.clientCredentialsGrantRequest(as, admin, oauth.ClientSecretBasic(secret), { scope: "admin" }, { DPoP, ...insecure }),
    );
    expect(granted.token_type).toBe("dpop");
    const listed = await oauth.protectedResourceRequest(granted.access_token, "GET", new URL(`${t.issuer}${API}/users`), undefined, undefined, { DPoP, ...insecure });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { items: { username: string }[] }).items.map((u) => u.username)).toContain("alice");
    // A write, with a proof of POST to its own URL.
    const created = await oauth.protectedResourceRequest(
      granted.access_token,
      "POST",
      new URL(`${t.issuer}${API}/users`),
      new Headers({ "content-type": "application/json" }),
      JSON.stringify({ username: "dpop-made", password: "a long enough passphrase 42" }),
      { DPoP, ...insecure },
    );
    expect(created.status).toBe(201);
    expect(await t.store.get_user_by_username("dpop-made")).not.toBeNull();
  });

  test("the bound token sent as Bearer (stolen, without its key) is refused with a DPoP challenge, and audited", async () => {
    const key = await proof_key();
    const bound = await admin_token(key);
    expect(bound.token_type).toBe("DPoP");
    const before = (await t.store.list_audit_events({ type: "admin_api", client_id: admin.client_id })).length;
    const challenge = await refusal(await call("GET", `${API}/users`, `Bearer ${bound.access_token}`), "invalid_token");
    expect(challenge).toStartWith("DPoP ");
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('algs="ES256 PS256 RS256 EdDSA"');
    // Nothing was done with it: a create as Bearer makes no user.
    await refusal(
      await call("POST", `${API}/users`, `Bearer ${bound.access_token}`, undefined, { username: "thief-made", password: "a long enough passphrase 42" }),
      "invalid_token",
    );
    expect(await t.store.get_user_by_username("thief-made")).toBeNull();
    const events = await t.store.list_audit_events({ type: "admin_api", client_id: admin.client_id });
    expect(events.length).toBe(before + 2);
    expect(events.filter((e) => e.outcome === "failure").length).toBeGreaterThanOrEqual(2);
    // With its key it works.
    expect((await call("GET", `${API}/users`, `DPoP ${bound.access_token}`, await proof(key, "GET", `${API}/users`, bound.access_token))).status).toBe(200);
  });

  test("a proof by another key, of another request, replayed, without ath or missing: refused, nothing done", async () => {
    const key = await proof_key();
    const bound = await admin_token(key);
    const dpop = `DPoP ${bound.access_token}`;
    const path = `${API}/users`;
    // Another key than the token's (the thief's own key).
    expect(await refusal(await call("GET", path, dpop, await proof(await proof_key(), "GET", path, bound.access_token)), "invalid_token")).toContain('error="invalid_token"');
    // A proof of another URL, another method, another token, without ath.
    expect(await refusal(await call("GET", path, dpop, await proof(key, "GET", `${API}/clients`, bound.access_token)), "invalid_dpop_proof")).toStartWith("DPoP ");
    await refusal(
      await call("POST", path, dpop, await proof(key, "GET", path, bound.access_token), { username: "wrong-htm", password: "a long enough passphrase 42" }),
      "invalid_dpop_proof",
    );
    expect(await t.store.get_user_by_username("wrong-htm")).toBeNull();
    await refusal(await call("GET", path, dpop, await proof(key, "GET", path, bound.access_token, { ath: access_token_hash("another token") })), "invalid_dpop_proof");
    await refusal(await call("GET", path, dpop, await proof(key, "GET", path, bound.access_token, { ath: undefined })), "invalid_dpop_proof");
    // No proof at all with the DPoP scheme.
    await refusal(await call("GET", path, dpop), "invalid_dpop_proof");
    // A proof works once (jti).
    const once = await proof(key, "GET", path, bound.access_token);
    expect((await call("GET", path, dpop, once)).status).toBe(200);
    await refusal(await call("GET", path, dpop, once), "invalid_dpop_proof");
  });

  test("a bearer admin token still works as Bearer, and is refused with the DPoP scheme", async () => {
    const plain = await admin_token();
    expect(plain.token_type).toBe("Bearer");
    expect((await call("GET", `${API}/users`, `Bearer ${plain.access_token}`)).status).toBe(200);
    const key = await proof_key();
    await refusal(await call("GET", `${API}/users`, `DPoP ${plain.access_token}`, await proof(key, "GET", `${API}/users`, plain.access_token)), "invalid_token");
  });

  test("the OpenAPI document describes the DPoP scheme", async () => {
    const doc = (await (await fetch(`${t.url}${API}/openapi.json`)).json()) as {
      info: { description: string };
      components: { securitySchemes: Record<string, { description: string }> };
    };
    expect(doc.info.description).toContain("Authorization: DPoP");
    expect(doc.components.securitySchemes.admin_token!.description).toContain("RFC 9449");
  });
});
