/**
 * The token endpoint under random requests (RFC 6749 §3.2, §5.2): random form bodies, random
 * client authentication (valid, wrong, malformed Basic; client_secret_post; assertions; none),
 * random content types. The answer is always JSON: a token response (only for a grant that can
 * succeed without a code: client_credentials with the right secret), or `{error,
 * error_description}` with a known code and 400/401 (415-class problems are invalid_request too).
 * Never a 5xx, never the framework's own error shape.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { basic, in_process, protocol_error, type InProcess } from "../security/helpers.ts";

let t: InProcess;
beforeAll(async () => {
  t = await in_process();
});
afterAll(() => t.close());

const junk = fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: "binary", maxLength: 20 }), fc.constantFrom("", "\u0000", "%00", "null", "a.b.c"));
const one = (...values: string[]) => fc.oneof(fc.constantFrom(...values), junk);

const FIELDS: Record<string, fc.Arbitrary<string>> = {
  grant_type: one(
    "authorization_code",
    "refresh_token",
    "client_credentials",
    "password",
    "implicit",
    "urn:ietf:params:oauth:grant-type:jwt-bearer",
    "urn:ietf:params:oauth:grant-type:device_code",
  ),
  code: junk,
  redirect_uri: one("https://rp.test/callback", "https://evil.test/"),
  code_verifier: one("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "short"),
  refresh_token: junk,
  scope: one("openid", "api", "openid offline_access", ""),
  client_id: one("app", "spa", "jwt-app", "unknown"),
  client_secret: junk,
  client_assertion_type: one("urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "x"),
  client_assertion: one("eyJhbGciOiJub25lIn0.eyJzdWIiOiJqd3QtYXBwIn0.", "a.b.c"),
  username: one("alice"),
  password: one("correct horse battery staple"),
};

/** The one request that can succeed without a code: each field is kept, dropped, replaced or repeated. */
const BASE: Record<string, string> = { grant_type: "client_credentials", scope: "api" };

const form = fc.record(
  Object.fromEntries(
    Object.entries(FIELDS).map(([name, value]) => {
      const base = BASE[name];
      return [
        name,
        fc.oneof(
          { weight: base === undefined ? 0 : 6, arbitrary: fc.constant<string[]>(base === undefined ? [] : [base]) },
          { weight: base === undefined ? 6 : 1, arbitrary: fc.constant<string[]>([]) },
          { weight: 2, arbitrary: value.map((v) => [v]) },
          { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 2 }) },
        ),
      ];
    }),
  ),
);

const authorization = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ id: "app", secret: "__secret__" }) },
  fc.constant(undefined),
  fc.constantFrom("app", "spa", "jwt-app", "unknown").chain((id) => fc.oneof(fc.constant("__secret__"), junk).map((secret) => ({ id, secret }))),
  fc.constantFrom("Basic", "Basic !!!", "Basic Og==", "Basic YWJj", "Bearer x", "basic  YXBwOng=", "Digest x"),
  junk,
);

const content_type = fc.oneof(
  { weight: 8, arbitrary: fc.constant("application/x-www-form-urlencoded") },
  { weight: 1, arbitrary: fc.constantFrom("application/json", "text/plain", "multipart/form-data", "application/x-www-form-urlencoded; charset=latin1", "") },
);

test("random token requests: a token only for valid client_credentials, else a protocol error with a known code", async () => {
  let tokens = 0;
  await fc.assert(
    fc.asyncProperty(form, authorization, content_type, async (fields, auth, type) => {
      const pairs: [string, string][] = [];
      for (const [name, values] of Object.entries(fields)) for (const value of values ?? []) pairs.push([name, value]);
      const headers: Record<string, string> = { accept: "application/json" };
      if (type !== "") headers["content-type"] = type;
      if (typeof auth === "string") headers.authorization = auth;
      else if (auth !== undefined) headers.authorization = basic(auth.id, auth.secret === "__secret__" ? t.secret : auth.secret);
      const body = type === "application/json" ? JSON.stringify(Object.fromEntries(pairs)) : new URLSearchParams(pairs).toString();
      let response: Response;
      try {
        response = await t.fetch("/token", { method: "POST", headers, body });
      } catch {
        return; // a header value fetch itself refuses to send
      }
      expect(response.headers.get("cache-control")).toBe("no-store");
      if (response.status === 200) {
        const token = (await response.json()) as Record<string, unknown>;
        expect(fields.grant_type).toEqual(["client_credentials"]);
        expect(token).toMatchObject({ token_type: "Bearer" });
        expect(token.id_token).toBeUndefined();
        tokens++;
        return;
      }
      await protocol_error(response, [400, 401, 413, 415]);
    }),
    { numRuns: 3000 },
  );
  expect(tokens).toBeGreaterThan(0);
}, 120_000);

test("grant_type=password (RFC 9700 §2.4) is unsupported_grant_type even with the user's real password", async () => {
  const response = await t.fetch("/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(t.client_id, t.secret) },
    body: new URLSearchParams({ grant_type: "password", username: "alice", password: "correct horse battery staple", scope: "openid" }).toString(),
  });
  expect(await protocol_error(response)).toBe("unsupported_grant_type");
});
