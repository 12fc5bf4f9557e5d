// The browser-and-client side of an authorization-code flow, the same code for both providers:
// endpoints come from discovery, pages are recognised by their form (a password field = the
// login form; otherwise a consent form, answered "allow"), every hop is one request.
//
// - session flow: a browser already signed in (session cookie) whose consent is on record:
//   /authorize → code → /token (Basic auth, PKCE, RS256 ID Token) → /userinfo.
// - first-login flow: a fresh browser: /authorize (prompt=consent) → login form with the
//   password → consent form → code → /token → /userinfo.
// - device flow (RFC 8628, ours only): a signed-in browser approves a device: the device's
//   /device_authorization (Basic) → /device, the user code entered → the device's consent page,
//   "allow" → the device's one poll of /token (device_code, RS256 ID Token) → /userinfo.
// - DPoP-bound session flow (RFC 9449, ours only): the session flow with the browser's own ES256
//   key: dpop_jkt at /authorize binds the code (§10), a proof at /token binds the tokens (§5),
//   and /userinfo takes `Authorization: DPoP` with a proof carrying ath (§7).
import { createHash, randomBytes } from "node:crypto";
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { CookieJar, type Send } from "./http.ts";

export type Target = {
  name: string;
  base: string;
  client_id: string;
  client_secret: string;
  redirect_uri: string;
  username: string;
  password: string;
};

export type Endpoints = { authorization: string; token: string; userinfo: string; introspection: string; jwks: string; device_authorization?: string };

export async function endpoints(send: Send, base: string): Promise<Endpoints> {
  const reply = await send("GET", `${base}/.well-known/openid-configuration`, {});
  if (reply.status !== 200) throw new Error(`discovery answered ${reply.status}`);
  const d = JSON.parse(reply.text) as Record<string, string>;
  return {
    authorization: d.authorization_endpoint!,
    token: d.token_endpoint!,
    userinfo: d.userinfo_endpoint!,
    introspection: d.introspection_endpoint!,
    jwks: d.jwks_uri!,
    device_authorization: d.device_authorization_endpoint,
  };
}

export const basic = (t: Target) => Buffer.from(`${encodeURIComponent(t.client_id)}:${encodeURIComponent(t.client_secret)}`).toString("base64");

const b64url = (bytes: Buffer) => bytes.toString("base64url");

function unescape_html(s: string): string {
  return s
    .replace(/&amp;/g, "&")
    .replace(/&#x2F;/gi, "/")
    .replace(/&#47;/g, "/")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/** The first POST form of a page: its action and hidden fields; `login` when it asks for a password. */
function read_form(html: string, page_url: string): { action: string; fields: URLSearchParams; login: boolean } {
  const form = /<form\b[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (form === null) throw new Error(`no form on ${page_url}: ${html.slice(0, 200)}`);
  const action = /\baction="([^"]*)"/i.exec(form[0])?.[1] ?? "";
  const fields = new URLSearchParams();
  for (const input of form[1]!.matchAll(/<input\b[^>]*>/gi)) {
    if (!/type="hidden"/i.test(input[0])) continue;
    const name = /\bname="([^"]*)"/i.exec(input[0])?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(input[0])?.[1] ?? "";
    if (name) fields.set(unescape_html(name), unescape_html(value));
  }
  return { action: new URL(unescape_html(action), page_url).href, fields, login: /type="password"/i.test(form[1]!) };
}

export type FlowResult = { id_token: string; access_token: string; sub: string };

/** A client's DPoP key (RFC 9449 §4): ES256, its public JWK and thumbprint (the dpop_jkt). */
export type DpopKey = { private_key: CryptoKey; jwk: JWK; jkt: string };

export async function dpop_key(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = await exportJWK(publicKey);
  return { private_key: privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, "sha256") };
}

/** One DPoP proof (RFC 9449 §4.2) for `htm` `htu`, with ath when sent with an access token. */
export function dpop_proof(key: DpopKey, htm: string, htu: string, access_token?: string): Promise<string> {
  const claims: Record<string, unknown> = { jti: b64url(randomBytes(16)), htm, htu, iat: Math.floor(Date.now() / 1000) };
  if (access_token !== undefined) claims.ath = b64url(createHash("sha256").update(access_token).digest());
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: key.jwk }).sign(key.private_key);
}

export class Browser {
  readonly jar = new CookieJar();
  constructor(
    private readonly send: Send,
    private readonly target: Target,
    private readonly ep: Endpoints,
  ) {}

  private async request(method: "GET" | "POST", url: string, body?: string) {
    const headers: Record<string, string> = {};
    const cookie = this.jar.header();
    if (cookie !== "") headers.cookie = cookie;
    if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    const reply = await this.send(method, url, headers, body);
    this.jar.take(reply.set_cookie);
    return reply;
  }

  /** Follows redirects (GET) from a response until the client's redirect_uri or a page. */
  private async settle(first: { status: number; location: string | null; text: string }, url: string): Promise<{ code_url: string } | { page: string; url: string }> {
    let reply = first;
    let at = url;
    for (let hops = 0; hops < 12; hops++) {
      if (reply.status >= 300 && reply.status < 400 && reply.location !== null) {
        const next = new URL(reply.location, at).href;
        if (next.startsWith(this.target.redirect_uri)) return { code_url: next };
        at = next;
        reply = await this.request("GET", next);
        continue;
      }
      if (reply.status === 200) return { page: reply.text, url: at };
      throw new Error(`${at} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** The user's part of a device flow: the verification page, the code, the device's consent page ("allow"). */
  async approve_device(verification_uri: string, user_code: string): Promise<void> {
    const page = await this.request("GET", verification_uri);
    if (page.status !== 200) throw new Error(`${verification_uri} answered ${page.status}`);
    const entry = read_form(page.text, verification_uri);
    entry.fields.set("user_code", user_code);
    const step = await this.settle(await this.request("POST", entry.action, entry.fields.toString()), entry.action);
    if (!("page" in step)) throw new Error("the device approval went to the redirect URI");
    const consent = read_form(step.page, step.url);
    if (consent.login) throw new Error(`device flow asked to sign in: ${step.url}`);
    consent.fields.set("decision", "allow");
    const done = await this.request("POST", consent.action, consent.fields.toString());
    if (done.status !== 200 || !done.text.includes("Device connected")) throw new Error(`device approval answered ${done.status}: ${done.text.slice(0, 300)}`);
  }

  /**
   * One authorization-code flow. `interactive`: pages are expected and filled in (first login).
   * `dpop`: the code, the tokens and the userinfo call bound to this key (RFC 9449 §10, §5, §7).
   */
  async flow(interactive: boolean, prompt?: string, dpop?: DpopKey): Promise<FlowResult> {
    const verifier = b64url(randomBytes(32));
    const challenge = b64url(createHash("sha256").update(verifier).digest());
    const state = b64url(randomBytes(12));
    const nonce = b64url(randomBytes(12));
    const q = new URLSearchParams({
      response_type: "code",
      client_id: this.target.client_id,
      redirect_uri: this.target.redirect_uri,
      scope: "openid profile email",
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    if (prompt !== undefined) q.set("prompt", prompt);
    if (dpop !== undefined) q.set("dpop_jkt", dpop.jkt);
    const start = `${this.ep.authorization}?${q}`;
    let step = await this.settle(await this.request("GET", start), start);
    for (let pages = 0; "page" in step; pages++) {
      if (!interactive) throw new Error(`session flow stopped at a page: ${step.url}`);
      if (pages > 4) throw new Error(`too many pages, last ${step.url}`);
      const form = read_form(step.page, step.url);
      if (form.login) {
        form.fields.set("username", this.target.username);
        form.fields.set("password", this.target.password);
      } else {
        form.fields.set("decision", "allow");
      }
      step = await this.settle(await this.request("POST", form.action, form.fields.toString()), form.action);
    }
    const back = new URL(step.code_url).searchParams;
    if (back.get("state") !== state) throw new Error(`state mismatch in ${step.code_url}`);
    const code = back.get("code");
    if (code === null) throw new Error(`no code: ${step.code_url}`);

    const token_body = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: this.target.redirect_uri, code_verifier: verifier });
    const token_headers: Record<string, string> = { authorization: `Basic ${basic(this.target)}`, "content-type": "application/x-www-form-urlencoded" };
    if (dpop !== undefined) token_headers.dpop = await dpop_proof(dpop, "POST", this.ep.token);
    const tr = await this.send("POST", this.ep.token, token_headers, token_body.toString());
    if (tr.status !== 200) throw new Error(`token answered ${tr.status}: ${tr.text}`);
    const tokens = JSON.parse(tr.text) as { access_token: string; id_token?: string; token_type?: string };
    if (typeof tokens.id_token !== "string") throw new Error(`no id_token: ${tr.text}`);
    if (dpop !== undefined && tokens.token_type !== "DPoP") throw new Error(`token_type is not DPoP: ${tr.text}`);

    const ur = await this.send(
      "GET",
      this.ep.userinfo,
      dpop === undefined
        ? { authorization: `Bearer ${tokens.access_token}` }
        : { authorization: `DPoP ${tokens.access_token}`, dpop: await dpop_proof(dpop, "GET", this.ep.userinfo, tokens.access_token) },
    );
    if (ur.status !== 200) throw new Error(`userinfo answered ${ur.status}: ${ur.text}`);
    const sub = (JSON.parse(ur.text) as { sub?: string }).sub;
    if (typeof sub !== "string") throw new Error(`userinfo without sub: ${ur.text}`);
    return { id_token: tokens.id_token, access_token: tokens.access_token, sub };
  }
}

/** One device authorization grant approved by this (signed-in) browser: what a TV costs per sign-in. */
export async function device_flow(browser: Browser, send: Send, target: Target, ep: Endpoints): Promise<FlowResult> {
  if (ep.device_authorization === undefined) throw new Error(`${target.name} has no device_authorization_endpoint`);
  const form_headers = { authorization: `Basic ${basic(target)}`, "content-type": "application/x-www-form-urlencoded" };
  const started = await send("POST", ep.device_authorization, form_headers, "scope=openid+profile+email");
  if (started.status !== 200) throw new Error(`device_authorization answered ${started.status}: ${started.text}`);
  const { device_code, user_code, verification_uri } = JSON.parse(started.text) as { device_code: string; user_code: string; verification_uri: string };
  await browser.approve_device(verification_uri, user_code);
  const body = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code });
  const tr = await send("POST", ep.token, form_headers, body.toString());
  if (tr.status !== 200) throw new Error(`token (device_code) answered ${tr.status}: ${tr.text}`);
  const tokens = JSON.parse(tr.text) as { access_token: string; id_token?: string };
  if (typeof tokens.id_token !== "string") throw new Error(`no id_token: ${tr.text}`);
  const ur = await send("GET", ep.userinfo, { authorization: `Bearer ${tokens.access_token}` });
  if (ur.status !== 200) throw new Error(`userinfo answered ${ur.status}: ${ur.text}`);
  const sub = (JSON.parse(ur.text) as { sub?: string }).sub;
  if (typeof sub !== "string") throw new Error(`userinfo without sub: ${ur.text}`);
  return { id_token: tokens.id_token, access_token: tokens.access_token, sub };
}

/** The decoded JOSE header of a compact JWS. */
export function jws_header(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString("utf8"));
}
