/**
 * The load driver: many virtual users, each running complete authorization code flows
 * (GET /authorize → login page → consent when asked → callback with the code → POST /token →
 * GET /userinfo) with its own cookie jar, plain fetch and a per-request timeout.
 *
 * Everything the driver sees is kept in a `Ledger`, so a scenario can check the server against
 * it afterwards: each code it was given (with its PKCE verifier), each token response, and one
 * record per HTTP request (start, duration, step, status or error) for latency and timelines.
 */
import { form_action, hidden_field } from "../../tests/helpers/browser.ts";
import { basic, pkce } from "../../tests/helpers/flow.ts";
import { random_token } from "../../src/oidc/crypto/secrets.ts";

export const CALLBACK = "https://rp.example.com/callback";

export type Client = { client_id: string; client_secret: string };
export type User = { username: string; password: string };

/** One HTTP request as the driver saw it. `status` 0 = no answer (`error` says why). */
export type Hit = { step: string; t0: number; ms: number; status: number; error?: string };

export type Issued = { code: string; verifier: string; nonce: string; user: string; at: number; base: string };
export type Redeemed = { code: string; access_token: string; id_token: string; nonce: string; at: number };

export type Ledger = {
  hits: Hit[];
  issued: Map<string, Issued>;
  redeemed: Map<string, Redeemed>;
  /** Complete flows: start and duration (ms). */
  flows: { t0: number; ms: number }[];
  /** Flows that stopped, with the step and why. */
  failures: { t0: number; step: string; status: number; error: string }[];
};

export const new_ledger = (): Ledger => ({ hits: [], issued: new Map(), redeemed: new Map(), flows: [], failures: [] });

export class FlowError extends Error {
  constructor(
    readonly step: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type DriverOptions = {
  /** Instances to use; a flow picks one for the pages and one (maybe another) for /token and /userinfo. */
  bases: string[];
  client: Client;
  users: User[];
  ledger: Ledger;
  /** Per-request timeout (ms): a request still unanswered is recorded as "timeout". */
  timeout_ms: number;
  /** Called with every ID Token received (the relying party's check) and the instance that issued it. */
  on_id_token?: (id_token: string, nonce: string, base: string) => Promise<void>;
  /** Pause after a failed flow (ms), so a refusing server is not hammered in a tight loop. */
  backoff_ms?: number;
};

/** A cookie jar and manual redirects; every request is timed into the ledger. */
class Agent {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly o: DriverOptions) {}

  async send(step: string, url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: "text/html", ...init.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    const t0 = performance.now();
    const hit: Hit = { step, t0, ms: 0, status: 0 };
    this.o.ledger.hits.push(hit);
    try {
      const response = await fetch(url, { method: init.method ?? (body ? "POST" : "GET"), headers, body, redirect: "manual", signal: AbortSignal.timeout(this.o.timeout_ms) });
      // Read the body inside the timed window: a stalled body is a stalled answer.
      const text = await response.text();
      hit.ms = performance.now() - t0;
      hit.status = response.status;
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair!.indexOf("=");
        const value = pair!.slice(eq + 1).trim();
        if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(pair!.slice(0, eq).trim());
        else this.cookies.set(pair!.slice(0, eq).trim(), value);
      }
      return new Response(text, { status: response.status, headers: response.headers });
    } catch (error) {
      hit.ms = performance.now() - t0;
      hit.error = (error as Error).name === "TimeoutError" ? "timeout" : `${(error as Error).name}: ${(error as Error).message}`.slice(0, 120);
      throw new FlowError(step, 0, hit.error);
    }
  }
}

async function expect_status(response: Response, status: number, step: string): Promise<Response> {
  if (response.status !== status) throw new FlowError(step, response.status, (await response.text()).slice(0, 200));
  return response;
}

/** From the authorization URL to the callback: login and consent pages as they come. */
async function authorize(agent: Agent, url: string, user: User): Promise<URL> {
  let response = await agent.send("authorize", url);
  for (let hops = 0; hops < 10; hops++) {
    const location = response.headers.get("location");
    if (location === null) throw new FlowError("redirect", response.status, (await response.text()).slice(0, 200));
    if (location.startsWith(CALLBACK)) return new URL(location);
    const target = new URL(location, url);
    const name = target.pathname.endsWith("/login")
      ? "login"
      : target.pathname.endsWith("/consent")
        ? "consent"
        : target.pathname.startsWith("/authorize")
          ? "authorize"
          : `page ${target.pathname}`;
    if (name === "authorize") {
      response = await agent.send("authorize", target.href);
      continue;
    }
    const page = await expect_status(await agent.send(`${name} page`, target.href), 200, `${name} page`);
    const html = await page.text();
    const form = { csrf: hidden_field(html, "csrf") ?? "" };
    const action = new URL(form_action(html) ?? target.href, target).href;
    if (name === "login") response = await agent.send("login", action, { form: { ...form, username: user.username, password: user.password } });
    else if (name === "consent") response = await agent.send("consent", action, { form: { ...form, decision: "allow" } });
    else throw new FlowError(name, page.status, "unexpected page");
  }
  throw new FlowError("redirect", 0, "too many redirects");
}

/** POST /token (client_secret_basic) for a code. */
export function redeem(base: string, client: Client, code: string, verifier: string, timeout_ms: number): Promise<Response> {
  const body = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: CALLBACK, code_verifier: verifier });
  return fetch(`${base}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: basic(client.client_id, client.client_secret) },
    body,
    signal: AbortSignal.timeout(timeout_ms),
  });
}

/** One complete flow; throws FlowError at the first unexpected answer. */
export async function run_flow(o: DriverOptions, user: User): Promise<void> {
  const agent = new Agent(o);
  const front = o.bases[Math.floor(Math.random() * o.bases.length)]!;
  const back = o.bases[Math.floor(Math.random() * o.bases.length)]!;
  const challenge = pkce();
  const state = random_token(16);
  const nonce = random_token(16);
  const query = new URLSearchParams({
    client_id: o.client.client_id,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid profile email",
    state,
    nonce,
    code_challenge: challenge.challenge,
    code_challenge_method: "S256",
  });
  const callback = await authorize(agent, `${front}/authorize?${query}`, user);
  const code = callback.searchParams.get("code");
  if (code === null || callback.searchParams.get("state") !== state) throw new FlowError("callback", 0, `bad callback ${callback.search.slice(0, 120)}`);
  o.ledger.issued.set(code, { code, verifier: challenge.verifier, nonce, user: user.username, at: Date.now(), base: front });

  const token = await expect_status(
    await agent.send("token", `${back}/token`, {
      form: { grant_type: "authorization_code", code, redirect_uri: CALLBACK, code_verifier: challenge.verifier },
      headers: { accept: "application/json", authorization: basic(o.client.client_id, o.client.client_secret) },
    }),
    200,
    "token",
  );
  const body = (await token.json()) as { access_token: string; id_token: string };
  o.ledger.redeemed.set(code, { code, access_token: body.access_token, id_token: body.id_token, nonce, at: Date.now() });
  if (o.on_id_token) {
    try {
      await o.on_id_token(body.id_token, nonce, back);
    } catch (error) {
      throw new FlowError("id_token", 200, (error as Error).message);
    }
  }
  const info = await expect_status(
    await agent.send("userinfo", `${back}/userinfo`, { headers: { accept: "application/json", authorization: `Bearer ${body.access_token}` } }),
    200,
    "userinfo",
  );
  const claims = (await info.json()) as { sub?: string };
  if (typeof claims.sub !== "string") throw new FlowError("userinfo", 200, "no sub");
}

/** `concurrency` virtual users running flows back to back until `signal` aborts. */
export async function run_load(o: DriverOptions, concurrency: number, signal: AbortSignal): Promise<void> {
  const worker = async (n: number) => {
    const user = o.users[n % o.users.length]!;
    while (!signal.aborted) {
      const t0 = performance.now();
      try {
        await run_flow(o, user);
        o.ledger.flows.push({ t0, ms: performance.now() - t0 });
      } catch (error) {
        const e = error instanceof FlowError ? error : new FlowError("driver", 0, String(error));
        o.ledger.failures.push({ t0, step: e.step, status: e.status, error: e.message });
        if (o.backoff_ms) await Bun.sleep(o.backoff_ms);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, n) => worker(n)));
}
