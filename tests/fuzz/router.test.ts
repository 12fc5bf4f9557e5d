/**
 * Random requests to the whole provider app (router, handler chain, every endpoint): random
 * methods, paths (valid, percent-encoded, malformed, traversal-like) and query strings never give
 * a 5xx and never leak a stack trace. Fw's own router properties are in tests/fw/router_property.
 */
import { afterAll, beforeAll, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { in_process, type InProcess } from "../security/helpers.ts";

let t: InProcess;
beforeAll(async () => {
  t = await in_process();
});
afterAll(() => t.close());

const KNOWN = [
  "",
  "authorize",
  "token",
  "userinfo",
  "register",
  "revoke",
  "introspect",
  "logout",
  "logout",
  "interaction",
  "account",
  ".well-known",
  "openid-configuration",
  "jwks.json",
  "static",
  "healthz",
  "readyz",
  "demo",
  "login",
  "consent",
  "two-factor",
  "confirm",
];
const segment = fc.oneof(
  fc.constantFrom(...KNOWN),
  fc.constantFrom("..", ".", "%2e%2e", "%2F", "%00", "%", "%zz", "%C0%AF", "%FF", "__proto__", "constructor", ";", "*", ":id"),
  fc.webSegment(),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const path = fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join("/")}`);
const query = fc.option(fc.webQueryParameters(), { nil: undefined });
const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD");
const accept = fc.constantFrom(undefined, "application/json", "text/html", "text/plain", "*/*", "image/png");

async function check(m: string, p: string, q: string | undefined, a: string | undefined): Promise<void> {
  const init: RequestInit = { method: m, headers: a === undefined ? {} : { accept: a } };
  if (m === "POST" || m === "PUT" || m === "PATCH") Object.assign(init, { body: "x=1", headers: { ...init.headers, "content-type": "application/x-www-form-urlencoded" } });
  const response = await t.fetch(q === undefined ? p : `${p}?${q}`, init);
  const body = await response.text();
  if (response.status >= 500 || /\n\s+at /.test(body)) throw new Error(`${m} ${p}?${q} → ${response.status}: ${body.slice(0, 300)}`);
}

test("random methods, paths and queries never answer 5xx nor show a stack", async () => {
  await fc.assert(fc.asyncProperty(method, path, query, accept, check), { numRuns: 3000 });
}, 60_000);

test("every advertised endpoint survives random methods and junk parameters", async () => {
  const endpoint = fc.constantFrom(
    "/authorize",
    "/token",
    "/userinfo",
    "/register",
    "/register/app",
    "/revoke",
    "/introspect",
    "/logout",
    "/logout/confirm",
    "/account",
    "/account/login",
    "/interaction/x/login",
    "/.well-known/openid-configuration",
    "/.well-known/jwks.json",
  );
  await fc.assert(fc.asyncProperty(method, endpoint, fc.webQueryParameters(), accept, check), { numRuns: 2000 });
}, 60_000);
