// The flow driver: runs as its own process (pinned to the load generator's core by index.ts),
// keeps `concurrency` browsers doing flows for warm-up + measured seconds, and prints one JSON
// line: flows per second, latency percentiles, and the server's CPU and RSS over the measured
// window (read from /proc/<server_pid>).
//
//   bun bench/oidc/driver.ts '<json DriverInput>'
import { cpu_seconds } from "../http/wrk.ts";
import { Browser, device_flow, dpop_key, endpoints, type DpopKey, type Target } from "./flows.ts";
import { make_client } from "./http.ts";
import { percentile, rss_kib, tree_cpu_seconds } from "./proc.ts";

export type DriverInput = {
  target: Target;
  kind: "session" | "first-login" | "device" | "dpop";
  concurrency: number;
  seconds: number;
  warmup: number;
  server_pid: number;
  client: string;
  /** Count the CPU of the server's descendants too (`idp serve --workers N`, bench/oidc/workers.ts). */
  server_tree?: boolean;
};

export type DriverResult = {
  flows: number;
  seconds: number;
  flows_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  first_error: string | null;
  /** CPU seconds the server used in the measured window. */
  server_cpu_s: number;
  /** CPU seconds this driver used in the measured window (is the load generator the limit?). */
  driver_cpu_s: number;
  rss_peak_kib: number;
};

const input = JSON.parse(process.argv[2]!) as DriverInput;
const server_cpu = (pid: number) => (input.server_tree ? tree_cpu_seconds(pid) : cpu_seconds(pid));
const send = await make_client(input.client, input.concurrency);
const ep = await endpoints(send, input.target.base);

let measuring = false;
let stop = false;
const latencies: number[] = [];
let errors = 0;
let first_error: string | null = null;
let rss_peak = rss_kib(input.server_pid).rss;
const sampler = setInterval(() => {
  rss_peak = Math.max(rss_peak, rss_kib(input.server_pid).rss);
}, 100);

function failed(error: unknown) {
  if (!measuring) return;
  errors++;
  first_error ??= String(error instanceof Error ? error.message : error).slice(0, 300);
}

/** Signs a browser in (login + consent on record): the state a session flow starts from. */
async function signed_in(): Promise<Browser> {
  const browser = new Browser(send, input.target, ep);
  await browser.flow(true);
  return browser;
}

async function session_worker(first: Browser): Promise<void> {
  let browser: Browser | null = first;
  // DPoP-bound flows: one key per browser, as a client keeps its key (RFC 9449 §2).
  const key: DpopKey | undefined = input.kind === "dpop" ? await dpop_key() : undefined;
  while (!stop) {
    try {
      browser ??= await signed_in();
      const t = performance.now();
      if (input.kind === "device") await device_flow(browser, send, input.target, ep);
      else await browser.flow(false, undefined, key);
      if (measuring) latencies.push(performance.now() - t);
    } catch (error) {
      failed(error);
      browser = null;
    }
  }
}

async function first_login_worker(): Promise<void> {
  while (!stop) {
    try {
      const t = performance.now();
      // prompt=consent: the consent page every time, as for a user's first sign-in to the app.
      await new Browser(send, input.target, ep).flow(true, "consent");
      if (measuring) latencies.push(performance.now() - t);
    } catch (error) {
      failed(error);
    }
  }
}

// Session, DPoP-bound session and device flows: every browser signs in before the warm-up starts (argon2id logins are not what is measured).
const signs_in = input.kind !== "first-login";
// At most 8 sign-ins at a time: the login throttle reserves each attempt in flight, and more
// than 10 at once for one user from one address are refused (src/oidc/limits/login.ts).
const browsers: Browser[] = [];
while (signs_in && browsers.length < input.concurrency) browsers.push(...(await Promise.all(Array.from({ length: Math.min(8, input.concurrency - browsers.length) }, signed_in))));
const running = Array.from({ length: input.concurrency }, (_, i) => (signs_in ? session_worker(browsers[i]!) : first_login_worker()));
await Bun.sleep(input.warmup * 1000);
measuring = true;
const cpu0 = server_cpu(input.server_pid);
const me0 = process.cpuUsage();
const t0 = performance.now();
rss_peak = rss_kib(input.server_pid).rss;
await Bun.sleep(input.seconds * 1000);
const seconds = (performance.now() - t0) / 1000;
const server_cpu_s = server_cpu(input.server_pid) - cpu0;
const me = process.cpuUsage(me0);
const flows = latencies.length;
measuring = false;
stop = true;
await Promise.all(running);
clearInterval(sampler);

const result: DriverResult = {
  flows,
  seconds,
  flows_per_s: flows / seconds,
  p50_ms: percentile(latencies, 0.5),
  p99_ms: percentile(latencies, 0.99),
  errors,
  first_error,
  server_cpu_s,
  driver_cpu_s: (me.user + me.system) / 1e6,
  rss_peak_kib: rss_peak,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
