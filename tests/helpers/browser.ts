/**
 * A minimal browser for driving the login and consent pages with fetch: a cookie jar, manual
 * redirects, and form parsing (hidden CSRF field), so tests see every hop.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Every response seen, in order (for asserting statuses of each hop). */
  readonly history: { method: string; url: string; status: number }[] = [];
  /** Every Set-Cookie header received, as sent. */
  readonly set_cookies: string[] = [];

  /** `send` answers the requests: the network by default, or an app in process (`app.fetch`). */
  constructor(private readonly send: (request: Request) => Promise<Response> = (request) => fetch(request, { redirect: "manual" })) {}

  private cookie_header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      this.set_cookies.push(line);
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** `form`: fields by name, or pairs (a name repeated, as checkboxes send it). */
  async request(method: string, url: string, init: { form?: Record<string, string> | [string, string][]; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8", ...init.headers };
    const cookie = this.cookie_header();
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    const response = await this.send(new Request(url, { method, headers, body, redirect: "manual" }));
    this.remember(response);
    this.history.push({ method, url, status: response.status });
    return response;
  }

  get(url: string, headers?: Record<string, string>): Promise<Response> {
    return this.request("GET", url, headers ? { headers } : {});
  }

  post(url: string, form: Record<string, string> | [string, string][]): Promise<Response> {
    return this.request("POST", url, { form });
  }
}

let next_address = 1;
/**
 * A browser whose requests come from an address of its own (X-Forwarded-For; the provider must
 * trust the proxy header), so the per-address limits one test reaches do not reach another.
 */
export function browser_from(ip = `198.51.100.${next_address++}`): Browser {
  return new Browser((request) => {
    const headers = new Headers(request.headers);
    headers.set("x-forwarded-for", ip);
    return fetch(new Request(request, { headers }), { redirect: "manual" });
  });
}

/** The value of a hidden input in a page. */
export function hidden_field(html: string, name: string): string | null {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html) ?? new RegExp(`<input[^>]*value="([^"]*)"[^>]*name="${name}"`).exec(html);
  return match ? decode_entities(match[1]!) : null;
}

/** The action URL of the first form in a page. */
export function form_action(html: string): string | null {
  const match = /<form[^>]*action="([^"]*)"/.exec(html);
  return match ? decode_entities(match[1]!) : null;
}

function decode_entities(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

export type Step = "login" | "two-factor" | "consent";

/**
 * Follows an authorization from its URL to the client callback, signing in and answering the
 * consent page as told. Returns the callback URL and the pages it went through.
 */
export async function authorize(
  browser: Browser,
  authorization_url: string,
  options: {
    username?: string;
    password?: string;
    decision?: "allow" | "deny";
    callback_prefix: string;
    /** The two-factor page's answer: a code from the app, or { recovery_code }. */
    second_factor?: () => string | { recovery_code: string };
  },
): Promise<{ callback: URL; steps: Step[] }> {
  const steps: Step[] = [];
  let response = await browser.get(authorization_url);
  for (let hops = 0; hops < 10; hops++) {
    const location = response.headers.get("location");
    if (location === null) throw new Error(`expected a redirect, got ${response.status}: ${(await response.text()).slice(0, 500)}`);
    if (location.startsWith(options.callback_prefix)) return { callback: new URL(location), steps };
    const page = await browser.get(new URL(location, authorization_url).href);
    if (page.status !== 200) throw new Error(`page ${location} answered ${page.status}: ${(await page.text()).slice(0, 500)}`);
    const html = await page.text();
    const csrf = hidden_field(html, "csrf")!;
    const action = form_action(html)!;
    if (location.endsWith("/login")) {
      steps.push("login");
      response = await browser.post(action, { csrf, username: options.username ?? "alice", password: options.password ?? "" });
    } else if (location.endsWith("/two-factor")) {
      steps.push("two-factor");
      if (!options.second_factor) throw new Error("the two-factor page was shown but no second_factor was given");
      const answer = options.second_factor();
      response = await browser.post(action, typeof answer === "string" ? { csrf, code: answer } : { csrf, recovery_code: answer.recovery_code });
    } else if (location.endsWith("/consent")) {
      steps.push("consent");
      response = await browser.post(action, { csrf, decision: options.decision ?? "allow" });
    } else throw new Error(`unexpected page ${location}`);
  }
  throw new Error("too many redirects");
}

/** Signs `browser` in at /account/login; returns the POST's answer. */
export async function account_login(t: { url: string }, browser: Browser, username: string, password: string): Promise<Response> {
  const page = await browser.get(`${t.url}/account/login`);
  if (page.status !== 200) throw new Error(`${page.url} answered ${page.status}`);
  const csrf = hidden_field(await page.text(), "csrf")!;
  return browser.post(`${t.url}/account/login`, { csrf, username, password });
}

/** The account page's HTML and form token. */
export async function account_page(t: { url: string }, browser: Browser): Promise<{ html: string; csrf: string }> {
  const page = await browser.get(`${t.url}/account`);
  if (page.status !== 200) throw new Error(`${page.url} answered ${page.status}`);
  const html = await page.text();
  return { html, csrf: hidden_field(html, "csrf")! };
}
