/**
 * The requests the growth bench times, with Bun's fetch and no redirects followed: a password
 * sign-in (login page POST), a signed-in browser's /authorize → code → /token (a seeded session
 * cookie), /introspect and /userinfo of an access token. Every request is one `Hit`.
 */
import { form_action, hidden_field } from "../../tests/helpers/browser.ts";
import { basic, pkce } from "../../tests/helpers/flow.ts";
import { random_token } from "../../src/oidc/crypto/secrets.ts";
import { CALLBACK, PASSWORD } from "./shape.ts";
import type { Client } from "./seed.ts";

export type Hit = { step: string; t0: number; ms: number; status: number };

export class Recorder {
  readonly hits: Hit[] = [];
  failures = 0;
  last_failure = "";
  async time(step: string, request: () => Promise<Response>, ok: (status: number) => boolean = (s) => s === 200): Promise<{ response: Response; text: string }> {
    const t0 = performance.now();
    const response = await request();
    const text = await response.text();
    this.hits.push({ step, t0, ms: performance.now() - t0, status: response.status });
    if (!ok(response.status)) throw new Error(`${step}: ${response.status} ${text.slice(0, 160)}`);
    return { response, text };
  }
}

const cookie_pairs = (response: Response, jar: Map<string, string>) => {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair!.indexOf("=");
    jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
  }
};
const cookie_header = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

function authorization_url(base: string, client: Client): { url: string; verifier: string; state: string } {
  const challenge = pkce();
  const state = random_token(16);
  const query = new URLSearchParams({
    client_id: client.client_id,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid profile email",
    state,
    nonce: random_token(16),
    code_challenge: challenge.challenge,
    code_challenge_method: "S256",
  });
  return { url: `${base}/authorize?${query}`, verifier: challenge.verifier, state };
}

function code_of(location: string | null, state: string): string {
  if (location === null || !location.startsWith(CALLBACK)) throw new Error(`expected the callback, got ${location}`);
  const url = new URL(location);
  if (url.searchParams.get("state") !== state) throw new Error("state mismatch");
  return url.searchParams.get("code") ?? "";
}

async function redeem(rec: Recorder, base: string, client: Client, code: string, verifier: string): Promise<string> {
  const { text } = await rec.time("token (code)", () =>
    fetch(`${base}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: basic(client.client_id, client.client_secret) },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: CALLBACK, code_verifier: verifier }),
    }),
  );
  return (JSON.parse(text) as { access_token: string }).access_token;
}

/** A fresh browser opens /authorize, gets the login page and signs in with the password (argon2id); returns where it is sent next. */
export async function password_flow(rec: Recorder, base: string, client: Client, username: string): Promise<string> {
  const jar = new Map<string, string>();
  const start = authorization_url(base, client);
  let response = await fetch(start.url, { redirect: "manual" });
  await response.text();
  cookie_pairs(response, jar);
  const login_url = new URL(response.headers.get("location") ?? "", base).href;
  response = await fetch(login_url, { headers: { cookie: cookie_header(jar) } });
  const html = await response.text();
  cookie_pairs(response, jar);
  const action = new URL(form_action(html) ?? login_url, login_url).href;
  const form = new URLSearchParams({ csrf: hidden_field(html, "csrf") ?? "", username, password: PASSWORD });
  // A sign-in that went through redirects on (to /authorize, or a second factor: none here).
  const { response: signed } = await rec.time(
    "sign-in (login POST, argon2id)",
    () => fetch(action, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie_header(jar) }, body: form }),
    (status) => status === 302 || status === 303,
  );
  return signed.headers.get("location") ?? "";
}

/** A signed-in browser (its session cookie) runs /authorize → code → /token; returns the access token. */
export async function session_flow(rec: Recorder, base: string, client: Client, cookie: string): Promise<string> {
  const start = authorization_url(base, client);
  const { response } = await rec.time(
    "authorize (signed in)",
    () => fetch(start.url, { redirect: "manual", headers: { cookie: `idp_session=${cookie}` } }),
    (s) => s === 302,
  );
  return redeem(rec, base, client, code_of(response.headers.get("location"), start.state), start.verifier);
}

export async function introspect(rec: Recorder, base: string, client: Client, token: string): Promise<void> {
  const { text } = await rec.time("introspect", () =>
    fetch(`${base}/introspect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: basic(client.client_id, client.client_secret) },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
    }),
  );
  if (!(JSON.parse(text) as { active?: boolean }).active) throw new Error("introspect: token not active");
}

export async function userinfo(rec: Recorder, base: string, token: string): Promise<void> {
  await rec.time("userinfo", () => fetch(`${base}/userinfo`, { headers: { accept: "application/json", authorization: `Bearer ${token}` } }));
}

/** Runs `count` jobs with `concurrency` workers; failures are counted (the bench checks there are none). */
export async function run_pool(rec: Recorder, count: number, concurrency: number, job: (n: number) => Promise<unknown>, until?: () => boolean): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (until ? !until() : next < count) {
      const n = next++;
      try {
        await job(n);
      } catch (error) {
        rec.failures++;
        rec.last_failure = String(error).slice(0, 200);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
