/**
 * GET /static/*: the stylesheet and other assets of the pages. Files are read once at start into
 * a table keyed by name, so a request can only ever get a file that was in the folder (no path
 * traversal to guard against). The operator's brand files (oidc/ui/brand.ts) are served under brand/,
 * their URLs versioned by their content (`?v=`), so they are cached for a year.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Fw } from "../../../fw/index.ts";
import { brand_files } from "../../../oidc/ui/brand.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { NotModified, cached_bytes } from "../../precomputed.ts";
import { VENDOR_FILES } from "../../vendor_files.ts";

export const STATIC_DIR = fileURLToPath(new URL("../../../../static", import.meta.url).href);

const TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export type StaticFile = { bytes: Uint8Array; type: string; etag: string };

/** A file served as `/static/<name>`, or null when its type is not one we serve. */
export function static_file(name: string, bytes: Uint8Array): StaticFile | null {
  const type = TYPES[extname(name).toLowerCase()];
  if (type === undefined || basename(name).startsWith(".")) return null;
  return { bytes, type, etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"` };
}

/** Reads every file of `dir` (recursively) with a known type. */
export function load_static(dir: string = STATIC_DIR): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const name = `${prefix}${entry.name}`;
      if (entry.isDirectory()) walk(join(folder, entry.name), `${name}/`);
      else {
        const file = static_file(name, new Uint8Array(readFileSync(join(folder, entry.name))));
        if (file !== null) files.set(name, file);
      }
    }
  };
  walk(dir, "");
  for (const [name, path] of Object.entries(VENDOR_FILES)) {
    const file = static_file(name, new Uint8Array(readFileSync(join(STATIC_DIR, "..", path))));
    if (file !== null) files.set(name, file);
  }
  return files;
}

/**
 * An SVG opened as a document (not through `<img>`) would run its scripts on our origin: none
 * may run, nothing may load, and it gets no origin of its own (CSP sandbox).
 */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export const Static = (idp: Provider, files: Map<string, StaticFile> = load_static()) => {
  const brand = new Map(brand_files(idp.brand).map((file) => [file.name, { bytes: file.bytes, type: file.type, etag: `"${file.version}"` }]));
  return class Static extends Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Bytes, NotModified]) {
    static route = "GET /static/*";
    call() {
      const name = this.params["*"] ?? "";
      const branded = brand.get(name);
      const file = branded ?? files.get(name);
      if (file === undefined) throw new Fw.NotFound(this.request.path);
      if (file.type === "image/svg+xml") this.response.headers.set("content-security-policy", SVG_CSP);
      // Brand files are fingerprinted (?v=): a year. The others are not: a day, revalidated by ETag afterwards.
      return cached_bytes(this.context, file.bytes, file.type, file.etag, branded === undefined ? 86400 : 31536000);
    }
  };
};
