/**
 * The private_key_jwt assertion we send an upstream's token endpoint (OIDC Core §9, RFC 7523 §2.2)
 * is signed with the key of our ID Tokens, so it is typed client-authentication+jwt
 * (draft-ietf-oauth-rfc7523bis), a type none of our own checks accepts: presented back to us as
 * an id_token_hint it is refused at /authorize and /logout. The upstream is a small fake
 * (serve_fetch) that sends the browser straight back with a code and keeps the assertion of every
 * token request.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { randomBytes } from "node:crypto";
import { Browser } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";
import { jwt_claims, jwt_header } from "./token_helpers.ts";

let t: TestProvider;
let fake: FetchServer;
let fake_url: string;
/** The client_assertion of each token request the fake upstream received. */
const assertions: string[] = [];

beforeAll(async () => {
  const port = await free_port();
  fake_url = `http://127.0.0.1:${port}`;
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
          id_token_signing_alg_values_supported: ["RS256"],
        });
      }
      if (url.pathname === "/jwks") return Response.json({ keys: [] });
      if (url.pathname === "/authorize") {
        const back = new URL(url.searchParams.get("redirect_uri")!);
        back.searchParams.set("code", randomBytes(8).toString("hex"));
        back.searchParams.set("state", url.searchParams.get("state")!);
        return Response.redirect(back.href, 302);
      }
      if (url.pathname === "/token" && request.method === "POST") {
        assertions.push(new URLSearchParams(await request.text()).get("client_assertion") ?? "");
        return Response.json({ error: "invalid_client", error_description: "kept for the test" }, { status: 401 });
      }
      return new Response("not found", { status: 404 });
    },
    { port },
  );
  t = await start_provider({ config: { outbound: { allow_http: true, allow: ["127.0.0.1"] }, federation: { secret_key: randomBytes(32).toString("base64url") } } });
  await t.store.create_upstream(
    new_upstream(t.config, { name: "keyed", display_name: "Keyed", issuer: fake_url, client_id: "our-idp", token_endpoint_auth_method: "private_key_jwt" }),
  );
});

afterAll(async () => {
  await fake.stop();
  await t.stop();
});

test("the assertion is typed client-authentication+jwt and is no id_token_hint at /authorize or /logout", async () => {
  const browser = new Browser();
  const start = await browser.get(`${t.issuer}/federation/keyed/start`);
  expect(start.status).toBe(302);
  const back = await browser.get(start.headers.get("location")!);
  await browser.get(back.headers.get("location")!);
  const assertion = assertions.at(-1)!;
  expect(assertion).toBeTruthy();
  expect(jwt_header(assertion).typ).toBe("client-authentication+jwt");
  expect(jwt_claims(assertion)).toMatchObject({ iss: "our-idp", sub: "our-idp", aud: fake_url });

  const authorized = await new Browser().get(authorization_url(t, { id_token_hint: assertion, code_challenge: pkce().challenge, code_challenge_method: "S256" }));
  const location = authorized.headers.get("location")!;
  expect(location.startsWith(REDIRECT_URI)).toBe(true);
  expect(new URL(location).searchParams.get("error")).toBe("invalid_request");
  const logout = new URL(`${t.issuer}/logout`);
  logout.searchParams.set("id_token_hint", assertion);
  expect((await new Browser().get(logout.href)).status).toBe(400);
});
