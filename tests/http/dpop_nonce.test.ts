/**
 * DPoP server nonces (RFC 9449 §8, §9) with IDP_DPOP_REQUIRE_NONCE on: oauth4webapi meets
 * use_dpop_nonce at /token and /userinfo, takes the DPoP-Nonce and retries; the admin API asks
 * for the nonce like /userinfo; a nonce given by one
 * instance is accepted by another sharing the store (two servers, one database); a made-up nonce
 * is refused with a fresh one.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import * as oauth from "oauth4webapi";
import { serve } from "../../src/app/server.ts";
import { random_token } from "../../src/oidc/crypto/secrets.ts";
import { access_token_hash } from "../../src/oidc/tokens/dpop.ts";
import { Browser, authorize } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, TEST_MAIL_WORKER, free_port, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let second: Awaited<ReturnType<typeof serve>>;
let as: oauth.AuthorizationServer;
let app: { client_id: string };
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  t = await start_provider({ config: { dpop: { require_nonce: true } } });
  // Another instance on the same database and issuer (as behind a load balancer).
  second = await serve(t.config, { store: t.store, port: await free_port(), now: t.clock.now, log: () => {}, out: () => {}, mail_worker: TEST_MAIL_WORKER });
  as = await oauth.processDiscoveryResponse(new URL(t.issuer), await oauth.discoveryRequest(new URL(t.issuer), insecure));
  app = { client_id: (await t.add_client({ client_name: "SPA", token_endpoint_auth_method: "none", skip_consent: true })).client.client_id };
});
afterAll(async () => {
  await second.stop();
  await t.stop();
});

/** Runs `request` once, and once more after a use_dpop_nonce (oauth4webapi keeps the nonce it was given). */
async function with_nonce_retry<T>(request: () => Promise<T>): Promise<{ value: T; retried: boolean }> {
  try {
    return { value: await request(), retried: false };
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return { value: await request(), retried: true };
  }
}

test("oauth4webapi retries with the server nonce at /token and /userinfo", async () => {
  const keys = await oauth.generateKeyPair("ES256");
  const DPoP = oauth.DPoP(app as oauth.Client, keys);
  const code = pkce();
  const { callback } = await authorize(new Browser(), authorization_url(t, { code_challenge: code.challenge, code_challenge_method: "S256" }, app.client_id), {
    password: t.password,
    callback_prefix: REDIRECT_URI,
  });
  const params = oauth.validateAuthResponse(as, app, callback, "st-123");
  // A code is single use, so the retry is of the same request only when the first was refused before the grant.
  const token = await with_nonce_retry(async () =>
    oauth.processAuthorizationCodeResponse(as, app, await oauth.authorizationCodeGrantRequest(as, app, oauth.None(), params, REDIRECT_URI, code.verifier, { DPoP, ...insecure }), {
      expectedNonce: "n-456",
    }),
  );
  expect(token.retried).toBe(true);
  expect(token.value.token_type).toBe("dpop");
  const info = await with_nonce_retry(async () => {
    const response = await oauth.userInfoRequest(as, app, token.value.access_token, { DPoP, ...insecure });
    return oauth.processUserInfoResponse(as, app, oauth.skipSubjectCheck, response);
  });
  // The nonce /token gave is good at /userinfo too: no second round trip.
  expect(info.retried).toBe(false);
  expect(info.value.sub).toBe(t.user.id);
});

test("a nonce from one instance is accepted by another; a made-up one gets use_dpop_nonce and a fresh one", async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = await exportJWK(publicKey);
  const proof = (nonce: string | undefined) =>
    new SignJWT({ jti: random_token(16), htm: "POST", htu: `${t.issuer}/token`, iat: Math.floor(Date.now() / 1000), ...(nonce === undefined ? {} : { nonce }) })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
      .sign(privateKey);
  const { client, secret } = await t.add_client({ client_name: "Service", token_endpoint_auth_method: "client_secret_post", grant_types: ["client_credentials"] });
  const token_at = async (base: string, dpop: string) =>
    fetch(new URL("/token", base), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", dpop },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: client.client_id, client_secret: secret! }).toString(),
    });
  const first = await token_at(t.url, await proof(undefined));
  expect(first.status).toBe(400);
  expect(((await first.json()) as { error: string }).error).toBe("use_dpop_nonce");
  const nonce = first.headers.get("dpop-nonce")!;
  expect(nonce.length).toBeGreaterThan(20);
  const elsewhere = await token_at(second.url, await proof(nonce));
  expect(elsewhere.status).toBe(200);
  const body = (await elsewhere.json()) as { token_type: string; access_token: string };
  expect(body.token_type).toBe("DPoP");
  expect(elsewhere.headers.get("dpop-nonce")).not.toBeNull();
  const made_up = await token_at(t.url, await proof("made-up"));
  expect(((await made_up.json()) as { error: string }).error).toBe("use_dpop_nonce");
  expect(made_up.headers.get("dpop-nonce")).not.toBeNull();

  // At the resource: 401 with a DPoP challenge naming use_dpop_nonce, and the nonce.
  const at_userinfo = await fetch(new URL("/userinfo", t.url), {
    headers: {
      authorization: `DPoP ${body.access_token}`,
      dpop: await new SignJWT({ jti: random_token(16), htm: "GET", htu: `${t.issuer}/userinfo`, iat: Math.floor(Date.now() / 1000), ath: access_token_hash(body.access_token) })
        .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
        .sign(privateKey),
    },
  });
  expect(at_userinfo.status).toBe(401);
  expect(at_userinfo.headers.get("www-authenticate")).toContain('DPoP realm="');
  expect(at_userinfo.headers.get("www-authenticate")).toContain('error="use_dpop_nonce"');
  expect(at_userinfo.headers.get("dpop-nonce")).not.toBeNull();
});

test("the admin API asks a DPoP-bound token's proof for the server nonce too, and answers with the current one", async () => {
  const { client, secret } = await t.add_client({
    client_name: "ops",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "admin",
    admin: true,
  });
  const ops: oauth.Client = { client_id: client.client_id };
  const keys = await oauth.generateKeyPair("ES256", { extractable: true });
  const DPoP = oauth.DPoP(ops, keys);
  const token = await with_nonce_retry(async () =>
    oauth.processClientCredentialsResponse(
      as,
      ops,
      await oauth.clientCredentialsGrantRequest(as, ops, oauth.ClientSecretBasic(secret!), { scope: "admin" }, { DPoP, ...insecure }),
    ),
  );
  expect(token.value.token_type).toBe("dpop");
  // The nonce /token gave is good at the admin API too; the answer carries the current one (§8).
  const url = new URL(`${t.issuer}/admin/api/v1/users`);
  const listed = await with_nonce_retry(async () => {
    const response = await oauth.protectedResourceRequest(token.value.access_token, "GET", url, undefined, undefined, { DPoP, ...insecure });
    expect(response.status).toBe(200);
    return response;
  });
  expect(listed.retried).toBe(false);
  expect(listed.value.headers.get("dpop-nonce")).not.toBeNull();
  // A proof of the token's key with a made-up nonce: 401 use_dpop_nonce with a fresh one (§9).
  const refused = await fetch(url.href.replace(t.issuer, t.url), {
    headers: {
      authorization: `DPoP ${token.value.access_token}`,
      dpop: await new SignJWT({
        jti: random_token(16),
        htm: "GET",
        htu: url.href,
        iat: Math.floor(Date.now() / 1000),
        ath: access_token_hash(token.value.access_token),
        nonce: "made-up",
      })
        .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(keys.publicKey) })
        .sign(keys.privateKey),
    },
  });
  expect(refused.status).toBe(401);
  expect(refused.headers.get("www-authenticate")).toContain('error="use_dpop_nonce"');
  expect(refused.headers.get("dpop-nonce")).not.toBeNull();
});
