/**
 * nginx for the cluster scenarios: the site of deploy/nginx-cluster.conf, rewritten only where a
 * bench must differ (the upstream ports, a loopback listen port, no TLS, no port-80 redirect),
 * run as a child process from a temporary prefix (`nginx -p DIR -c DIR/nginx.conf`, daemon
 * off). The `location /` block (proxy headers, retry rules, timeouts) and each upstream server's
 * parameters are kept byte for byte; `cluster_site` throws when the deploy file no longer has the
 * shape it rewrites. An access log records, per request, the instances nginx tried and what each
 * answered, so a 5xx can be traced to the instance that caused it.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { free_port } from "../../tests/helpers/provider.ts";

// import.meta.dirname, not Bun's import.meta.dir: tests/deploy.test.ts loads this file on Deno too.
export const DEPLOY_CLUSTER = join(import.meta.dirname, "..", "..", "deploy", "nginx-cluster.conf");
/** The site the bench runs: the deploy file, or NGINX_SITE (a variant of it, to compare settings). */
export const CLUSTER_SITE = process.env.NGINX_SITE ?? DEPLOY_CLUSTER;
const NGINX = process.env.NGINX ?? "/usr/sbin/nginx";

/** The `location / { … }` block of a site (up to its closing brace at four spaces). */
export function location_block(conf: string): string {
  const block = /^ {4}location \/ \{\n[\s\S]*?\n {4}\}$/m.exec(conf)?.[0];
  if (block === undefined) throw new Error("no `location / { … }` block in the nginx config");
  return block;
}

/** The deploy site with the bench's upstream ports and a plain-HTTP loopback listener. */
export function cluster_site(deploy: string, upstream_ports: number[], listen_port: number): string {
  const servers = [...deploy.matchAll(/^ {4}server 127\.0\.0\.1:\d+( [^;]*)?;$/gm)];
  if (servers.length === 0) throw new Error("no `server 127.0.0.1:PORT …;` lines in the upstream block");
  const params = servers[0]![1] ?? "";
  const upstream = upstream_ports.map((port) => `    server 127.0.0.1:${port}${params};`).join("\n");
  let site = deploy.replace(/(^ {4}server 127\.0\.0\.1:\d+( [^;]*)?;\n)+/m, `${upstream}\n`);
  // The port-80 server only redirects to https.
  site = site.replace(/^server \{\n {4}listen 80;[\s\S]*?\n\}\n\n?/m, "");
  // TLS: the listen lines and ssl_* directives of the remaining server become one loopback listener.
  const tls = /^ {4}listen (\[::\]:)?443 [^;]*;\n/gm;
  if (!tls.test(site)) throw new Error("no `listen 443 …;` line to replace");
  site = site.replace(/^ {4}listen 443 [^;]*;\n/m, `    listen 127.0.0.1:${listen_port};\n`).replace(/^ {4}listen \[::\]:443 [^;]*;\n/m, "");
  site = site.replace(/^ {4}ssl_[a-z_]+ [^;]*;\n/gm, "");
  if (location_block(site) !== location_block(deploy)) throw new Error("rewriting changed the location block");
  return site;
}

export type Nginx = {
  url: string;
  port: number;
  pid: number;
  /** The access log so far, one parsed line a request. */
  access(): AccessLine[];
  /** The error log so far. */
  errors(): string;
  stop(): Promise<void>;
};

/**
 * One request as nginx logged it: `upstreams` and `upstream_statuses` list every instance tried,
 * in order (`-` for no answer), as $upstream_addr and $upstream_status do.
 */
export type AccessLine = { at_ms: number; method: string; path: string; status: number; upstreams: string[]; upstream_statuses: string[]; request_s: number };

const LOG_FORMAT = 'log_format cluster \'$msec $request_method $uri $status "$upstream_addr" "$upstream_status" $request_time\';';

function parse_access(text: string): AccessLine[] {
  const out: AccessLine[] = [];
  for (const line of text.split("\n")) {
    const m = /^(\d+\.\d+) (\S+) (\S+) (\d+) "([^"]*)" "([^"]*)" (\S+)$/.exec(line);
    if (!m) continue;
    const list = (s: string) => (s === "-" || s === "" ? [] : s.split(/\s*[,:]\s+|\s*,\s*/).filter((x) => x !== ""));
    out.push({ at_ms: Number(m[1]) * 1000, method: m[2]!, path: m[3]!, status: Number(m[4]), upstreams: list(m[5]!), upstream_statuses: list(m[6]!), request_s: Number(m[7]) });
  }
  return out;
}

/** Starts nginx on a free loopback port in front of `upstream_ports`, with the deploy file's site. */
export async function start_nginx(upstream_ports: number[], chosen_port?: number): Promise<Nginx> {
  const port = chosen_port ?? (await free_port());
  const dir = mkdtempSync(join(tmpdir(), "idp-nginx-"));
  // Run as root, nginx's workers drop to `nobody`: they must reach the prefix and its temp paths.
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "cluster.conf"), cluster_site(readFileSync(CLUSTER_SITE, "utf8"), upstream_ports, port));
  const temp_paths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `  ${name}_temp_path ${join(dir, name)};`);
  const access_log = join(dir, "access.log");
  const error_log = join(dir, "error.log");
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      "worker_processes 1;",
      `pid ${join(dir, "nginx.pid")};`,
      `error_log ${error_log} warn;`,
      "events { worker_connections 4096; }",
      "http {",
      `  ${LOG_FORMAT}`,
      `  access_log ${access_log} cluster;`,
      ...temp_paths,
      `  include ${join(dir, "cluster.conf")};`,
      "}",
      "",
    ].join("\n"),
  );
  const proc = Bun.spawn([NGINX, "-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    const up = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`nginx did not answer on ${url}`);
    await Bun.sleep(100);
  }
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "";
    }
  };
  return {
    url,
    port,
    pid: proc.pid,
    access: () => parse_access(read(access_log)),
    errors: () => read(error_log),
    async stop() {
      // SIGQUIT: graceful shutdown (finish requests in progress, then exit).
      if (proc.exitCode === null) proc.kill("SIGQUIT");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
