/**
 * `npm run image` (scripts/image.ts): the container image, built once from a freshly compiled
 * executable, then run the way a container engine runs it — unpacked by umoci into an OCI
 * runtime bundle and started by Debian's runc, on the host's network (loopback), with the root
 * file system read-only, no capabilities and /data bind-mounted. Through HTTP and `runc exec`
 * only: discovery, the CLI inside, the OpenID flow with openid-client, a stop on SIGTERM, and the
 * refusal to start on a /data it cannot write.
 *
 * Needs umoci and skopeo to build, and runc as root to run (`.ci/run` installs the three); skipped,
 * with the reason on stderr, where they are missing.
 */
import { afterAll, beforeAll, describe, expect, RUNTIME, test } from "./helpers/test_api.ts";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { delimiter, join } from "node:path";
import * as client from "openid-client";
import pkg from "../package.json" with { type: "json" };
import { build_executable } from "../scripts/build.ts";
import { build_image, type BuiltImage } from "../scripts/image.ts";
import { DATA_DIR, EXECUTABLE, USER } from "../scripts/image/names.ts";
import { ENV_KEYS } from "../src/app/config.ts";
import { authorize, Browser } from "./helpers/browser.ts";
import { PASSWORD, REDIRECT_URI, free_port } from "./helpers/provider.ts";

const ROOT = join(import.meta.dirname, "..");
const on_path = (name: string) => (process.env.PATH ?? "").split(delimiter).some((dir) => existsSync(join(dir, name)));
const missing = ["umoci", "skopeo", "runc"].filter((name) => !on_path(name));
// Bun only: the image holds Bun's single executable, compiled by scripts/build.ts with Bun.build.
const on_bun = RUNTIME === "bun";
const skip_build = !on_bun || missing.some((name) => name !== "runc") || process.platform !== "linux";
const skip_run = skip_build || missing.includes("runc") || process.getuid?.() !== 0;
if (skip_run) {
  const why = !on_bun
    ? "the image holds Bun's compiled executable, built with Bun (run it from Bun)"
    : missing.length > 0
      ? `${missing.join(", ")} not installed (Debian: apt-get install umoci skopeo runc)`
      : "runc runs the containers as root here";
  console.warn(`tests/image.test.ts: ${skip_build ? "skipped" : "the runc tests skipped"}: ${why}`);
}

const git = (args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout.trim();
const run = (command: string, args: string[], input?: string) => spawnSync(command, args, { encoding: "utf8", input, maxBuffer: 1 << 28 });

let work: string;
let image: BuiltImage;
let again: BuiltImage;

beforeAll(async () => {
  if (skip_build) return;
  work = mkdtempSync(join(tmpdir(), "idp-image-"));
  // Two executables compiled from this one commit, and an image of each.
  const [first, second] = [join(work, "a"), join(work, "b")];
  image = await build_image({ executable: (await build_executable(join(first, "idp"))).outfile, out: first });
  again = await build_image({ executable: (await build_executable(join(second, "idp"))).outfile, out: second });
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const blob = (digest: string) => join(image.layout, "blobs", ...digest.split(":"));
type ImageConfig = { created: string; architecture: string; config: Record<string, unknown> & { Env: string[]; Labels: Record<string, string> }; rootfs: { diff_ids: string[] } };
function image_config(): ImageConfig {
  return JSON.parse(readFileSync(blob(image.config_digest), "utf8")) as ImageConfig;
}
function layer_digest(): string {
  return (JSON.parse(readFileSync(blob(image.manifest_digest), "utf8")) as { layers: { digest: string }[] }).layers[0]!.digest;
}

describe.skipIf(skip_build)("npm run image", () => {
  test("the config: a non-root user, the idp CLI serving by default, the port, /data, real settings, the labels", () => {
    const config = image_config();
    const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? git(["log", "-1", "--format=%ct"]));
    const created = new Date(epoch * 1000).toISOString().replace(/\.000Z$/, "Z");
    expect(config.created).toBe(created);
    expect(config.config).toMatchObject({
      User: "65532:65532",
      Entrypoint: ["/usr/local/bin/idp"],
      Cmd: ["serve"],
      ExposedPorts: { "3000/tcp": {} },
      Volumes: { "/data": {} },
      WorkingDir: "/data",
    });
    expect(config.config.Env).toEqual(["PATH=/usr/local/bin", "HOST=0.0.0.0", "DATABASE_URL=sqlite:/data/idp.sqlite"]);
    for (const line of config.config.Env.filter((each) => !each.startsWith("PATH="))) expect(Object.keys(ENV_KEYS)).toContain(line.split("=")[0]!);
    expect(config.config.Labels).toMatchObject({
      "org.opencontainers.image.version": pkg.version,
      "org.opencontainers.image.revision": git(["rev-parse", "HEAD"]),
      "org.opencontainers.image.licenses": pkg.license,
      "org.opencontainers.image.created": created,
    });
    const index = JSON.parse(readFileSync(join(image.layout, "index.json"), "utf8")) as { manifests: { digest: string; annotations: Record<string, string> }[] };
    expect(index.manifests.map((m) => [m.annotations["org.opencontainers.image.ref.name"], m.digest])).toEqual([
      [pkg.version, image.manifest_digest],
      ["latest", image.manifest_digest],
    ]);
  });

  test("the layer: the executable, its libraries, the loader, CA certificates and /etc; no shell, no package manager", () => {
    const listing = run("tar", ["-tvzf", blob(layer_digest()), "--numeric-owner", "--full-time"])
      .stdout.trim()
      .split("\n");
    const entries = listing.map((line) => {
      const [mode, owner, , date, time, ...name] = line.split(/\s+/);
      return { mode: mode!, owner: owner!, when: `${date} ${time}`, name: name.join(" ") };
    });
    const files = entries.filter((e) => e.mode.startsWith("-")).map((e) => e.name);
    expect(files).toContain("usr/local/bin/idp");
    expect(files).toContain("lib64/ld-linux-x86-64.so.2");
    for (const lib of ["libc.so.6", "libm.so.6", "libsodium.so.23", "libcrypto.so.3"]) expect(files.some((f) => f.endsWith(`/${lib}`))).toBe(true);
    expect(files).toContain("etc/ssl/certs/ca-certificates.crt");
    // Nothing but these: no shell, no coreutils, no package manager.
    const allowed =
      /^(usr\/local\/bin\/idp|lib64\/ld-linux[\w.-]+|lib\/[\w-]+\/lib[\w.+-]+\.so[.\d]*|etc\/(passwd|group|hosts|nsswitch\.conf|ssl\/certs\/ca-certificates\.crt)|usr\/share\/doc\/[\w.+-]+\/copyright)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(entries.filter((e) => /(^|\/)(s?bin\/|sh$|apt|dpkg)/.test(e.name) && e.name !== "usr/local/bin/" && e.name !== "usr/local/bin/idp")).toEqual([]);
    // Owned by numbers: root, except /data (the user's, 0700); every time is the commit's.
    expect(entries.find((e) => e.name === "data/")).toMatchObject({ mode: "drwx------", owner: "65532/65532" });
    expect(entries.filter((e) => e.name !== "data/" && e.owner !== "0/0")).toEqual([]);
    expect(new Set(entries.map((e) => e.when)).size).toBe(1);
  });

  test("reproducible: two executables and two images built from one commit give the same digests and archive", () => {
    expect(again.manifest_digest).toBe(image.manifest_digest);
    expect(again.config_digest).toBe(image.config_digest);
    const sha = (file: string) => run("sha256sum", [file]).stdout.split(" ")[0];
    expect(sha(again.archive)).toBe(sha(image.archive));
    expect(sha(join(work, "b", "idp"))).toBe(sha(join(work, "a", "idp")));
  });

  test("the archive is a docker-archive (docker load, podman load) tagged idp:<version> and idp:latest, of the same image", () => {
    const manifest = JSON.parse(run("tar", ["-xOf", image.archive, "manifest.json"]).stdout) as { Config: string; RepoTags: string[]; Layers: string[] }[];
    expect(manifest).toHaveLength(1);
    expect(manifest[0]!.RepoTags).toEqual([`docker.io/library/idp:${pkg.version}`, "docker.io/library/idp:latest"]);
    // The image ID Docker shows is the config's digest; the layer is the same tar, uncompressed.
    expect(`sha256:${manifest[0]!.Config.replace(/\.json$/, "")}`).toBe(image.config_digest);
    expect(manifest[0]!.Layers.map((l) => `sha256:${l.replace(/\.tar$/, "")}`)).toEqual(image_config().rootfs.diff_ids);
  });

  test("its size: the executable plus less than 20 MB", () => {
    expect(image.unpacked_bytes - image.executable_bytes).toBeLessThan(20e6);
    expect(image.compressed_bytes).toBeLessThan(image.unpacked_bytes);
  });
});

/** The parts of the OCI runtime config that umoci unpack writes and the tests change. */
type RuntimeConfig = {
  process: { terminal: boolean; args: string[]; env: string[]; capabilities: Record<string, string[]> };
  root: { path: string; readonly: boolean };
  mounts: { destination: string; type: string; source: string; options?: string[] }[];
  linux: { namespaces: { type: string }[] };
};

/** A container of the image under runc: its process, output files and exit code. */
type Container = { name: string; proc: ChildProcess; exited: Promise<number>; out: string; err: string; logs(): string };

// Known before the tests are declared: the issuer names it.
const port = await free_port();

describe.skipIf(skip_run)("the image under runc", () => {
  let state: string;
  let rootfs: string;
  let base: RuntimeConfig;
  const started: Container[] = [];
  const issuer = `http://127.0.0.1:${port}`;
  const data = () => join(work, "data");
  let server: Container;

  /**
   * Starts a container in the foreground (`runc run`, whose exit code is the container's), with
   * `args` after the entrypoint (the image's `serve` when not given) and `source` as /data.
   */
  function start(name: string, options: { args?: string[]; source?: string; read_only_data?: boolean; port?: number } = {}): Container {
    const bundle = join(work, `bundle-${name}`);
    mkdirSync(bundle);
    const config = structuredClone(base);
    config.root = { path: rootfs, readonly: true };
    config.process.terminal = false;
    // No capabilities at all, as Kubernetes' `drop: [ALL]` (deploy/kubernetes/deployment.yaml).
    config.process.capabilities = {};
    if (options.args) config.process.args = [EXECUTABLE, ...options.args];
    config.process.env.push(`PORT=${options.port ?? port}`, "HOST=127.0.0.1", `IDP_ISSUER=${issuer}`, "IDP_ARGON2_MEMORY_KIB=1024", "IDP_ARGON2_TIME_COST=1");
    // The host's network (loopback), so the test reaches the port without a bridge.
    config.linux.namespaces = config.linux.namespaces.filter((ns) => ns.type !== "network");
    config.mounts = [
      ...config.mounts.filter((m) => m.destination !== DATA_DIR),
      { destination: DATA_DIR, type: "bind", source: options.source ?? data(), options: ["rbind", options.read_only_data ? "ro" : "rw"] },
    ];
    writeFileSync(join(bundle, "config.json"), JSON.stringify(config));
    const out = join(bundle, "stdout");
    const err = join(bundle, "stderr");
    const fds = [openSync(out, "w"), openSync(err, "w")];
    const proc = spawn("runc", ["--root", state, "run", "--bundle", bundle, name], { stdio: ["ignore", fds[0]!, fds[1]!] });
    for (const fd of fds) closeSync(fd);
    const exited = new Promise<number>((resolve) => proc.on("exit", (code, signal) => resolve(code ?? 128 + (signal === "SIGKILL" ? 9 : 15))));
    const container = { name, proc, exited, out, err, logs: () => `${readFileSync(out, "utf8")}${readFileSync(err, "utf8")}` };
    started.push(container);
    return container;
  }

  /** `runc exec` in the running server: `idp <argv>` as the container's user, with its environment. */
  function exec(argv: string[], input?: string) {
    return run("runc", ["--root", state, "exec", server.name, "idp", ...argv], input);
  }

  beforeAll(async () => {
    state = join(work, "runc");
    const unpacked = join(work, "unpacked");
    const unpack = run("umoci", ["unpack", "--image", `${image.layout}:latest`, unpacked]);
    if (unpack.status !== 0) throw new Error(`umoci unpack: ${unpack.stderr}`);
    rootfs = join(unpacked, "rootfs");
    base = JSON.parse(readFileSync(join(unpacked, "config.json"), "utf8"));
    mkdirSync(data(), { mode: 0o700 });
    chownSync(data(), USER.uid, USER.gid);
    server = start(`idp-serve-${process.pid}`);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (server.proc.exitCode !== null) throw new Error(`the container exited with ${server.proc.exitCode}:\n${server.logs()}`);
      if ((await fetch(`${issuer}/readyz`).catch(() => null))?.status === 200) return;
      await sleep(100);
    }
    throw new Error(`the container was not ready within 60 s:\n${server.logs()}`);
  }, 90_000);

  afterAll(async () => {
    for (const container of started) {
      run("runc", ["--root", state, "kill", container.name, "KILL"]);
      await Promise.race([container.exited, sleep(5_000)]);
      run("runc", ["--root", state, "delete", "--force", container.name]);
    }
  });

  test("it answers discovery, as uid 65532, on a read-only root file system, without capabilities", async () => {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { issuer: string }).issuer).toBe(issuer);
    const pid = (JSON.parse(run("runc", ["--root", state, "state", server.name]).stdout) as { pid: number }).pid;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    expect(/^Uid:\s+(.*)$/m.exec(status)![1]!.split(/\s+/)).toEqual(["65532", "65532", "65532", "65532"]);
    expect(/^CapEff:\s+(\w+)$/m.exec(status)![1]).toBe("0000000000000000");
    const mounts = readFileSync(`/proc/${pid}/mountinfo`, "utf8")
      .split("\n")
      .map((line) => line.split(" "));
    expect(mounts.find((fields) => fields[4] === "/")![5]!.split(",")).toContain("ro");
    // The native libraries were found in the image: argon2id through libsodium.
    expect(server.logs()).toContain('"password_hashing":"libsodium"');
  });

  test("runc exec runs the CLI inside: users add, users list; there is no shell to run", () => {
    const added = exec(["users", "add", "alice", "--password-stdin", "--email", "alice@example.com", "--email-verified", "--json"], `${PASSWORD}\n`);
    expect(added.stderr).toBe("");
    expect((JSON.parse(added.stdout) as { username: string }).username).toBe("alice");
    const users = JSON.parse(exec(["users", "list", "--json"]).stdout) as { username: string }[];
    expect(users.map((u) => u.username)).toEqual(["alice"]);
    const shell = run("runc", ["--root", state, "exec", server.name, "sh", "-c", "true"]);
    expect(shell.status).not.toBe(0);
    expect(shell.stderr).toContain("executable file not found");
  });

  test("the OpenID flow: openid-client signs alice in against the container", async () => {
    const added = exec(["clients", "add", "--name", "App", "--redirect-uri", REDIRECT_URI, "--auth-method", "client_secret_basic", "--grant-type", "authorization_code", "--json"]);
    const app = JSON.parse(added.stdout) as { client_id: string; client_secret: string };
    const config = await client.discovery(new URL(issuer), app.client_id, undefined, client.ClientSecretBasic(app.client_secret), { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const [state_value, nonce] = [client.randomState(), client.randomNonce()];
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: "openid email",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state: state_value,
      nonce,
    });
    const { callback } = await authorize(new Browser(), url.href, { password: PASSWORD, callback_prefix: REDIRECT_URI });
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state_value, expectedNonce: nonce });
    const alice = (JSON.parse(exec(["users", "list", "--json"]).stdout) as { id: string }[])[0]!;
    expect(tokens.claims()!.sub).toBe(alice.id);
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, alice.id);
    expect(userinfo).toMatchObject({ sub: alice.id, email: "alice@example.com", email_verified: true });
  }, 30_000);

  test("arguments replace `serve` (docker run IMAGE users list): a one-shot container on the same /data", async () => {
    const version = start(`idp-version-${process.pid}`, { args: ["--version"] });
    expect(await version.exited).toBe(0);
    expect(readFileSync(version.out, "utf8")).toBe(`idp ${pkg.version}\n`);
    const list = start(`idp-list-${process.pid}`, { args: ["users", "list", "--json"] });
    expect(await list.exited).toBe(0);
    expect((JSON.parse(readFileSync(list.out, "utf8")) as { username: string }[]).map((u) => u.username)).toEqual(["alice"]);
  }, 30_000);

  test("a /data it cannot write stops the start with the reason: mounted read-only, or owned by root", async () => {
    const read_only = start(`idp-ro-${process.pid}`, { read_only_data: true, port: 0 });
    expect(await read_only.exited).toBe(1);
    expect(readFileSync(read_only.err, "utf8")).toContain("the SQLite database /data/idp.sqlite is not writable by this process (uid 65532)");
    const roots = join(work, "root-owned");
    mkdirSync(roots);
    chmodSync(roots, 0o755);
    const root_owned = start(`idp-root-${process.pid}`, { source: roots, port: 0 });
    expect(await root_owned.exited).toBe(1);
    expect(readFileSync(root_owned.err, "utf8")).toContain("its directory /data is not writable");
  }, 30_000);

  test("SIGTERM (runc kill, docker stop) stops it gracefully: exit 0, `stopped` logged", async () => {
    expect(run("runc", ["--root", state, "kill", server.name, "TERM"]).status).toBe(0);
    expect(await server.exited).toBe(0);
    expect(readFileSync(server.out, "utf8")).toContain('"msg":"stopped"');
  }, 30_000);
});
