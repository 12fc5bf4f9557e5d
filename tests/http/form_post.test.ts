/**
 * response_mode=form_post (OAuth 2.0 Form Post Response Mode): the page, its CSP, and the POST it
 * makes, checked by openid-client (which takes the POST request as the callback); errors in the
 * same mode; response_mode=query; unsupported modes; authorization requests sent by POST.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { createHash } from "node:crypto";
import type * as client from "openid-client";
import { Browser } from "../helpers/browser.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { drive, exchange, expect_error, full_flow, read_form_post, relying_party, start } from "./authorize_helpers.ts";

let t: TestProvider;
let rp: client.Configuration;
beforeAll(async () => {
  t = await start_provider();
  rp = await relying_party(t);
});
afterAll(() => t.stop());

const FORM_POST = { response_mode: "form_post" };

describe("form_post", () => {
  test("form_post renders a form that posts code and state to the redirect URI", async () => {
    const started = await start(rp, FORM_POST);
    const { arrival, pages } = await drive(new Browser(), started.url.href);
    expect(pages).toEqual(["login", "consent"]);
    if (arrival.mode !== "form_post") throw new Error("expected form_post");
    expect(arrival.request.url).toBe(REDIRECT_URI);
    expect(arrival.html).toMatch(/<form id="form-post" method="post" action="https:\/\/rp\.example\.com\/callback"/);
    expect([...arrival.params.keys()].sort()).toEqual(["code", "iss", "state"]);
    expect(arrival.params.get("state")).toBe(started.state);
    // The no-JS fallback: a visible button.
    expect(arrival.html).toMatch(/<button type="submit"[^>]*>Continue<\/button>/);
    // openid-client takes the POST as its callback and checks iss, state, the code and the ID Token.
    const { claims } = await exchange(rp, started, arrival);
    expect(claims.sub).toBe(t.user.id);
  });

  test("form_post page passes CSP (hash present)", async () => {
    const started = await start(rp, FORM_POST);
    const { arrival } = await drive(new Browser(), started.url.href);
    if (arrival.mode !== "form_post") throw new Error("expected form_post");
    const scripts = [...arrival.html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts.length).toBe(1);
    expect(arrival.html).not.toMatch(/<script[^>]+src=|\son[a-z]+=/i);
    const hash = createHash("sha256").update(scripts[0]!).digest("base64");
    const directives = new Map(
      arrival.csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );
    expect(directives.get("script-src")).toEqual([`'sha256-${hash}'`]);
    expect(directives.get("form-action")).toEqual(["'self'", "https://rp.example.com"]);
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
  });

  test("other pages allow no inline script: the sign-in page at this IP-address issuer runs none at all", async () => {
    const browser = new Browser();
    const first = await browser.get((await start(rp, FORM_POST)).url.href);
    const login = await browser.get(first.headers.get("location")!);
    const csp = login.headers.get("content-security-policy")!;
    const script_src = csp
      .split(";")
      .map((d) => d.trim())
      .find((d) => d.startsWith("script-src"));
    // Passkeys, the only scripts of the sign-in page, cannot work at an IP address: not offered
    // (tests/http/passkeys_rp_id.test.ts has the page at a domain name, with its own files only).
    expect(script_src).toBeUndefined();
    const html = await login.text();
    expect(html).not.toMatch(/<script|\son[a-z]+=/i);
  });

  test("form_post page is not cached", async () => {
    const { browser } = await signed_in_browser();
    const response = await browser.get((await start(rp, FORM_POST)).url.href);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    expect(response.headers.get("content-type")).toStartWith("text/html");
  });

  test("form_post values are HTML-escaped", async () => {
    const started = await start(rp, { ...FORM_POST, state: `a"><script>x</script>&` });
    const { arrival } = await drive(new Browser(), started.url.href, {}, undefined);
    if (arrival.mode !== "form_post") throw new Error("expected form_post");
    expect(arrival.html).not.toContain("<script>x</script>");
    expect(read_form_post(arrival.html).params.get("state")).toBe(`a"><script>x</script>&`);
  });

  test("form_post with an existing session: straight from /authorize to the page", async () => {
    const { browser } = await signed_in_browser();
    const started = await start(rp, FORM_POST);
    const { arrival, pages } = await drive(browser, started.url.href);
    expect(pages).toEqual([]);
    expect(arrival.mode).toBe("form_post");
    expect((await exchange(rp, started, arrival)).claims.sub).toBe(t.user.id);
  });

  test("errors also use form_post: prompt=none without session", async () => {
    const started = await start(rp, { ...FORM_POST, prompt: "none" });
    const { arrival } = await drive(new Browser(), started.url.href);
    expect(arrival.mode).toBe("form_post");
    expect_error(t, arrival, "login_required", started.state);
  });

  test("errors also use form_post: request errors and a denied consent", async () => {
    const bad = await start(rp, { ...FORM_POST, response_type: "token" });
    const first = await drive(new Browser(), bad.url.href);
    expect(first.arrival.mode).toBe("form_post");
    expect_error(t, first.arrival, "unsupported_response_type", bad.state);

    const denied = await start(rp, { ...FORM_POST, prompt: "consent" });
    const second = await drive(new Browser(), denied.url.href, { decision: "deny" });
    expect(second.arrival.mode).toBe("form_post");
    expect_error(t, second.arrival, "access_denied", denied.state);
  });

  test("response_mode=query redirects as without it", async () => {
    const flow = await full_flow(rp, new Browser(), { response_mode: "query" });
    expect(flow.arrival.mode).toBe("query");
  });

  test("unsupported response_mode → invalid_request (by redirect)", async () => {
    // fragment is no mode for the code flow here; JARM's are fragment.jwt and friends (jwt_responses.test.ts).
    for (const mode of ["fragment", "web_message", "form_post.jwe", ""]) {
      const started = await start(rp, { response_mode: mode });
      const { arrival } = await drive(new Browser(), started.url.href);
      expect(arrival.mode).toBe("query");
      expect_error(t, arrival, "invalid_request", started.state);
    }
  });
});

describe("authorization request by POST", () => {
  test("a POSTed authorization request works the same as GET (full flow, form_post too)", async () => {
    for (const params of [{}, FORM_POST]) {
      const started = await start(rp, params);
      const form = Object.fromEntries(started.url.searchParams);
      const { arrival, pages } = await drive(new Browser(), `${t.issuer}/authorize`, {}, form);
      expect(pages[0]).toBe("login");
      expect((await exchange(rp, started, arrival)).claims.sub).toBe(t.user.id);
    }
  });

  test("a POSTed prompt=none without session → login_required (303)", async () => {
    const started = await start(rp, { prompt: "none" });
    const response = await new Browser().post(`${t.issuer}/authorize`, Object.fromEntries(started.url.searchParams));
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("login_required");
  });
});

async function signed_in_browser(): Promise<{ browser: Browser }> {
  const browser = new Browser();
  await full_flow(rp, browser);
  return { browser };
}
