/**
 * A forward-auth sign-in through an upstream identity provider (panva's oidc-provider, its
 * development sign-in pages driven over HTTP): the start step sends the browser to the account's
 * sign-in, the person picks the upstream, and the federation callback sends them back to the
 * start step, which opens the protected application, as the password sign-in does
 * (browser/return_path.ts), not to the account page.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import { create_app } from "../../src/oidc/admin/apps.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";
import { Browser, hidden_field } from "../helpers/browser.ts";
import { start_oidc_upstream, type OidcUpstream } from "../helpers/oidc_upstream.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const APP = "http://app.idp.test:8080";
let t: TestProvider;
let op: OidcUpstream;

beforeAll(async () => {
  t = await start_provider({
    issuer_host: "id.idp.test",
    config: {
      trust_proxy: true,
      trusted_proxies: ["127.0.0.1"],
      forward_auth: { cookie_domain: "idp.test" },
      outbound: { allow_http: true, allow: ["127.0.0.1"] },
      federation: { secret_key: randomBytes(32).toString("base64url") },
    },
  });
  op = await start_oidc_upstream({ "alice-up": { sub: "alice-up", email: "alice@example.com", email_verified: true, name: "Alice Upstream" } }, [
    `${t.issuer}/federation/op/callback`,
  ]);
  await t.store.create_upstream(
    new_upstream(t.config, { name: "op", display_name: "Upstream OP", issuer: op.issuer, client_id: op.client_id, client_secret: op.client_secret, auto_link: true }),
  );
  await create_app(t.store, "wiki", { url: APP }, t.clock.now());
});
afterAll(async () => {
  await op?.stop();
  await t?.stop();
});

/** A URL of the issuer, as the test reaches it (the issuer's host is a name only the browser tests resolve). */
const here = (url: string) => url.replace(t.issuer, t.url);

/** The `<meta http-equiv="refresh">` target of a page that moves on by itself. */
function refresh_target(html: string): string {
  const match = /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(html);
  if (match === null) throw new Error(`no refresh in ${html.slice(0, 300)}`);
  return match[1]!.replaceAll("&amp;", "&");
}

/** oidc-provider's development sign-in and consent forms, over HTTP, up to its redirect back to us. */
async function upstream_sign_in(browser: Browser, start: string, login: string): Promise<string> {
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    if (!url.startsWith(op.issuer)) return url;
    const response = await browser.get(url);
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get("location")!, url).href;
      continue;
    }
    expect(response.status).toBe(200);
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)![1]!;
    const fields: Record<string, string> = { prompt: hidden_field(html, "prompt") ?? "" };
    if (html.includes('name="login"')) Object.assign(fields, { login, password: "any" });
    const posted = await browser.post(new URL(action, url).href, fields);
    expect(posted.status).toBeGreaterThanOrEqual(300);
    url = new URL(posted.headers.get("location")!, url).href;
  }
  throw new Error("the upstream's sign-in did not come back");
}

describe("forward auth through an upstream", () => {
  test("the upstream's callback goes back to the start step, which opens the application with the domain cookie", async () => {
    const browser = new Browser();
    const target = `${APP}/docs/page?q=1`;
    const start = `${t.issuer}/forward-auth/start?rd=${encodeURIComponent(target)}`;
    const first = await browser.get(here(start));
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe(`${t.issuer}/account/login`);
    const login = await (await browser.get(`${t.url}/account/login`)).text();
    expect(login).toContain("/federation/op/start");
    const to_upstream = await browser.get(`${t.url}/federation/op/start`);
    expect(to_upstream.status).toBe(302);
    const callback = await upstream_sign_in(browser, to_upstream.headers.get("location")!, "alice-up");
    expect(callback.startsWith(`${t.issuer}/federation/op/callback?`)).toBe(true);
    const continued = await browser.get(here(callback));
    expect(continued.status).toBe(200);
    // Back to the start step, not the account page; the return cookie is used up.
    expect(refresh_target(await continued.text())).toBe(start);
    expect(continued.headers.getSetCookie().some((line) => /^idp_return=;/.test(line))).toBe(true);
    const back = await browser.get(here(start));
    expect(back.status).toBe(200);
    expect(refresh_target(await back.text())).toBe(target);
    expect(browser.cookies.get("idp_forward_auth")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The proxy's question now answers with the upstream-linked local account.
    const asked = await fetch(`${t.url}/forward-auth`, {
      headers: {
        "x-forwarded-proto": "http",
        "x-forwarded-host": "app.idp.test:8080",
        "x-forwarded-uri": "/docs/page?q=1",
        cookie: `idp_forward_auth=${browser.cookies.get("idp_forward_auth")}`,
      },
    });
    expect(asked.status).toBe(200);
    expect(asked.headers.get("remote-user")).toBe("alice");
  });
});
