/**
 * The authorization request validator under random parameter maps (OIDC Core §3.1.2.1,
 * RFC 6749 §4.1.1): whatever is sent, by GET or POST, the answer is one of
 *   - an error page (4xx HTML, no Location) when the client or redirect URI cannot be trusted
 *     (RFC 6749 §4.1.2.1: never redirect to an unverified URI);
 *   - a redirect to the registered redirect URI with a protocol `error` and `iss` (RFC 9207), or
 *     the same as a form_post page;
 *   - a redirect to this provider's own login page (a valid request).
 * Never a 5xx, never a redirect anywhere else (no open redirect), never a token or code.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { CALLBACK, FORM, in_process, type InProcess } from "../security/helpers.ts";
import { classify } from "./outcomes.ts";

let t: InProcess;
beforeAll(async () => {
  t = await in_process();
});
afterAll(() => t.close());

const junk = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 20 }), fc.constantFrom("", " ", "\u0000", "%00", "%C0%AF", "null", "[]", "{}"));
const one = <T extends string>(...values: T[]) => fc.oneof(fc.constantFrom(...values), junk);

/** Each parameter: usually a plausible value, sometimes junk; sometimes absent, sometimes repeated. */
const PARAMS: Record<string, fc.Arbitrary<string>> = {
  client_id: one("app", "spa", "jwt-app", "unknown"),
  redirect_uri: one(CALLBACK, `${CALLBACK}/`, `${CALLBACK}?x=1`, "https://evil.test/callback", "http://127.0.0.1:4000/callback", "javascript:alert(1)", "//evil.test"),
  response_type: one("code", "token", "id_token", "id_token token", "code id_token", "code token", "none"),
  scope: one("openid", "openid profile email", "openid offline_access", "api", "profile", "openid unknown"),
  state: fc.string({ maxLength: 30 }),
  nonce: fc.string({ maxLength: 30 }),
  code_challenge: one("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "short"),
  code_challenge_method: one("S256", "plain", "s256"),
  response_mode: one("query", "form_post", "fragment", "jwt"),
  prompt: one("none", "login", "consent", "select_account", "none login", "create"),
  max_age: one("0", "60", "-1", "1e3", "99999999999"),
  id_token_hint: one("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "a.b.c"),
  login_hint: fc.string({ maxLength: 300 }),
  acr_values: one("mfa", "pwd", "urn:x"),
  claims: one('{"id_token":{"email":{"essential":true}}}', '{"userinfo":null}', "{", '{"id_token":{"sub":{"value":"x"}}}', "[]"),
  request: one("eyJhbGciOiJub25lIn0.eyJjbGllbnRfaWQiOiJhcHAifQ.", "not-a-jwt"),
  request_uri: one("https://rp.test/request.jwt", "urn:x"),
  display: one("page", "popup"),
  ui_locales: one("en", "fr-CA"),
};

/** A valid request (confidential client, PKCE): each parameter is kept, dropped, replaced or repeated. */
const BASE: Record<string, string> = {
  client_id: "app",
  redirect_uri: CALLBACK,
  response_type: "code",
  scope: "openid",
  code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  code_challenge_method: "S256",
  state: "st",
};

function mutation(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  const base = BASE[name];
  return fc.oneof(
    { weight: base === undefined ? 0 : 8, arbitrary: fc.constant<string[]>(base === undefined ? [] : [base]) },
    { weight: base === undefined ? 8 : 1, arbitrary: fc.constant<string[]>([]) },
    { weight: 2, arbitrary: value.map((v) => [v]) },
    { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }) },
  );
}

const param_map = fc.record(Object.fromEntries(Object.entries(PARAMS).map(([name, value]) => [name, mutation(name, value)]))).chain((known) =>
  fc
    .dictionary(
      fc.string({ maxLength: 10 }).filter((k) => !(k in PARAMS)),
      junk,
      { maxKeys: 3 },
    )
    .map((extra) => ({ known, extra })),
);

function to_pairs(input: { known: Record<string, string[] | undefined>; extra: Record<string, string> }): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, values] of Object.entries(input.known)) for (const value of values ?? []) pairs.push([name, value]);
  for (const [name, value] of Object.entries(input.extra)) pairs.push([name, value]);
  return pairs;
}

test("random authorization requests (GET and POST): an error page, a protocol error at the registered URI, or the login page", async () => {
  const seen = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(param_map, fc.boolean(), async (input, post) => {
      const query = new URLSearchParams(to_pairs(input)).toString();
      const headers = { accept: "text/html" };
      const response = post ? await t.fetch("/authorize", { method: "POST", headers: { ...headers, ...FORM }, body: query }) : await t.fetch(`/authorize?${query}`, { headers });
      const kind = await classify(response);
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
    }),
    { numRuns: 2500 },
  );
  // The generator reaches every outcome, so the property is not vacuous.
  expect([...seen.keys()].sort()).toEqual(["error page", "error redirect", "form_post error", "login page"]);
}, 120_000);
