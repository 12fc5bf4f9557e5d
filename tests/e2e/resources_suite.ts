/**
 * Resource indicators (RFC 8707), JWT access tokens (RFC 9068) and token exchange (RFC 8693)
 * through real HTTP, with oauth4webapi as the client and as the resource server's JWT validator
 * (validateJwtAccessToken), and jose verifying the JWT against our JWKS. Happy paths: a code
 * flow naming two resources, the code exchange and refreshes narrowing to each, client
 * credentials with a resource, impersonation and delegation (`act`). Refusals: an unregistered
 * or malformed resource at /authorize, a resource the grant did not authorize, several resources
 * at once, a JWT access token at /userinfo, a revoked JWT access token, and token exchange
 * without a policy, outside the policy's mode, clients or resources, with a revoked or foreign
 * subject token, or a wrong token type. Run on SQLite (resources.test.ts) and PostgreSQL
 * (resources_postgres.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { calculateJwkThumbprint, createRemoteJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { Browser, authorize, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, basic, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

/** A fresh database for the provider: its URL, and how to remove it afterwards. */
export type SuiteDatabase = { url: string; drop(): Promise<void> };

const DOCS = "https://docs.example.com/api";
const MAIL = "https://mail.example.com/";
const OTHER = "https://other.example.com/";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
const insecure = { [oauth.allowInsecureRequests]: true };

type Party = { client: oauth.Client; auth: oauth.ClientAuth; secret: string };

let t: TestProvider;
let as: oauth.AuthorizationServer;
let web: Party;
let svc: Party;
let gateway: Party;
let impersonator: Party;
let stranger: Party;
let api: Party;
let db: SuiteDatabase;

async function party(metadata: Record<string, unknown>): Promise<Party> {
  const { client, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", ...metadata });
  return { client: { client_id: client.client_id }, auth: oauth.ClientSecretBasic(secret!), secret: secret! };
}

/** A code flow of `web` naming `resources` at /authorize; the callback's parameters. */
async function code_for(resources: string[], scope = "openid offline_access read:docs write:docs read:mail"): Promise<{ params: URLSearchParams; verifier: string }> {
  const code = pkce();
  const url = new URL(authorization_url(t, { scope, code_challenge: code.challenge, code_challenge_method: "S256" }, web.client.client_id));
  for (const resource of resources) url.searchParams.append("resource", resource);
  const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
  return { params: oauth.validateAuthResponse(as, web.client, callback, "st-123"), verifier: code.verifier };
}

/** The error of a token endpoint answer, through oauth4webapi's processing. */
async function refusal(
  response: Promise<Response>,
  process: (response: Response) => Promise<unknown> = (r) => oauth.processGenericTokenEndpointResponse(as, web.client, r),
): Promise<{ error: string; error_description: string }> {
  try {
    await process(await response);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return { error: error.error, error_description: error.error_description ?? "" };
    throw error;
  }
  throw new Error("expected the token endpoint to refuse");
}

async function introspect(token: string, by: Party = api): Promise<Record<string, unknown>> {
  const response = await oauth.introspectionRequest(as, by.client, by.auth, token, insecure);
  return (await oauth.processIntrospectionResponse(as, by.client, response)) as Record<string, unknown>;
}

function exchange(by: Party, parameters: Record<string, string>): Promise<Response> {
  return oauth.genericTokenEndpointRequest(as, by.client, by.auth, TOKEN_EXCHANGE, parameters, insecure);
}

/** What a resource server does: oauth4webapi validates the JWT access token for its audience. */
function validate_at(token: string, audience: string): Promise<oauth.JWTAccessTokenClaims> {
  const request = new Request(`${audience}things`, { headers: { authorization: `Bearer ${token}` } });
  return oauth.validateJwtAccessToken(as, request, audience, insecure);
}

/** The suite on a provider backed by `database`. */
export function resources_suite(label: string, database: () => Promise<SuiteDatabase>): void {
  describe(`resource servers and token exchange (${label})`, () => {
    beforeAll(async () => {
      db = await database();
      t = await start_provider({ database_url: db.url });
      as = await oauth.processDiscoveryResponse(new URL(t.issuer), await oauth.discoveryRequest(new URL(t.issuer), insecure));
      await t.store.create_resource_server({ uri: DOCS, scopes: ["read:docs", "write:docs"], access_token_format: "jwt", access_token_ttl: 300 });
      await t.store.create_resource_server({ uri: MAIL, scopes: ["read:mail"] });
      await t.store.create_resource_server({ uri: OTHER, scopes: ["read:docs"] });
      web = await party({
        client_name: "Web",
        grant_types: ["authorization_code", "refresh_token"],
        scope: "openid offline_access read:docs write:docs read:mail",
        skip_consent: true,
      });
      svc = await party({ client_name: "Service", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "read:docs read:mail" });
      const policy = { subject_clients: [web.client.client_id], impersonation: true, delegation: true, resources: [DOCS, MAIL] };
      gateway = await party({
        client_name: "Gateway",
        grant_types: [TOKEN_EXCHANGE, "client_credentials"],
        response_types: [],
        redirect_uris: [],
        scope: "read:docs",
        token_exchange: policy,
      });
      impersonator = await party({
        client_name: "Impersonation only",
        grant_types: [TOKEN_EXCHANGE],
        response_types: [],
        redirect_uris: [],
        token_exchange: { ...policy, delegation: false },
      });
      stranger = await party({ client_name: "No policy", grant_types: [TOKEN_EXCHANGE], response_types: [], redirect_uris: [] });
      api = await party({ client_name: "API", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], resource_server: true });
    }, 60_000);
    afterAll(async () => {
      await t.stop();
      await db.drop();
    });

    describe("discovery", () => {
      test("grant_types_supported lists token exchange; nothing claims more", () => {
        expect(as.grant_types_supported).toContain(TOKEN_EXCHANGE);
      });
    });

    describe("resource indicators and JWT access tokens", () => {
      let refresh_token: string;
      let docs_at: string;

      test("a code flow naming two resources: the token for DOCS is an RFC 9068 JWT with the DOCS scopes only", async () => {
        const { params, verifier } = await code_for([DOCS, MAIL]);
        const response = await oauth.authorizationCodeGrantRequest(as, web.client, web.auth, params, REDIRECT_URI, verifier, {
          additionalParameters: { resource: DOCS },
          ...insecure,
        });
        const tokens = await oauth.processAuthorizationCodeResponse(as, web.client, response, { expectedNonce: "n-456", requireIdToken: true });
        // RFC 8707 §2.2 + resources.ts: the access token's scope is the granted scopes DOCS accepts.
        expect(tokens.scope).toBe("read:docs write:docs");
        expect(tokens.expires_in).toBe(300);
        expect(oauth.getValidatedIdTokenClaims(tokens)!.sub).toBe(t.user.id);
        docs_at = tokens.access_token;
        refresh_token = tokens.refresh_token!;

        expect(decodeProtectedHeader(docs_at)).toMatchObject({ typ: "at+jwt", alg: "RS256" });
        const claims = await validate_at(docs_at, DOCS);
        expect(claims).toMatchObject({ iss: t.issuer, aud: DOCS, sub: t.user.id, client_id: web.client.client_id, scope: "read:docs write:docs" });
        expect(typeof claims.jti).toBe("string");
        expect(claims.exp - claims.iat).toBe(300);
        // jose against our published JWKS, as any resource server would.
        const { payload, protectedHeader } = await jwtVerify(docs_at, createRemoteJWKSet(new URL(as.jwks_uri!)), { issuer: t.issuer, audience: DOCS, typ: "at+jwt" });
        expect(protectedHeader.kid).toBeString();
        expect(payload.auth_time).toBeNumber();
        expect(payload.amr).toEqual(["pwd"]);
        expect(payload).not.toHaveProperty("groups");
        // Not for another audience.
        expect(
          await validate_at(docs_at, MAIL).then(
            () => "accepted",
            () => "refused",
          ),
        ).toBe("refused");
      });

      test("introspection of the JWT access token: active, aud DOCS; /userinfo refuses it (not its audience)", async () => {
        expect(await introspect(docs_at)).toMatchObject({ active: true, aud: DOCS, scope: "read:docs write:docs", client_id: web.client.client_id, sub: t.user.id });
        const userinfo = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${docs_at}` } });
        expect(userinfo.status).toBe(401);
        expect(userinfo.headers.get("www-authenticate")).toContain("invalid_token");
      });

      test("a refresh narrows to the other authorized resource: an opaque token for MAIL with read:mail", async () => {
        const response = await oauth.refreshTokenGrantRequest(as, web.client, web.auth, refresh_token, { additionalParameters: { resource: MAIL }, ...insecure });
        const tokens = await oauth.processRefreshTokenResponse(as, web.client, response);
        expect(tokens.scope).toBe("read:mail");
        expect(tokens.access_token).not.toContain(".");
        expect(await introspect(tokens.access_token)).toMatchObject({ active: true, aud: MAIL, scope: "read:mail" });
        refresh_token = tokens.refresh_token!;
      });

      test("a refresh naming a registered resource the grant did not authorize is invalid_target, and does not spend the token", async () => {
        const wrong = await refusal(oauth.refreshTokenGrantRequest(as, web.client, web.auth, refresh_token, { additionalParameters: { resource: OTHER }, ...insecure }), (r) =>
          oauth.processRefreshTokenResponse(as, web.client, r),
        );
        expect(wrong).toEqual({ error: "invalid_target", error_description: `resource ${OTHER} was not authorized for this grant` });
        // Two authorized resources and none named: the client must say which (resources.ts).
        const unnamed = await refusal(oauth.refreshTokenGrantRequest(as, web.client, web.auth, refresh_token, insecure), (r) =>
          oauth.processRefreshTokenResponse(as, web.client, r),
        );
        expect(unnamed.error).toBe("invalid_target");
        const empty = await refusal(oauth.refreshTokenGrantRequest(as, web.client, web.auth, refresh_token, { additionalParameters: { resource: "" }, ...insecure }), (r) =>
          oauth.processRefreshTokenResponse(as, web.client, r),
        );
        expect(empty).toEqual({ error: "invalid_target", error_description: "resource is empty" });
        const ok = await oauth.processRefreshTokenResponse(
          as,
          web.client,
          await oauth.refreshTokenGrantRequest(as, web.client, web.auth, refresh_token, { additionalParameters: { resource: DOCS }, ...insecure }),
        );
        expect((await validate_at(ok.access_token, DOCS)).scope).toBe("read:docs write:docs");
      });

      test("revoking a JWT access token makes introspection answer inactive", async () => {
        const revoked = await oauth.revocationRequest(as, web.client, web.auth, docs_at, insecure);
        await oauth.processRevocationResponse(revoked);
        expect(await introspect(docs_at)).toEqual({ active: false });
      });

      test("a code with one resource needs no resource at /token; without any resource tokens stay opaque and work at /userinfo", async () => {
        const one = await code_for([MAIL], "openid read:mail");
        const tokens = await oauth.processAuthorizationCodeResponse(
          as,
          web.client,
          await oauth.authorizationCodeGrantRequest(as, web.client, web.auth, one.params, REDIRECT_URI, one.verifier, insecure),
          { expectedNonce: "n-456" },
        );
        expect(tokens.scope).toBe("read:mail");
        expect(await introspect(tokens.access_token)).toMatchObject({ aud: MAIL });

        const none = await code_for([], "openid read:docs");
        const plain = await oauth.processAuthorizationCodeResponse(
          as,
          web.client,
          await oauth.authorizationCodeGrantRequest(as, web.client, web.auth, none.params, REDIRECT_URI, none.verifier, insecure),
          { expectedNonce: "n-456" },
        );
        expect(plain.scope).toBe("openid read:docs");
        expect(await introspect(plain.access_token)).not.toHaveProperty("aud");
        const userinfo = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${plain.access_token}` } });
        expect(await userinfo.json()).toEqual({ sub: t.user.id });
      });

      test("a resource at /token that the code was not authorized for is invalid_target", async () => {
        const { params, verifier } = await code_for([MAIL], "openid read:mail");
        const error = await refusal(
          oauth.authorizationCodeGrantRequest(as, web.client, web.auth, params, REDIRECT_URI, verifier, { additionalParameters: { resource: DOCS }, ...insecure }),
          (r) => oauth.processAuthorizationCodeResponse(as, web.client, r, { expectedNonce: "n-456" }),
        );
        expect(error).toEqual({ error: "invalid_target", error_description: `resource ${DOCS} was not authorized for this grant` });
      });

      test("a client without a registered scope list may ask for the scopes of a resource it names: consent shows them, the token carries them", async () => {
        const open = await party({ client_name: "Open", grant_types: ["authorization_code"] });
        const code = pkce();
        const url = new URL(authorization_url(t, { scope: "openid read:docs unheard-of", code_challenge: code.challenge, code_challenge_method: "S256" }, open.client.client_id));
        url.searchParams.append("resource", DOCS);
        const browser = new Browser();
        const login = await (await browser.get(new URL((await browser.get(url.href)).headers.get("location")!, url).href)).text();
        const signed = await browser.post(form_action(login)!, { csrf: hidden_field(login, "csrf")!, username: "alice", password: t.password });
        expect(signed.headers.get("location")).toEndWith("/consent");
        const consent = await (await browser.get(new URL(signed.headers.get("location")!, url).href)).text();
        expect(consent).toContain("read:docs");
        // A scope no resource and no OpenID scope knows is ignored, as before (scopes.ts).
        expect(consent).not.toContain("unheard-of");
        let answer = await browser.post(form_action(consent)!, { csrf: hidden_field(consent, "csrf")!, decision: "allow" });
        while (!answer.headers.get("location")!.startsWith(REDIRECT_URI)) answer = await browser.get(new URL(answer.headers.get("location")!, url).href);
        const params = oauth.validateAuthResponse(as, open.client, new URL(answer.headers.get("location")!), "st-123");
        const tokens = await oauth.processAuthorizationCodeResponse(
          as,
          open.client,
          await oauth.authorizationCodeGrantRequest(as, open.client, open.auth, params, REDIRECT_URI, code.verifier, insecure),
          { expectedNonce: "n-456" },
        );
        expect(tokens.scope).toBe("read:docs");
        expect(await validate_at(tokens.access_token, DOCS)).toMatchObject({ scope: "read:docs", client_id: open.client.client_id });
      });

      test("without naming its resource, or naming another, a client without a scope list gets no resource scope", async () => {
        const open = await party({ client_name: "Open, no resource", grant_types: ["authorization_code"], skip_consent: true });
        for (const [resources, granted] of [
          [[], "openid"],
          [[MAIL], undefined],
        ] as const) {
          const code = pkce();
          const url = new URL(authorization_url(t, { scope: "openid read:docs", code_challenge: code.challenge, code_challenge_method: "S256" }, open.client.client_id));
          for (const resource of resources) url.searchParams.append("resource", resource);
          const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
          const params = oauth.validateAuthResponse(as, open.client, callback, "st-123");
          const tokens = await oauth.processAuthorizationCodeResponse(
            as,
            open.client,
            await oauth.authorizationCodeGrantRequest(as, open.client, open.auth, params, REDIRECT_URI, code.verifier, insecure),
            { expectedNonce: "n-456" },
          );
          expect(tokens.scope).toBe(granted);
          expect(oauth.getValidatedIdTokenClaims(tokens)!.sub).toBe(t.user.id);
        }
      });

      test("/authorize refuses an unregistered, relative or fragment resource with invalid_target on the redirect", async () => {
        for (const [resource, words] of [
          ["https://unknown.example.com/", "is not a registered resource server"],
          ["/relative", "must be an absolute URI"],
          [`${DOCS}#frag`, "must not include a fragment"],
        ] as const) {
          const url = new URL(authorization_url(t, { scope: "openid read:docs", code_challenge: pkce().challenge, code_challenge_method: "S256" }, web.client.client_id));
          url.searchParams.append("resource", resource);
          const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
          expect(callback.searchParams.get("error")).toBe("invalid_target");
          expect(callback.searchParams.get("error_description")).toContain(words);
          expect(callback.searchParams.get("state")).toBe("st-123");
        }
      });

      test("client_credentials with a resource: a JWT whose sub is the client; unregistered or several resources are invalid_target", async () => {
        const tokens = await oauth.processClientCredentialsResponse(
          as,
          svc.client,
          await oauth.clientCredentialsGrantRequest(as, svc.client, svc.auth, { resource: DOCS }, insecure),
        );
        // The client's scopes DOCS accepts: read:mail is left out.
        expect(tokens.scope).toBe("read:docs");
        expect(await validate_at(tokens.access_token, DOCS)).toMatchObject({ sub: svc.client.client_id, client_id: svc.client.client_id, scope: "read:docs" });
        const unknown = await refusal(oauth.clientCredentialsGrantRequest(as, svc.client, svc.auth, { resource: "https://nope.example.com/" }, insecure), (r) =>
          oauth.processClientCredentialsResponse(as, svc.client, r),
        );
        expect(unknown.error).toBe("invalid_target");
        const several = await refusal(
          oauth.clientCredentialsGrantRequest(
            as,
            svc.client,
            svc.auth,
            [
              ["resource", DOCS],
              ["resource", MAIL],
            ],
            insecure,
          ),
          (r) => oauth.processClientCredentialsResponse(as, svc.client, r),
        );
        expect(several).toEqual({ error: "invalid_target", error_description: "one resource per token request; ask again for each resource" });
      });

      test("a DPoP-bound JWT access token carries cnf.jkt, the thumbprint of the proof's key (RFC 9449 §6.1)", async () => {
        const keys = await generateKeyPair("ES256", { extractable: true });
        const DPoP = oauth.DPoP(svc.client, keys);
        // Server nonces are off by default (IDP_DPOP_REQUIRE_NONCE), so the first proof is enough.
        const response = await oauth.clientCredentialsGrantRequest(as, svc.client, svc.auth, { resource: DOCS }, { DPoP, ...insecure });
        const tokens = await oauth.processClientCredentialsResponse(as, svc.client, response);
        expect(tokens.token_type).toBe("dpop");
        const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(as.jwks_uri!)), { issuer: t.issuer, audience: DOCS, typ: "at+jwt" });
        expect(payload.cnf).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)) });
        expect(await introspect(tokens.access_token)).toMatchObject({ token_type: "DPoP", cnf: payload.cnf, aud: DOCS });
      });
    });

    describe("token exchange (RFC 8693)", () => {
      let subject: string;
      let actor: string;

      beforeAll(async () => {
        // A token of web's without a resource: its scopes are the whole grant.
        const { params, verifier } = await code_for([], "openid read:docs read:mail");
        subject = (
          await oauth.processAuthorizationCodeResponse(
            as,
            web.client,
            await oauth.authorizationCodeGrantRequest(as, web.client, web.auth, params, REDIRECT_URI, verifier, insecure),
            { expectedNonce: "n-456" },
          )
        ).access_token;
        actor = (await oauth.processClientCredentialsResponse(as, gateway.client, await oauth.clientCredentialsGrantRequest(as, gateway.client, gateway.auth, {}, insecure)))
          .access_token;
      });

      test("impersonation: the gateway gets a JWT for DOCS as the user, no act, issued_token_type access_token", async () => {
        const tokens = await oauth.processGenericTokenEndpointResponse(
          as,
          gateway.client,
          await exchange(gateway, { subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, resource: DOCS }),
        );
        expect(tokens.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
        expect(tokens.token_type).toBe("bearer");
        // The subject's scopes DOCS accepts (read:mail and openid stay behind).
        expect(tokens.scope).toBe("read:docs");
        const claims = await validate_at(tokens.access_token, DOCS);
        expect(claims).toMatchObject({ sub: t.user.id, client_id: gateway.client.client_id, scope: "read:docs" });
        expect(claims).not.toHaveProperty("act");
        const events = await t.store.list_audit_events({ type: "token_exchange", client_id: gateway.client.client_id });
        expect(events[0]).toMatchObject({ outcome: "success", user_id: t.user.id, details: { mode: "impersonation", subject_client: web.client.client_id, resource: DOCS } });
      });

      test("delegation: act names the actor, in the JWT and in introspection of an opaque token", async () => {
        const jwt = await oauth.processGenericTokenEndpointResponse(
          as,
          gateway.client,
          await exchange(gateway, { subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, actor_token: actor, actor_token_type: ACCESS_TOKEN_TYPE, audience: DOCS }),
        );
        const claims = await validate_at(jwt.access_token, DOCS);
        expect(claims.act).toEqual({ sub: gateway.client.client_id, client_id: gateway.client.client_id });
        expect(claims.sub).toBe(t.user.id);

        const opaque = await oauth.processGenericTokenEndpointResponse(
          as,
          gateway.client,
          await exchange(gateway, {
            subject_token: subject,
            subject_token_type: ACCESS_TOKEN_TYPE,
            actor_token: actor,
            actor_token_type: ACCESS_TOKEN_TYPE,
            resource: MAIL,
            scope: "read:mail",
          }),
        );
        expect(opaque.scope).toBe("read:mail");
        expect(await introspect(opaque.access_token)).toMatchObject({
          active: true,
          sub: t.user.id,
          aud: MAIL,
          client_id: gateway.client.client_id,
          act: { sub: gateway.client.client_id, client_id: gateway.client.client_id },
        });
      });

      test("refusals: no policy, mode not allowed, foreign subject client, resource outside the policy, broader scope, bad token types", async () => {
        const base = { subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, resource: DOCS };
        expect(await refusal(exchange(stranger, base))).toEqual({ error: "unauthorized_client", error_description: "this client has no token exchange policy" });
        expect(await refusal(exchange(impersonator, { ...base, actor_token: actor, actor_token_type: ACCESS_TOKEN_TYPE }))).toEqual({
          error: "unauthorized_client",
          error_description: "this client may not use token exchange for delegation",
        });
        // svc's own token: svc is not among the policy's subject clients.
        const foreign = (await oauth.processClientCredentialsResponse(as, svc.client, await oauth.clientCredentialsGrantRequest(as, svc.client, svc.auth, {}, insecure)))
          .access_token;
        expect((await refusal(exchange(gateway, { ...base, subject_token: foreign }))).error).toBe("unauthorized_client");
        expect(await refusal(exchange(gateway, { ...base, resource: OTHER }))).toEqual({
          error: "invalid_target",
          error_description: `this client may not exchange tokens for resource ${OTHER}`,
        });
        expect((await refusal(exchange(gateway, { ...base, resource: "https://unknown.example.com/" }))).error).toBe("invalid_target");
        expect((await refusal(exchange(gateway, { subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE }))).error).toBe("invalid_target");
        expect((await refusal(exchange(gateway, { ...base, scope: "read:docs write:docs" }))).error).toBe("invalid_scope");
        // Nothing the resource accepts: no token rather than an empty one.
        expect(await refusal(exchange(gateway, { ...base, scope: "read:mail" }))).toEqual({
          error: "invalid_scope",
          error_description: `resource ${DOCS} accepts none of the scopes asked for`,
        });
        expect((await refusal(exchange(gateway, { ...base, subject_token_type: "urn:ietf:params:oauth:token-type:id_token" }))).error).toBe("invalid_request");
        expect((await refusal(exchange(gateway, { ...base, actor_token_type: ACCESS_TOKEN_TYPE }))).error).toBe("invalid_request");
        expect((await refusal(exchange(gateway, { resource: DOCS, subject_token_type: ACCESS_TOKEN_TYPE }))).error).toBe("invalid_request");
        expect(await refusal(exchange(gateway, { ...base, subject_token: "not-a-token" }))).toEqual({
          error: "invalid_grant",
          error_description: "subject_token is not an access token issued by this provider",
        });
        const failures = await t.store.list_audit_events({ type: "token_exchange", client_id: stranger.client.client_id });
        expect(failures[0]).toMatchObject({ outcome: "failure", details: { reason: "this client has no token exchange policy" } });
      });

      test("a revoked subject token is invalid_grant", async () => {
        const { params, verifier } = await code_for([], "openid read:docs");
        const own = (
          await oauth.processAuthorizationCodeResponse(
            as,
            web.client,
            await oauth.authorizationCodeGrantRequest(as, web.client, web.auth, params, REDIRECT_URI, verifier, insecure),
            { expectedNonce: "n-456" },
          )
        ).access_token;
        await oauth.processRevocationResponse(await oauth.revocationRequest(as, web.client, web.auth, own, insecure));
        expect(await refusal(exchange(gateway, { subject_token: own, subject_token_type: ACCESS_TOKEN_TYPE, resource: DOCS }))).toEqual({
          error: "invalid_grant",
          error_description: "subject_token is revoked",
        });
      });

      test("a client not registered for the grant is unauthorized_client before any policy", async () => {
        const response = await fetch(`${t.url}/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(svc.client.client_id, svc.secret) },
          body: new URLSearchParams({ grant_type: TOKEN_EXCHANGE, subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, resource: DOCS }),
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: "unauthorized_client" });
      });
    });
  });
}
