/**
 * OIDC Front-Channel Logout 1.0 in a real browser (Debian's Chromium through playwright-core):
 * two clients of one session, on two origins, registered frontchannel_logout_uri; after
 * RP-initiated logout the signed-out page loads both in iframes — the RP servers record the
 * hits, with iss and sid for the client that requires them (the sid of its ID Token) — its CSP
 * frame-src names exactly those origins, no CSP violation, and the page passes axe.
 * The id_token_hint is the ID Token of a pairwise client: its pairwise sub names the signed-in
 * user, so the logout needs no confirmation (logout/confirmation.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { decodeJwt } from "jose";
import type { Browser, Page } from "playwright-core";
import { axe, chromium_available, launch, serious } from "../helpers/chromium.ts";
import { authorization_url, pkce, token_request, type Pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let browser: Browser;
const servers: FetchServer[] = [];
/** Every request the RPs received: origin + path + query. */
const hits: string[] = [];
let a: { client_id: string; secret: string; origin: string };
let b: { client_id: string; secret: string; origin: string };

async function start_rp(): Promise<string> {
  const server = await serve_fetch((request) => {
    const url = new URL(request.url);
    hits.push(`${url.origin}${url.pathname}${url.search}`);
    return new Response('<!doctype html><html lang="en"><title>RP</title><p>ok</p></html>', { headers: { "content-type": "text/html" } });
  });
  servers.push(server);
  return server.url;
}

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider({ config: { pairwise: { salt: "frontchannel-test-salt-0123456789abcdefgh" } } });
  const origin_a = await start_rp();
  const origin_b = await start_rp();
  const made_a = await t.add_client({
    client_name: "Front App A",
    redirect_uris: [`${origin_a}/callback`],
    post_logout_redirect_uris: [`${origin_a}/bye`],
    subject_type: "pairwise",
    skip_consent: true,
    frontchannel_logout_uri: `${origin_a}/fc?app=a`,
    frontchannel_logout_session_required: true,
  });
  const made_b = await t.add_client({ client_name: "Front App B", redirect_uris: [`${origin_b}/callback`], skip_consent: true, frontchannel_logout_uri: `${origin_b}/fc` });
  a = { client_id: made_a.client.client_id, secret: made_a.secret!, origin: origin_a };
  b = { client_id: made_b.client.client_id, secret: made_b.secret!, origin: origin_b };
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  for (const server of servers) await server.stop();
  await t.stop();
});

/** Signs in (or goes through SSO) for `rp` in `page`; returns the ID Token. */
async function sign_in(page: Page, rp: typeof a): Promise<string> {
  const p: Pkce = pkce();
  const redirect_uri = `${rp.origin}/callback`;
  await page.goto(authorization_url(t, { redirect_uri, code_challenge: p.challenge, code_challenge_method: "S256" }, rp.client_id));
  if (!page.url().startsWith(redirect_uri)) {
    await page.getByLabel("Username").fill("alice");
    await page.getByLabel("Password").fill(t.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.href.startsWith(redirect_uri));
  }
  const code = new URL(page.url()).searchParams.get("code")!;
  const response = await token_request(
    t,
    { grant_type: "authorization_code", code, redirect_uri, code_verifier: p.verifier },
    { method: "basic", client_id: rp.client_id, secret: rp.secret },
  );
  return ((await response.json()) as { id_token: string }).id_token;
}

describe.skipIf(!chromium_available)("front-channel logout in Chromium", () => {
  test("discovery advertises it", async () => {
    const meta = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(meta.frontchannel_logout_supported).toBe(true);
    expect(meta.frontchannel_logout_session_supported).toBe(true);
  });

  test("the signed-out page loads each client's frontchannel_logout_uri (iss and sid when required), CSP frame-src exactly those origins", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on("console", (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(message.text())));
    const id_token = await sign_in(page, a);
    await sign_in(page, b);
    const claims = decodeJwt(id_token);
    // Pairwise: the hint's sub is not the user id, and still names the signed-in user.
    expect(claims.sub).not.toBe(t.user.id);
    expect(typeof claims.sid).toBe("string");

    hits.length = 0;
    const logout = new URL(`${t.issuer}/logout`);
    logout.searchParams.set("id_token_hint", id_token);
    const answer = await page.goto(logout.href);
    expect(await page.locator("h1").innerText()).toBe("You are signed out");
    const csp = answer!.headers()["content-security-policy"]!;
    const frame_src = /frame-src ([^;]+)/.exec(csp)![1]!.split(" ").sort();
    expect(frame_src).toEqual([a.origin, b.origin].sort());
    expect(csp).toContain("default-src 'none'");
    const wanted_a = `${a.origin}/fc?app=a&${new URLSearchParams({ iss: t.issuer, sid: claims.sid as string })}`;
    const wanted_b = `${b.origin}/fc`;
    for (let i = 0; i < 50 && !(hits.includes(wanted_a) && hits.includes(wanted_b)); i++) await page.waitForTimeout(100);
    // The browser may also ask the RP origins for a favicon: only the logout hits count.
    expect(hits.filter((hit) => hit.includes("/fc")).sort()).toEqual([wanted_a, wanted_b].sort());
    expect(await page.locator("iframe").count()).toBe(2);
    expect(violations).toEqual([]);
    // Signed out: the next authorization asks for the password again.
    await page.goto(authorization_url(t, { redirect_uri: `${a.origin}/callback`, code_challenge: pkce().challenge, code_challenge_method: "S256" }, a.client_id));
    expect(await page.title()).toContain("Sign in");
    await context.close();
  }, 60_000);

  test("with a post_logout_redirect_uri the page (iframes, then a link back with state) passes axe-core", async () => {
    // axe is injected as an inline script: a context that bypasses CSP, for this check only.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const id_token = await sign_in(page, a);
    await sign_in(page, b);
    const logout = new URL(`${t.issuer}/logout`);
    logout.searchParams.set("id_token_hint", id_token);
    logout.searchParams.set("post_logout_redirect_uri", `${a.origin}/bye`);
    logout.searchParams.set("state", "fc-st");
    await page.goto(logout.href);
    expect(await page.locator("iframe").count()).toBe(2);
    for (const scheme of ["dark", "light"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(serious(await axe(page))).toEqual([]);
    }
    // Front-Channel Logout §3 then RP-Initiated Logout §3: back to the client, with its state.
    await page.getByRole("link", { name: "Return to Front App A" }).click();
    await page.waitForURL((url) => url.href.startsWith(`${a.origin}/bye`));
    expect(new URL(page.url()).searchParams.get("state")).toBe("fc-st");
    await context.close();
  }, 60_000);

  test("registration: frontchannel_logout_session_required needs a frontchannel_logout_uri; http only on loopback", async () => {
    const other = await start_provider({ config: { registration: "open" } });
    try {
      const register = (metadata: Record<string, unknown>) =>
        fetch(`${other.url}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["https://rp.example.com/cb"], ...metadata }),
        });
      const ok = await register({ frontchannel_logout_uri: "https://rp.example.com/fc", frontchannel_logout_session_required: true });
      expect(ok.status).toBe(201);
      expect(((await ok.json()) as Record<string, unknown>).frontchannel_logout_uri).toBe("https://rp.example.com/fc");
      for (const [metadata, words] of [
        [{ frontchannel_logout_session_required: true }, "frontchannel_logout_session_required"],
        [{ frontchannel_logout_uri: "http://rp.example.com/fc" }, "frontchannel_logout_uri"],
        [{ frontchannel_logout_uri: "https://rp.example.com/fc#x" }, "fragment"],
      ] as const) {
        const response = await register(metadata);
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error_description: string }).error_description).toContain(words);
      }
    } finally {
      await other.stop();
    }
  });
});
