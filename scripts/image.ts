/**
 * `npm run image`: the container image, built offline from the compiled executable — no container
 * daemon, no registry, no base image. The layer is written here (scripts/image/tar.ts) from the
 * files scripts/image/rootfs.ts finds on this machine; Debian's `umoci` makes the OCI image
 * layout around it, and Debian's `skopeo` the archive that `docker load` and `podman load` read.
 *
 *   dist/image/           OCI image layout, tagged <version> and latest
 *   dist/idp-image.tar    docker-archive (`docker save`'s format, which every `docker load` and
 *                         `podman load` accept; an OCI archive only loads into Docker 25 or later),
 *                         tagged idp:<version> and idp:latest
 *
 * Reproducible: every time in the image (file times, the config's `created`, its history) is
 * SOURCE_DATE_EPOCH, by default the time of the last commit; entries are sorted and owned by
 * numbers, not names. Two builds of one commit give the same manifest digest, and the
 * executable itself builds to the same bytes (tests/image.test.ts compares both).
 *
 *   bun run scripts/image.ts [--executable PATH] [--out DIR]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { ConfigSchema } from "../src/config/schema.ts";
import { build_executable, ROOT } from "./build.ts";
import { DATA_DIR, EXECUTABLE, IMAGE_NAME, USER } from "./image/names.ts";
import { image_contents } from "./image/rootfs.ts";
import { write_tar } from "./image/tar.ts";

export type ImageOptions = {
  /** A compiled executable to put in the image; built into `<out>/idp` when not given. */
  executable?: string;
  /** Where dist/image and dist/idp-image.tar go (default dist/). */
  out?: string;
  /** Seconds since the epoch for every time in the image (default: SOURCE_DATE_EPOCH, else the last commit's time). */
  source_date_epoch?: number;
};

export type BuiltImage = {
  layout: string;
  archive: string;
  version: string;
  /** The image manifest's digest: the same for two builds of one commit. */
  manifest_digest: string;
  /** The config's digest: the image ID `docker images` shows after `docker load`. */
  config_digest: string;
  /** The layer as stored and downloaded (gzip) and as unpacked (the tar). */
  compressed_bytes: number;
  unpacked_bytes: number;
  archive_bytes: number;
  executable_bytes: number;
  seconds: number;
};

/** Runs a tool, throwing its stderr when it fails; names the Debian package when it is missing. */
function tool(command: string, args: string[], cwd = ROOT): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.error) {
    const missing = (result.error as NodeJS.ErrnoException).code === "ENOENT";
    throw new Error(missing ? `npm run image needs ${command} (Debian: apt-get install ${command})` : `${command}: ${result.error.message}`);
  }
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}:\n${result.stderr}`);
  return result.stdout;
}

function git(args: string[]): string | null {
  const result = spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** SOURCE_DATE_EPOCH (reproducible-builds.org), else the last commit's time. */
function source_date_epoch(): number {
  const text = process.env.SOURCE_DATE_EPOCH ?? git(["log", "-1", "--format=%ct"]);
  if (text === null || !/^\d+$/.test(text)) throw new Error("npm run image: set SOURCE_DATE_EPOCH (seconds since 1970), or build from a git checkout");
  return Number(text);
}

/** The `repository` of package.json, as the image's source label. */
function source_url(): string | null {
  const repository = (pkg as { repository?: string | { url?: string } }).repository;
  return typeof repository === "string" ? repository : (repository?.url ?? null);
}

function blob(layout: string, digest: string): string {
  return readFileSync(join(layout, "blobs", ...digest.split(":")), "utf8");
}

/** Builds the image; see the file's comment. */
export async function build_image(options: ImageOptions = {}): Promise<BuiltImage> {
  const started = performance.now();
  const out = resolve(options.out ?? join(ROOT, "dist"));
  mkdirSync(out, { recursive: true });
  const executable = options.executable === undefined ? (await build_executable(join(out, "idp"))).outfile : resolve(options.executable);
  const epoch = options.source_date_epoch ?? source_date_epoch();
  const created = new Date(epoch * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const version = pkg.version;
  const revision = git(["rev-parse", "HEAD"]) ?? "unknown";
  const defaults = ConfigSchema.parse({});

  const work = mkdtempSync(join(out, ".image-"));
  try {
    const layout = join(work, "image");
    const layer = join(work, "layer.tar");
    const unpacked_bytes = write_tar(layer, image_contents(executable).entries, epoch);

    const at = `${layout}:${version}`;
    const history = ["--history.created", created];
    tool("umoci", ["init", "--layout", layout]);
    tool("umoci", ["new", "--image", at]);
    // `umoci new` dates the empty image now; every later step is dated SOURCE_DATE_EPOCH.
    tool("umoci", ["config", "--image", at, "--created", created, "--no-history"]);
    tool("umoci", ["raw", "add-layer", "--image", at, ...history, "--history.created_by", "npm run image (scripts/image.ts)", layer]);

    const labels: Record<string, string> = {
      "org.opencontainers.image.title": "idp",
      "org.opencontainers.image.description": pkg.description,
      "org.opencontainers.image.version": version,
      "org.opencontainers.image.revision": revision,
      "org.opencontainers.image.licenses": pkg.license,
      "org.opencontainers.image.created": created,
    };
    const source = source_url();
    if (source !== null) labels["org.opencontainers.image.source"] = source;
    const config = [
      ["--config.user", `${USER.uid}:${USER.gid}`],
      ["--config.entrypoint", EXECUTABLE],
      // `docker run IMAGE` serves; `docker run IMAGE users add …` runs that command instead.
      ["--config.cmd", "serve"],
      ["--config.workingdir", DATA_DIR],
      ["--config.volume", DATA_DIR],
      ["--config.exposedports", `${defaults.port}/tcp`],
      ["--config.stopsignal", "SIGTERM"],
      ["--config.env", `PATH=${EXECUTABLE.slice(0, EXECUTABLE.lastIndexOf("/"))}`],
      // Reachable from outside the container's own network namespace.
      ["--config.env", "HOST=0.0.0.0"],
      ["--config.env", `DATABASE_URL=sqlite:${DATA_DIR}/idp.sqlite`],
      ...Object.entries(labels).flatMap(([key, value]) => [
        ["--config.label", `${key}=${value}`],
        ["--manifest.annotation", `${key}=${value}`],
      ]),
      ["--os", "linux"],
      ["--architecture", process.arch === "x64" ? "amd64" : process.arch],
      ["--created", created],
    ].flat();
    tool("umoci", ["config", "--image", at, ...config, ...history, "--history.created_by", "npm run image: user, entrypoint, environment, labels"]);
    tool("umoci", ["tag", "--image", at, "latest"]);
    tool("umoci", ["gc", "--layout", layout]);

    const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8")) as { manifests: { digest: string; annotations?: Record<string, string> }[] };
    const manifest_digest = index.manifests.find((m) => m.annotations?.["org.opencontainers.image.ref.name"] === version)!.digest;
    const manifest = JSON.parse(blob(layout, manifest_digest)) as { config: { digest: string }; layers: { size: number }[] };

    // docker-archive: the format of `docker save` before Docker 25, which every `docker load`
    // and `podman load` read. --insecure-policy: the source is the layout just written here, no
    // signature to check (the default policy file may be missing on a build machine).
    const archive = join(work, "idp-image.tar");
    tool("skopeo", ["--insecure-policy", "copy", "--quiet", "--additional-tag", `${IMAGE_NAME}:latest`, `oci:${at}`, `docker-archive:${archive}:${IMAGE_NAME}:${version}`]);

    const final = { layout: join(out, "image"), archive: join(out, "idp-image.tar") };
    rmSync(final.layout, { recursive: true, force: true });
    rmSync(final.archive, { force: true });
    renameSync(layout, final.layout);
    renameSync(archive, final.archive);
    return {
      ...final,
      version,
      manifest_digest,
      config_digest: manifest.config.digest,
      compressed_bytes: manifest.layers.reduce((total, each) => total + each.size, 0),
      unpacked_bytes,
      archive_bytes: statSync(final.archive).size,
      executable_bytes: statSync(executable).size,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { executable: { type: "string" }, out: { type: "string" } } });
  const built = await build_image({ ...(values.executable ? { executable: values.executable } : {}), ...(values.out ? { out: values.out } : {}) });
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  console.log(`built ${built.layout} (${IMAGE_NAME}:${built.version}, latest) and ${built.archive} in ${built.seconds.toFixed(1)} s
  manifest  ${built.manifest_digest}
  image ID  ${built.config_digest}
  size      ${mb(built.compressed_bytes)} compressed, ${mb(built.unpacked_bytes)} unpacked (the executable: ${mb(built.executable_bytes)}); archive ${mb(built.archive_bytes)}
load it:    docker load -i ${built.archive}    (or podman load -i)`);
}
