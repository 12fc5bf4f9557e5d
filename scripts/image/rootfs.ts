/**
 * What the container image holds (scripts/image.ts), found on this machine: the executable, the
 * shared libraries it loads — those it links (`ldd`) and those it opens at run time (libsodium
 * for argon2id, src/platform/argon2/ffi.ts; libcrypto for RS256, src/platform/openssl.ts), with
 * their own dependencies — the dynamic loader, the CA certificates, their Debian copyright
 * notices, and an /etc with the one non-root user. No shell, no package manager, nothing else.
 *
 * Each library is stored under the path the loader found it at (e.g.
 * /lib/x86_64-linux-gnu/libc.so.6), one of glibc's default search directories, so no
 * ld.so.cache is needed; its bytes are those of the file the path resolves to.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { LIBSODIUM_NAMES } from "../../src/platform/argon2/ffi.ts";
import { LIBCRYPTO_NAMES } from "../../src/platform/openssl.ts";
import { DATA_DIR, EXECUTABLE, USER } from "./names.ts";
import type { TarEntry } from "./tar.ts";

export const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** The libraries opened with dlopen(), by soname: the Linux name of each list. */
export const DLOPENED = [LIBSODIUM_NAMES[0], LIBCRYPTO_NAMES[0]];

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.error) throw new Error(`npm run image: cannot run ${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`npm run image: ${command} ${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** The libraries `file` loads (ldd), the loader included, as absolute paths; throws on "not found". */
export function linked_libraries(file: string): string[] {
  const found: string[] = [];
  for (const line of run("ldd", [file]).split("\n")) {
    const text = line.trim();
    if (text === "" || text.startsWith("linux-vdso") || text === "statically linked") continue;
    if (text.includes("=> not found")) throw new Error(`npm run image: ${file} needs ${text.split(" ")[0]}, which is not installed`);
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" or "/lib64/ld-linux-x86-64.so.2 (0x…)"
    const path = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)$/.exec(text)?.[1];
    if (path === undefined) throw new Error(`npm run image: cannot read ldd's line "${text}"`);
    found.push(path);
  }
  return found;
}

/** ldconfig's word for this machine's ABI in `ldconfig -p` ("libc6,x86-64"). */
function ldconfig_abi(): string {
  if (process.arch === "x64") return "x86-64";
  if (process.arch === "arm64") return "AArch64";
  throw new Error(`npm run image: no image for ${process.arch} (x64 and arm64 only)`);
}

/** Where the loader finds `soname` (from ldconfig's cache), for this machine's ABI. */
export function find_library(soname: string): string {
  const ldconfig = ["/usr/sbin/ldconfig", "/sbin/ldconfig"].find((path) => existsSync(path)) ?? "ldconfig";
  const abi = ldconfig_abi();
  for (const line of run(ldconfig, ["-p"]).split("\n")) {
    const match = /^\s*(\S+) \(([^)]*)\) => (\S+)$/.exec(line);
    if (match && match[1] === soname && match[2]!.split(",").includes(abi)) return match[3]!;
  }
  const package_name = soname.startsWith("libsodium") ? "libsodium23" : soname.startsWith("libcrypto") ? "libssl3" : soname;
  throw new Error(`npm run image: ${soname} is not installed (Debian: apt-get install ${package_name}); the image must carry it`);
}

/**
 * The Debian packages that own `paths` (`dpkg -S`), none where dpkg is missing. Each path is
 * asked as found and as resolved: on a merged-/usr system dpkg knows a file by one of the two.
 */
function owning_packages(paths: string[]): Set<string> {
  const result = spawnSync("dpkg", ["-S", ...new Set(paths.flatMap((path) => [path, realpathSync(path)]))], { encoding: "utf8" });
  const owners = new Set<string>();
  if (result.error) return owners;
  for (const line of result.stdout.split("\n")) {
    // "libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6"
    const match = /^([^:,\s]+)(?::[^:\s]+)?: \//.exec(line);
    if (match) owners.add(match[1]!);
  }
  return owners;
}

export type Contents = {
  entries: TarEntry[];
  /** Every library in the image, by its path there (the loader first). */
  libraries: string[];
};

const root_owned = { uid: 0, gid: 0 } as const;
const text = (value: string) => new TextEncoder().encode(value);

/** The image's files, with every directory they need: the executable at `executable`. */
export function image_contents(executable: string): Contents {
  // The executable's libraries, then the dlopen()ed ones and what they link in turn.
  const libraries = new Set(linked_libraries(executable));
  for (const soname of DLOPENED) {
    const path = find_library(soname);
    libraries.add(path);
    for (const dependency of linked_libraries(realpathSync(path))) libraries.add(dependency);
  }
  if (!existsSync(CA_BUNDLE)) throw new Error(`npm run image: ${CA_BUNDLE} is missing (Debian: apt-get install ca-certificates)`);

  const entries: TarEntry[] = [
    { path: EXECUTABLE.slice(1), type: "file", mode: 0o755, ...root_owned, source: executable },
    { path: CA_BUNDLE.slice(1), type: "file", mode: 0o644, ...root_owned, source: CA_BUNDLE },
    ...[...libraries].map((path): TarEntry => ({ path: path.slice(1), type: "file", mode: 0o755, ...root_owned, source: realpathSync(path) })),
    // The user the process runs as, and the names the C library looks up.
    {
      path: "etc/passwd",
      type: "file",
      mode: 0o644,
      ...root_owned,
      content: text(`root:x:0:0:root:/root:/sbin/nologin\n${USER.name}:x:${USER.uid}:${USER.gid}:${USER.name}:${DATA_DIR}:/sbin/nologin\n`),
    },
    { path: "etc/group", type: "file", mode: 0o644, ...root_owned, content: text(`root:x:0:\n${USER.name}:x:${USER.gid}:\n`) },
    { path: "etc/nsswitch.conf", type: "file", mode: 0o644, ...root_owned, content: text("passwd: files\ngroup: files\nhosts: files dns\n") },
    // Container engines mount their own /etc/hosts; this one serves runc and the like.
    { path: "etc/hosts", type: "file", mode: 0o644, ...root_owned, content: text("127.0.0.1\tlocalhost\n::1\tlocalhost\n") },
    { path: DATA_DIR.slice(1), type: "dir", mode: 0o700, uid: USER.uid, gid: USER.gid },
    { path: "tmp", type: "dir", mode: 0o1777, ...root_owned },
    // Mount points the runtime fills; present so that a read-only root needs no mkdir.
    ...["dev", "proc", "sys"].map((path): TarEntry => ({ path, type: "dir", mode: 0o755, ...root_owned })),
  ];

  // The licences of the libraries and of the CA list (glibc's LGPL asks for its notice).
  const packages = owning_packages([...libraries]);
  if (packages.size > 0) packages.add("ca-certificates");
  for (const name of [...packages].sort()) {
    const copyright = `/usr/share/doc/${name}/copyright`;
    if (existsSync(copyright)) entries.push({ path: copyright.slice(1), type: "file", mode: 0o644, ...root_owned, source: copyright });
  }
  return { entries: with_parents(entries), libraries: [...libraries] };
}

/** `entries` and every directory above them that is not listed (root's, mode 0755). */
function with_parents(entries: TarEntry[]): TarEntry[] {
  const listed = new Set(entries.map((entry) => entry.path));
  const parents: TarEntry[] = [];
  for (const entry of entries) {
    for (let dir = dirname(entry.path); dir !== "." && !listed.has(dir); dir = dirname(dir)) {
      listed.add(dir);
      parents.push({ path: dir, type: "dir", mode: 0o755, ...root_owned });
    }
  }
  return [...entries, ...parents];
}
