/**
 * ui_locales (OIDC Core §3.1.2.1, RP-Initiated Logout §2): the pages are English only, so
 * discovery advertises no ui_locales_supported (nor claims_locales_supported), and a request
 * that prefers other languages is served in English, without an error.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Browser, authorize } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

test("discovery does not advertise ui_locales_supported or claims_locales_supported", async () => {
  const meta = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  expect(meta).not.toHaveProperty("ui_locales_supported");
  expect(meta).not.toHaveProperty("claims_locales_supported");
});

test("ui_locales at /authorize is accepted: English pages, and a code", async () => {
  const p = pkce();
  const url = authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256", ui_locales: "fr-CA fr de", claims_locales: "fr" });
  const browser = new Browser();
  const start = await browser.get(url);
  const login = await browser.get(new URL(start.headers.get("location")!, t.url).href);
  expect(login.status).toBe(200);
  expect(await login.text()).toContain('<html lang="en">');
  const { callback, steps } = await authorize(new Browser(), url, { password: t.password, callback_prefix: REDIRECT_URI });
  expect(steps).toEqual(["login", "consent"]);
  expect(callback.searchParams.get("code")).toBeTruthy();
  expect(callback.searchParams.get("error")).toBeNull();
});

test("ui_locales at the end_session_endpoint is accepted", async () => {
  const response = await fetch(`${t.url}/logout?ui_locales=${encodeURIComponent("ja en")}`, { headers: { accept: "text/html" }, redirect: "manual" });
  expect(response.status).toBeLessThan(400);
});
