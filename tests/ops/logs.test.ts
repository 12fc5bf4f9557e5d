/**
 * What the server prints never holds a secret. A real `main.ts serve` process runs a full flow
 * (a failed login, login, consent, token, userinfo, a replayed code, a wrong client secret, an
 * authorization request with an unregistered redirect URI) with request logging on; then its
 * whole output is searched for every secret the flow handled. And an error page's reference (its
 * request id) leads to a log line that says why.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { CALLBACK, get_code, redeem, userinfo, type Client, type Tokens } from "./flow.ts";
import { base_env, seed, spawn_server, type ServerProcess } from "./process.ts";

const PASSWORD = "correct horse battery staple";
const WRONG_PASSWORD = "Tr0ub4dor&3-wrong-guess";

describe("the server log never contains secrets", () => {
  let dir: string;
  let server: ServerProcess;
  let client: Client;
  const secrets: Record<string, string> = {};
  /** The error pages of authorization requests with a redirect URI the client never registered. */
  const refused: { request_id: string; html: string; redirect_uri: string }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "idp-logs-"));
    const env = base_env(`sqlite:${join(dir, "idp.sqlite")}`, { IDP_LOG_REQUESTS: "true" });
    const seeded = await seed(env, CALLBACK, PASSWORD);
    client = { client_id: seeded.client_id, client_secret: seeded.client_secret };
    server = await spawn_server(env);

    const browser = new Browser();
    // A failed login first (same browser, so the interaction goes on afterwards).
    const url = new URL("/authorize", server.url);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    })) {
      url.searchParams.set(k, v);
    }
    const start = await browser.get(url.href);
    const html = await (await browser.get(new URL(start.headers.get("location")!, server.url).href)).text();
    secrets.csrf = hidden_field(html, "csrf")!;
    const failed = await browser.post(form_action(html)!, { csrf: secrets.csrf, username: "alice", password: WRONG_PASSWORD });
    expect(failed.status).toBe(200);

    const result = await get_code(server.url, client, PASSWORD, browser, "openid email");
    secrets.code = result.code;
    secrets.code_verifier = result.pkce.verifier;
    const response = await redeem(server.url, client, result.code, result.pkce.verifier);
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as Tokens;
    secrets.access_token = tokens.access_token;
    secrets.id_token = tokens.id_token!;
    secrets.id_token_signature = tokens.id_token!.split(".")[2]!;
    if (tokens.refresh_token) secrets.refresh_token = tokens.refresh_token;
    expect((await userinfo(server.url, tokens.access_token)).status).toBe(200);
    // Error paths log too: a replayed code, a wrong client secret, a bad bearer token.
    expect((await redeem(server.url, client, result.code, result.pkce.verifier)).status).toBe(400);
    const wrong_secret = `${client.client_secret.slice(0, -4)}AAAA`;
    secrets.wrong_secret = wrong_secret;
    expect((await redeem(server.url, { ...client, client_secret: wrong_secret }, result.code, result.pkce.verifier)).status).toBe(401);
    expect((await userinfo(server.url, `${tokens.access_token.slice(0, -4)}BBBB`)).status).toBe(401);
    // An unregistered redirect URI (a short one, and one far too long to log whole): an error page.
    for (const redirect_uri of ["https://evil.example/steal", `https://rp.example.com/callback?pad=${"x".repeat(3000)}`]) {
      const refusal = new URL("/authorize", server.url);
      for (const [k, v] of Object.entries({
        client_id: client.client_id,
        response_type: "code",
        redirect_uri,
        scope: "openid",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
      })) {
        refusal.searchParams.set(k, v);
      }
      const page = await browser.get(refusal.href);
      expect(page.status).toBe(400);
      refused.push({ request_id: page.headers.get("x-request-id")!, html: await page.text(), redirect_uri });
    }

    secrets.password = PASSWORD;
    secrets.wrong_password = WRONG_PASSWORD;
    secrets.client_secret = client.client_secret;
    secrets.session_cookie = browser.cookies.get("idp_session")!;
    secrets.interaction_cookie = browser.cookies.get("idp_interaction")!;
    for (const [name, value] of Object.entries(secrets)) if (!value) throw new Error(`the flow did not produce ${name}`);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the log has one JSON request line per request, each with a request id", () => {
    const requests = server.logs().filter((l) => l.msg === "request");
    expect(requests.length).toBeGreaterThanOrEqual(10);
    for (const line of requests) {
      expect(typeof line.request_id).toBe("string");
      expect(typeof line.status).toBe("number");
      expect(typeof line.time).toBe("string");
    }
    expect(requests.some((l) => l.path === "/token" && l.status === 401)).toBe(true);
  });

  test("an error page's reference leads to a log line with the reason, the client_id and the refused redirect URI (clipped)", async () => {
    const [short, long] = refused;
    expect(short!.html).toContain(`<code>${short!.request_id}</code>`);
    const line = await server.wait_for_log((l) => l.msg === "error page" && l.request_id === short!.request_id);
    expect(line).toMatchObject({
      status: 400,
      error: "invalid_request",
      error_description: expect.stringContaining("has not registered"),
      client_id: client.client_id,
      parameter: "redirect_uri",
      value: "https://evil.example/steal",
      path: "/authorize",
    });
    // The request line of the same request carries only the status; this one says why.
    const clipped = await server.wait_for_log((l) => l.msg === "error page" && l.request_id === long!.request_id);
    expect(clipped.value).toBe(`${long!.redirect_uri.slice(0, 200)}…`);
    expect(clipped.value as string).not.toContain("x".repeat(300));
  });

  test("no password, client secret, code, token, id_token or cookie value appears anywhere in the output", () => {
    const output = server.output();
    expect(output.length).toBeGreaterThan(0);
    const found = Object.entries(secrets).filter(([, value]) => output.includes(value) || output.includes(encodeURIComponent(value)));
    expect(found.map(([name]) => name)).toEqual([]);
  });
});
