/**
 * deploy/: the files README "Install and deploy" describes. The systemd unit has the directives
 * the README promises (dynamic user, state directory, production mode, loopback, restart on
 * failure, hardening) and `systemd-analyze verify` accepts it; nginx proxies to 127.0.0.1:3000
 * with the client address in X-Forwarded-For and `nginx -t` accepts it; nginx-cluster.conf spreads
 * over three instances and retries only what is safe to retry, and `nginx -t` accepts it and the
 * load bench's rewrite of it; Caddy proxies to 127.0.0.1:3000 too. deploy/forward-auth/: the
 * proxies' forward authentication snippets pass idp's header names on and `nginx -t` and
 * `caddy adapt` accept them; Traefik's labels parse and name the middleware.
 * The tool checks run only where the tool is installed (one line on stderr otherwise).
 */
import { afterAll, describe, expect, test } from "./helpers/test_api.ts";
import { run_sync, which } from "./helpers/spawn.ts";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cluster_site, location_block } from "../bench/load/nginx.ts";
import { load_config } from "../src/app/config.ts";

const DEPLOY = join(import.meta.dirname, "..", "deploy");
const read = (name: string) => readFileSync(join(DEPLOY, name), "utf8");
const temp_dirs: string[] = [];
afterAll(() => {
  for (const dir of temp_dirs) rmSync(dir, { recursive: true, force: true });
});

function temp_dir(): string {
  const dir = mkdtempSync(join(tmpdir(), "idp-deploy-"));
  temp_dirs.push(dir);
  return dir;
}

/** `Key=value` lines per [Section]; a key may repeat (Environment=). Comments and blanks skipped. */
function parse_unit(text: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf("=");
    const key = `${section}.${line.slice(0, eq)}`;
    directives.set(key, [...(directives.get(key) ?? []), line.slice(eq + 1)]);
  }
  return directives;
}

/** Runs a tool only when it is installed; otherwise says so once and skips. */
function has_tool(name: string): boolean {
  if (which(name)) return true;
  console.warn(`${name} not installed: skipping its check of deploy/`);
  return false;
}

function run(cmd: string[]): { code: number; output: string } {
  const result = run_sync(cmd);
  return { code: result.code, output: `${result.stdout}${result.stderr}` };
}

/** `nginx -t` on a site file, inside an http block, with a throwaway certificate; asserts it passes. */
function nginx_test(conf: string): { code: number; output: string } {
  const dir = temp_dir();
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const made = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=id.example.com"]);
  expect(made.code).toBe(0);
  const site = conf.replace("/etc/letsencrypt/live/id.example.com/fullchain.pem", cert).replace("/etc/letsencrypt/live/id.example.com/privkey.pem", key);
  writeFileSync(join(dir, "idp.conf"), site);
  const temp_paths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `  ${name}_temp_path ${join(dir, name)};`);
  const main = [
    `pid ${join(dir, "nginx.pid")};`,
    `error_log ${join(dir, "error.log")};`,
    "events {}",
    "http {",
    "  access_log off;",
    ...temp_paths,
    `  include ${join(dir, "idp.conf")};`,
    "}",
    "",
  ].join("\n");
  writeFileSync(join(dir, "nginx.conf"), main);
  const result = run(["nginx", "-t", "-p", dir, "-c", join(dir, "nginx.conf")]);
  expect(result.code).toBe(0);
  return result;
}

describe("deploy/idp.service", () => {
  const unit = parse_unit(read("idp.service"));
  const service = (key: string) => unit.get(`Service.${key}`) ?? [];
  const environment = service("Environment");

  test("runs `idp serve` as a dynamic user with its SQLite file in StateDirectory=idp", () => {
    expect(service("ExecStart")).toHaveLength(1);
    expect(service("ExecStart")[0]).toMatch(/^\S*\/idp serve$/);
    expect(service("DynamicUser")[0] === "yes" || service("User").length === 1).toBe(true);
    expect(service("StateDirectory")).toEqual(["idp"]);
    expect(environment).toContain("DATABASE_URL=sqlite:/var/lib/idp/idp.sqlite");
  });

  test("production mode, listening on 127.0.0.1:3000, restarting on failure", () => {
    expect(environment).toContain("NODE_ENV=production");
    expect(environment).toContain("HOST=127.0.0.1");
    expect(environment).toContain("PORT=3000");
    expect(service("Restart")).toEqual(["on-failure"]);
    expect(unit.get("Install.WantedBy")).toEqual(["multi-user.target"]);
  });

  test("hardened: NoNewPrivileges, ProtectSystem=strict, ProtectHome, PrivateTmp, no capabilities, a system-call filter", () => {
    expect(service("NoNewPrivileges")).toEqual(["yes"]);
    expect(service("ProtectSystem")).toEqual(["strict"]);
    expect(service("ProtectHome")).toEqual(["yes"]);
    expect(service("PrivateTmp")).toEqual(["yes"]);
    expect(service("CapabilityBoundingSet")).toEqual([""]);
    expect(service("AmbientCapabilities")).toEqual([""]);
    expect(service("SystemCallFilter")).toEqual(["@system-service"]);
  });

  test.skipIf(!has_tool("systemd-analyze"))("systemd-analyze verify accepts it", () => {
    // verify insists the ExecStart binary exists: point it at a stub, change nothing else.
    const dir = temp_dir();
    const stub = join(dir, "idp");
    writeFileSync(stub, "#!/bin/sh\n");
    chmodSync(stub, 0o755);
    const text = read("idp.service").replace(/^ExecStart=\S+\/idp /m, `ExecStart=${stub} `);
    writeFileSync(join(dir, "idp.service"), text);
    const result = run(["systemd-analyze", "verify", join(dir, "idp.service")]);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });
});

describe("deploy/nginx.conf", () => {
  const conf = read("nginx.conf");

  test("proxies to idp on 127.0.0.1:3000 and sets X-Forwarded-For to the address it saw", () => {
    expect(conf).toMatch(/upstream idp \{\s*server 127\.0\.0\.1:3000;/);
    expect(conf).toMatch(/proxy_pass http:\/\/idp;/);
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
  });

  test.skipIf(!has_tool("nginx") || !has_tool("openssl"))("nginx -t accepts it (inside an http block, with a throwaway certificate)", () => {
    expect(nginx_test(conf).output).toContain("test is successful");
  });
});

describe("deploy/nginx-cluster.conf", () => {
  const conf = read("nginx-cluster.conf");
  const location = /^ {4}location \/ \{\n[\s\S]*?\n {4}\}$/m.exec(conf)?.[0] ?? "";

  test("spreads over three instances on loopback with keepalive and passive health checks", () => {
    const servers = [...conf.matchAll(/^ {4}server 127\.0\.0\.1:(\d+) max_fails=\d+ fail_timeout=\d+s;$/gm)];
    expect(servers.map((m) => m[1])).toEqual(["3001", "3002", "3003"]);
    expect(conf).toMatch(/upstream idp_cluster \{[^}]*keepalive \d+;/);
    expect(location).toMatch(/proxy_pass http:\/\/idp_cluster;/);
    expect(location).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
  });

  test("retries on another instance on error and timeout only: never a non-idempotent request that was sent, never idp's 503", () => {
    // RFC 6749 §4.1.2: a POST /token that reached an instance may have consumed its code.
    const directives = location
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    expect(directives.filter((d) => d.startsWith("proxy_next_upstream "))).toEqual(["proxy_next_upstream error timeout;"]);
    expect(directives.filter((d) => d.includes("non_idempotent"))).toEqual([]);
  });

  test("the load bench's rewrite (bench/load/nginx.ts) changes ports and TLS only, keeping the location block", () => {
    const site = cluster_site(conf, [4101, 4102], 4100);
    expect(site).toContain("    server 127.0.0.1:4101 max_fails=2 fail_timeout=5s;\n    server 127.0.0.1:4102 max_fails=2 fail_timeout=5s;\n");
    expect(site).not.toContain("127.0.0.1:3001");
    expect(site).toMatch(/^ {4}listen 127\.0\.0\.1:4100;$/m);
    const directives = site.split("\n").filter((l) => !l.trim().startsWith("#"));
    expect(directives.filter((l) => /ssl|listen 80|443/.test(l))).toEqual([]);
    expect(location_block(site)).toBe(location);
  });

  test.skipIf(!has_tool("nginx") || !has_tool("openssl"))("nginx -t accepts it (inside an http block, with a throwaway certificate)", () => {
    expect(nginx_test(conf).output).toContain("test is successful");
    expect(nginx_test(cluster_site(conf, [4101, 4102, 4103], 4100)).output).toContain("test is successful");
  });
});

describe("deploy/Caddyfile", () => {
  test("proxies to idp on 127.0.0.1:3000", () => {
    expect(read("Caddyfile")).toMatch(/^\s*reverse_proxy 127\.0\.0\.1:3000$/m);
  });
});

describe("deploy/forward-auth/ (applications behind the proxy; run for real by tests/e2e/forward_auth_proxies.test.ts)", () => {
  const headers = load_config({}).forward_auth;
  const names = [headers.header_user, headers.header_email, headers.header_name, headers.header_groups];
  const folder = (name: string) => read(join("forward-auth", name));

  test("nginx asks idp in its own mode, overwrites the request it describes, and passes every Remote-* header on, empty or not", () => {
    const location = folder("nginx-location.conf");
    expect(location).toMatch(/location = \/\.idp\/forward-auth \{\s*internal;/);
    expect(location).toMatch(/proxy_pass http:\/\/idp\/forward-auth\?mode=nginx;/);
    expect(location).toMatch(/proxy_set_header X-Original-URL \$scheme:\/\/\$http_host\$request_uri;/);
    // The application's callback goes to idp as it is, not through auth_request.
    expect(location).toMatch(/location = \/\.idp\/callback \{\s*proxy_pass http:\/\/idp\/forward-auth\/callback\?mode=nginx&\$args;/);
    const auth = folder("nginx-auth.conf");
    expect(auth).toMatch(/^auth_request \/\.idp\/forward-auth;$/m);
    expect(auth).toMatch(/^error_page 401 403 =302 \$idp_location;$/m);
    for (const name of names) {
      const variable = `$upstream_http_${name.toLowerCase().replaceAll("-", "_")}`;
      const set = new RegExp(`^auth_request_set (\\$\\w+) \\${variable};$`, "m").exec(auth);
      expect(set).not.toBeNull();
      expect(auth).toContain(`proxy_set_header ${name} ${set![1]};`);
    }
  });

  test.skipIf(!has_tool("nginx") || !has_tool("openssl"))("nginx -t accepts the example site with both snippets", () => {
    const site = read("forward-auth/nginx-site.conf")
      .replaceAll("/etc/letsencrypt/live/grafana.example.com/", "/etc/letsencrypt/live/id.example.com/")
      .replace("/etc/nginx/snippets/idp-forward-auth-location.conf", join(DEPLOY, "forward-auth", "nginx-location.conf"))
      .replace("/etc/nginx/snippets/idp-forward-auth.conf", join(DEPLOY, "forward-auth", "nginx-auth.conf"));
    // deploy/nginx.conf's upstream, which the location snippet names.
    expect(nginx_test(`upstream idp { server 127.0.0.1:3000; }\n${site}`).output).toContain("test is successful");
  });

  test("Caddy asks idp on 127.0.0.1:3000, drops the client's Remote-* headers first and copies idp's", () => {
    const caddy = folder("Caddyfile");
    expect(caddy).toMatch(/^\t\tforward_auth 127\.0\.0\.1:3000 \{\n\t\t\turi \/forward-auth\n/m);
    expect(caddy).toContain(`copy_headers ${names.join(" ")}`);
    for (const name of names) expect(caddy.indexOf(`request_header -${name}`)).toBeLessThan(caddy.indexOf("forward_auth 127.0.0.1"));
    // The application's callback goes to idp before forward_auth would ask about it.
    expect(caddy).toMatch(/^\t\treverse_proxy \/\.idp\/callback 127\.0\.0\.1:3000 \{\n\t\t\trewrite \/forward-auth\/callback\?\{query\}\n/m);
    expect(caddy.indexOf("reverse_proxy /.idp/callback")).toBeLessThan(caddy.indexOf("forward_auth 127.0.0.1"));
  });

  test.skipIf(!has_tool("caddy"))("caddy adapt accepts the Caddyfile", () => {
    const result = run(["caddy", "adapt", "--config", join(DEPLOY, "forward-auth", "Caddyfile"), "--adapter", "caddyfile"]);
    expect(result.code).toBe(0);
  });

  test("Traefik's labels: a ForwardAuth middleware on /forward-auth that replaces X-Forwarded-*, copies the Remote-* headers, and the router uses it", () => {
    // The `labels:` list of the compose file, `key=value` each.
    const text = folder("traefik.yml");
    const block = /^ {4}labels:\n((?: {6}- .*\n?)+)/m.exec(text)?.[1] ?? "";
    const labels = new Map(
      block
        .split("\n")
        .filter((line) => line.trim().startsWith("- "))
        .map((line) => {
          const item = line.trim().slice(2);
          const eq = item.indexOf("=");
          return [item.slice(0, eq), item.slice(eq + 1)] as const;
        }),
    );
    expect(labels.size).toBeGreaterThan(5);
    const middleware = labels.get("traefik.http.routers.grafana.middlewares")!;
    expect(middleware).toBe("idp-forward-auth");
    const prefix = `traefik.http.middlewares.${middleware}.forwardauth`;
    expect(new URL(labels.get(`${prefix}.address`)!).pathname).toBe("/forward-auth");
    expect(labels.get(`${prefix}.trustForwardHeader`)).toBe("false");
    expect(labels.get(`${prefix}.authResponseHeaders`)!.split(",")).toEqual(names);
    expect(labels.get("traefik.http.routers.grafana.rule")).toBe("Host(`grafana.example.com`)");
    // The callback router: the longer rule wins over the application's; no ForwardAuth on it.
    expect(labels.get("traefik.http.routers.grafana-idp-callback.rule")).toBe("Host(`grafana.example.com`) && Path(`/.idp/callback`)");
    const rewrite = labels.get("traefik.http.routers.grafana-idp-callback.middlewares")!;
    expect(labels.get(`traefik.http.middlewares.${rewrite}.replacepath.path`)).toBe("/forward-auth/callback");
    expect(new URL(labels.get(`traefik.http.services.${labels.get("traefik.http.routers.grafana-idp-callback.service")}.loadbalancer.server.url`)!).port).toBe("3000");
  });
});
