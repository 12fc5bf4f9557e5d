/**
 * Every place the provider reads a JWT it did not make itself, fed random strings and random
 * structurally valid but wrong JWTs (RFC 7519; RFC 8725 §2 lists the attacks: alg none, alg
 * confusion, a stranger's key under our kid, wrong claims, tampered payloads):
 *   - id_token_hint at /authorize (OIDC Core §3.1.2.1) → invalid_request at the registered URI;
 *   - id_token_hint at /logout (RP-Initiated Logout §2) → an error page, never a redirect;
 *   - client_assertion at /token (RFC 7523 §3) → 400/401 protocol error, never a token;
 *   - request objects at /authorize (OIDC Core §6.1) → the /authorize outcomes (outcomes.ts).
 * Never a 5xx.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { generateKeyPair, SignJWT, type CryptoKey } from "jose";
import fc from "fast-check";
import { CALLBACK, FORM, ISSUER, LOGOUT_CALLBACK, in_process, protocol_error, type InProcess } from "../security/helpers.ts";
import { classify } from "./outcomes.ts";

let t: InProcess;
let stranger: CryptoKey;
let our_kid: string;
beforeAll(async () => {
  t = await in_process();
  stranger = (await generateKeyPair("ES256")).privateKey;
  our_kid = t.idp.keys.active_kid("RS256");
});
afterAll(() => t.close());

const b64 = (text: string) => Buffer.from(text).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

/** A claim value of any JSON type, plausible values first. */
const claim = (...plausible: (string | number)[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...plausible) }, fc.jsonValue({ maxDepth: 2 }));

const header = fc.record(
  {
    alg: claim("none", "RS256", "ES256", "PS256", "EdDSA", "HS256", "RSA-OAEP"),
    kid: fc.oneof(fc.constant("__ours__"), claim("k1", "")),
    typ: claim("JWT", "logout+jwt", "at+jwt", "oauth-authz-req+jwt"),
    crit: claim("exp"),
    jku: claim("https://evil.test/jwks"),
  },
  { requiredKeys: ["alg"] },
);

const payload = fc.record(
  {
    iss: claim(ISSUER, "app", "jwt-app", "https://evil.test"),
    sub: claim("jwt-app", "app", "alice"),
    aud: fc.oneof(claim(ISSUER, `${ISSUER}/token`, "app", "jwt-app"), fc.constant([ISSUER, "x"])),
    exp: claim(now() + 300, now() - 300, 0, 1e20),
    iat: claim(now(), now() + 3600),
    nbf: claim(now() + 3600, now()),
    jti: fc.oneof(fc.uuid(), claim("")),
    client_id: claim("app", "jwt-app", "spa"),
    redirect_uri: claim(CALLBACK, "https://evil.test/cb"),
    response_type: claim("code", "token"),
    scope: claim("openid", "api"),
    events: fc.constant({ "http://schemas.openid.net/event/backchannel-logout": {} }),
  },
  { requiredKeys: [] },
);

/** How the third part is made: empty, junk, a stranger's real signature, or our signature with a tampered payload. */
const signing = fc.constantFrom("empty", "junk", "stranger", "ours-tampered", "client-key");

const jwt = fc.oneof(
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom("", ".", "..", "a.b.c", "a.b.c.d.e", "eyJ.eyJ.", "e30.e30.", "bnVsbA.bnVsbA.")) },
  { weight: 4, arbitrary: fc.tuple(header, payload, signing) },
);

async function make(input: string | [Record<string, unknown>, Record<string, unknown>, string]): Promise<string> {
  if (typeof input === "string") return input;
  try {
    return await build(input);
  } catch {
    // jose refuses to sign some headers (a malformed crit): send them with a junk signature instead.
    return build([input[0], input[1], "junk"]);
  }
}

async function build([h, p, how]: [Record<string, unknown>, Record<string, unknown>, string]): Promise<string> {
  const head = { ...h, ...(h.kid === "__ours__" ? { kid: our_kid } : {}) };
  switch (how) {
    case "stranger":
      return new SignJWT(p).setProtectedHeader({ ...head, alg: "ES256" } as { alg: string }).sign(stranger);
    case "client-key":
      // The private_key_jwt client's real key, random claims: only the claim checks stand between.
      return new SignJWT(p).setProtectedHeader({ ...head, alg: "ES256", kid: "k1" } as { alg: string }).sign(t.jwt_key);
    case "ours-tampered": {
      const [h64, , s64] = (await t.idp.keys.sign({ sub: "alice", aud: "app", iss: ISSUER, exp: now() + 300 })).split(".");
      return `${h64}.${b64(JSON.stringify(p))}.${s64}`;
    }
    case "junk":
      return `${b64(JSON.stringify(head))}.${b64(JSON.stringify(p))}.${b64("not a signature")}`;
    default:
      return `${b64(JSON.stringify(head))}.${b64(JSON.stringify(p))}.`;
  }
}

const authorize = (extra: Record<string, string>) =>
  `/authorize?${new URLSearchParams({ client_id: "app", redirect_uri: CALLBACK, response_type: "code", scope: "openid", state: "s", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", ...extra })}`;

test("id_token_hint at /authorize: never trusted unless ours and intact → invalid_request at the client", async () => {
  await fc.assert(
    fc.asyncProperty(jwt, async (input) => {
      const token = await make(input);
      if (token === "") return; // an empty hint is "not sent"
      const response = await t.fetch(authorize({ id_token_hint: token }), { headers: { accept: "text/html" } });
      expect(await classify(response)).toBe("error redirect");
      expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    }),
    { numRuns: 1500 },
  );
}, 60_000);

test("id_token_hint at /logout: an error page, no redirect, whatever the token", async () => {
  await fc.assert(
    fc.asyncProperty(jwt, fc.boolean(), async (input, with_redirect) => {
      const token = await make(input);
      if (token === "") return;
      const query = new URLSearchParams({ id_token_hint: token, ...(with_redirect ? { post_logout_redirect_uri: LOGOUT_CALLBACK, client_id: "app" } : {}) });
      const response = await t.fetch(`/logout?${query}`, { headers: { accept: "text/html" } });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(response.headers.get("content-type")).toStartWith("text/html");
    }),
    { numRuns: 1500 },
  );
}, 60_000);

test("client_assertion at /token: a protocol error (never a token, never a 5xx)", async () => {
  await fc.assert(
    fc.asyncProperty(jwt, fc.constantFrom("jwt-app", null), async (input, client_id) => {
      const assertion = await make(input);
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        code: "x",
        redirect_uri: CALLBACK,
        client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        client_assertion: assertion,
        ...(client_id ? { client_id } : {}),
      });
      const response = await t.fetch("/token", { method: "POST", headers: FORM, body: form.toString() });
      expect(["invalid_client", "invalid_request", "invalid_grant"]).toContain(await protocol_error(response));
    }),
    { numRuns: 1500 },
  );
}, 60_000);

test("request objects: the /authorize outcomes, never a 5xx nor a redirect elsewhere", async () => {
  await fc.assert(
    fc.asyncProperty(jwt, async (input) => {
      await classify(await t.fetch(authorize({ request: await make(input) }), { headers: { accept: "text/html" } }));
    }),
    { numRuns: 1500 },
  );
}, 60_000);
