/**
 * Dynamic client registration under random metadata (RFC 7591 §2, §3.2; OIDC Registration §2):
 * random JSON bodies, and random mixes of real members with values of every JSON type. The answer
 * is 201 with client information, or 400 with invalid_redirect_uri, invalid_client_metadata or
 * invalid_request — and whatever was accepted obeys the redirect URI rules (no javascript:, no
 * http off loopback, no fragments: RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §4.1).
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { redirect_uri_problems } from "../../src/oidc/clients/redirect_uris.ts";
import { in_process, protocol_error, type InProcess } from "../security/helpers.ts";

let t: InProcess;
beforeAll(async () => {
  t = await in_process();
});
afterAll(() => t.close());

const uri = fc.oneof(
  fc.constantFrom(
    "https://rp.test/cb",
    "http://127.0.0.1:8080/cb",
    "http://localhost/cb",
    "http://evil.test/cb",
    "javascript:alert(1)",
    "data:text/html,x",
    "com.example.app:/cb",
    "https://rp.test/cb#frag",
    "https://user:pw@rp.test/cb",
    "/relative",
    "",
  ),
  fc.webUrl({ withFragments: true, withQueryParameters: true }),
);
const any = fc.jsonValue({ maxDepth: 2 });
const value = <T>(plausible: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: plausible }, any);

const metadata = fc.record(
  {
    redirect_uris: value(fc.array(uri, { maxLength: 3 })),
    post_logout_redirect_uris: value(fc.array(uri, { maxLength: 2 })),
    response_types: value(fc.subarray(["code", "token", "id_token", "code id_token"])),
    grant_types: value(fc.subarray(["authorization_code", "refresh_token", "client_credentials", "password", "implicit"])),
    application_type: value(fc.constantFrom("web", "native", "desktop")),
    token_endpoint_auth_method: value(fc.constantFrom("client_secret_basic", "client_secret_post", "private_key_jwt", "none", "client_secret_jwt", "tls_client_auth")),
    client_name: value(fc.string({ maxLength: 30 })),
    logo_uri: value(uri),
    client_uri: value(uri),
    contacts: value(fc.array(fc.emailAddress(), { maxLength: 2 })),
    scope: value(fc.constantFrom("openid", "openid profile", "api", "bad\u0001scope")),
    id_token_signed_response_alg: value(fc.constantFrom("RS256", "ES256", "HS256", "none")),
    default_max_age: value(fc.integer({ min: -10, max: 100_000 })),
    require_auth_time: value(fc.boolean()),
    jwks: value(fc.constant({ keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }] })),
    jwks_uri: value(uri),
    backchannel_logout_uri: value(uri),
    skip_consent: value(fc.boolean()),
    software_statement: value(fc.string()),
    client_id: value(fc.string()),
    client_secret: value(fc.string()),
  },
  { requiredKeys: [] },
);

/** A valid registration with one or two random members on top, so that both outcomes are reached. */
const near_valid = fc
  .tuple(metadata, fc.integer({ min: 0, max: 2 }))
  .map(([m, keep]) => ({ redirect_uris: ["https://rp.test/cb"], ...Object.fromEntries(Object.entries(m).slice(0, keep)) }));

async function register(body: string, content_type = "application/json"): Promise<Response> {
  return t.fetch("/register", { method: "POST", headers: { "content-type": content_type, accept: "application/json" }, body });
}

async function check(response: Response): Promise<"created" | "refused"> {
  if (response.status === 201) {
    const info = (await response.clone().json()) as Record<string, unknown>;
    expect(typeof info.client_id).toBe("string");
    expect(info.skip_consent).toBeUndefined();
    const type = info.application_type === "native" ? "native" : "web";
    expect(redirect_uri_problems((info.redirect_uris as string[] | undefined) ?? [], type)).toEqual([]);
    return "created";
  }
  expect(["invalid_redirect_uri", "invalid_client_metadata", "invalid_request"]).toContain(await protocol_error(response, [400]));
  return "refused";
}

test("random metadata: 201 with URIs that obey the rules, or 400 invalid_*", async () => {
  const seen = new Set<string>();
  await fc.assert(
    fc.asyncProperty(fc.oneof(metadata, near_valid), async (body) => {
      seen.add(await check(await register(JSON.stringify(body))));
    }),
    { numRuns: 2500 },
  );
  expect([...seen].sort()).toEqual(["created", "refused"]);
}, 120_000);

test("random JSON values and random bodies: never a 5xx", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        any.map((v) => JSON.stringify(v)),
        fc.string(),
        fc.json(),
      ),
      fc.constantFrom("application/json", "application/x-www-form-urlencoded", "text/plain"),
      async (body, type) => {
        const response = await register(body, type);
        if (response.status === 201) return void (await check(response));
        await protocol_error(response, [400, 415]);
      },
    ),
    { numRuns: 2000 },
  );
}, 60_000);
