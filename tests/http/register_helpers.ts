/**
 * Shortcuts for the registration tests: POST /register with JSON, the RFC 7592 calls with a
 * registration access token, and an authorization through the pages for a registered client.
 */
import { expect } from "../helpers/test_api.ts";
import type { ClientInformation } from "../../src/http/endpoints/registration/response.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, type TestProvider } from "../helpers/provider.ts";

export type Json = Record<string, unknown>;

/** Valid metadata for a web client with the test redirect URI. */
export const WEB_CLIENT = { redirect_uris: [REDIRECT_URI], client_name: "Registered App" };

export function register(t: TestProvider, metadata: unknown, options: { token?: string; content_type?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { "content-type": options.content_type ?? "application/json", accept: "application/json" };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  return fetch(`${t.url}/register`, { method: "POST", headers, body: typeof metadata === "string" ? metadata : JSON.stringify(metadata) });
}

/** Registers and expects 201; returns the client information. */
export async function registered(t: TestProvider, metadata: Json = WEB_CLIENT, options: { token?: string } = {}): Promise<ClientInformation> {
  const response = await register(t, metadata, options);
  const body = (await response.json()) as ClientInformation;
  if (response.status !== 201) throw new Error(`expected 201, got ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Expects a 400 RFC 7591 §3.2.2 error with this code; returns the description. */
export async function expect_error(response: Response, error: "invalid_redirect_uri" | "invalid_client_metadata" | "invalid_request"): Promise<string> {
  const body = (await response.json()) as { error: string; error_description: string };
  expect({ status: response.status, error: body.error }).toEqual({ status: 400, error });
  expect(typeof body.error_description).toBe("string");
  return body.error_description;
}

/** RFC 7592: GET, PUT or DELETE on the client configuration endpoint. */
export function manage(method: "GET" | "PUT" | "DELETE", uri: string, token: string | null, body?: Json): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(uri, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** The metadata part of a client information response (without client_id and credentials). */
export function metadata_of(info: ClientInformation): Json {
  const { client_id: _c, client_secret: _s, client_id_issued_at: _i, client_secret_expires_at: _e, registration_access_token: _t, registration_client_uri: _u, ...rest } = info;
  return rest;
}

/** Signs in through /authorize and returns the consent page's HTML (a fresh browser: no grant yet). */
export async function consent_page(t: TestProvider, client_id: string): Promise<{ status: number; html: string }> {
  const browser = new Browser();
  const challenge = pkce();
  const start = await browser.get(authorization_url(t, { code_challenge: challenge.challenge, code_challenge_method: "S256" }, client_id));
  const login_url = new URL(start.headers.get("location")!, t.url).href;
  const login_html = await (await browser.get(login_url)).text();
  const after = await browser.post(form_action(login_html)!, { csrf: hidden_field(login_html, "csrf")!, username: "alice", password: t.password });
  const page = await browser.get(new URL(after.headers.get("location")!, t.url).href);
  return { status: page.status, html: await page.text() };
}
