/**
 * Only an ID Token is an id_token_hint (OIDC Core §3.1.2.1, RP-Initiated Logout §2), not any JWT
 * signed with our keys that has a sub and an aud (RFC 8725 §2.8 cross-JWT confusion): a signed
 * UserInfo response and JWTs of our other types (at+jwt, logout+jwt, token-introspection+jwt,
 * client-authentication+jwt) are refused at /authorize (invalid_request) and at /logout (an error
 * page, nobody signed out).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, authorize } from "../helpers/browser.ts";
import { authorization_url, basic, pkce, userinfo } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { jwt_claims, jwt_header } from "./token_helpers.ts";

let t: TestProvider;
let signed_userinfo: string;
let id_token: string;
let browser: Browser;
let client_id: string;

beforeAll(async () => {
  t = await start_provider();

  // A client that registered for signed UserInfo (OIDC Core §5.3.2): its answer is a JWT we signed, with sub, iss and aud.
  const { client, secret } = await t.add_client({ client_name: "Signed UserInfo", token_endpoint_auth_method: "client_secret_basic", userinfo_signed_response_alg: "RS256" });
  client_id = client.client_id;
  browser = new Browser();
  const challenge = pkce();
  const { callback } = await authorize(browser, authorization_url(t, { code_challenge: challenge.challenge, code_challenge_method: "S256" }, client.client_id), {
    password: t.password,
    callback_prefix: REDIRECT_URI,
  });
  const tokens = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { authorization: basic(client.client_id, secret!), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: challenge.verifier }),
  });
  const body = (await tokens.json()) as { access_token: string; id_token: string };
  id_token = body.id_token;
  const answer = await userinfo(t, body.access_token);
  expect(answer.headers.get("content-type")).toStartWith("application/jwt");
  signed_userinfo = await answer.text();
});

afterAll(() => t.stop());

/** /authorize with `hint` as id_token_hint: the error the client receives (null: no error). */
async function authorize_error(hint: string): Promise<string | null> {
  const response = await new Browser().get(authorization_url(t, { id_token_hint: hint, code_challenge: pkce().challenge, code_challenge_method: "S256" }));
  const location = response.headers.get("location");
  if (location === null || !location.startsWith(REDIRECT_URI)) return null;
  return new URL(location).searchParams.get("error");
}

/** /logout with `hint` as id_token_hint in the signed-in browser: the status. */
async function logout_status(hint: string): Promise<number> {
  const url = new URL(`${t.issuer}/logout`);
  url.searchParams.set("id_token_hint", hint);
  return (await browser.get(url.href)).status;
}

/** A JWT signed with our key that has every claim of an ID Token, typed `typ`. */
function our_jwt(typ: string): Promise<string> {
  const claims = jwt_claims(id_token);
  return t.provider.keys.sign({ ...claims, iat: t.clock.now(), exp: t.clock.now() + 300 }, { typ });
}

describe("an id_token_hint must be an ID Token", () => {
  test("our ID Tokens carry typ JWT", () => {
    expect(jwt_header(id_token).typ).toBe("JWT");
  });

  test("a signed UserInfo response (our signature, sub, iss and aud) is refused at /authorize and /logout", async () => {
    expect(jwt_claims(signed_userinfo)).toMatchObject({ sub: t.user.id, iss: t.issuer });
    expect(await authorize_error(signed_userinfo)).toBe("invalid_request");
    expect(await logout_status(signed_userinfo)).toBe(400);
    // Still signed in: a silent authorization gets a code.
    const silent = await browser.get(authorization_url(t, { prompt: "none", code_challenge: pkce().challenge, code_challenge_method: "S256" }, client_id));
    expect(new URL(silent.headers.get("location")!).searchParams.get("code")).not.toBeNull();
  });

  for (const typ of ["at+jwt", "logout+jwt", "token-introspection+jwt", "client-authentication+jwt"]) {
    test(`a JWT of ours typed ${typ}, with every claim of an ID Token, is refused at /authorize and /logout`, async () => {
      const hint = await our_jwt(typ);
      expect(await authorize_error(hint)).toBe("invalid_request");
      expect(await logout_status(hint)).toBe(400);
    });
  }

  test("the same claims typed JWT are accepted (the refusals above are the type's)", async () => {
    expect(await authorize_error(await our_jwt("JWT"))).toBeNull();
  });
});
