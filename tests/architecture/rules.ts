// Architecture rules for src/, checked by tests/architecture/imports.test.ts.
// The layers and why they are shaped this way are explained in docs/ARCHITECTURE.md.
//
//   1. fw imports only fw (the HTTP framework knows nothing of OpenID); its server adapters
//      (fw/runtime/) also read which runtime runs (platform/which.ts), and nothing else of ours.
//   2. config and platform are leaves: each imports only itself.
//   3. store may import store, platform, config.
//   4. oidc may import oidc, store, platform, config.
//   5. http may import http, fw, oidc, store, platform, config.
//   6. app and cli may import anything of ours; any other top-level entry of src/ is an
//      unknown layer and fails until it is added to LAYERS below.
//   7. Runtime-specific APIs only in the runtime adapters. Bun's — `import … from "bun"`, any
//      "bun:*" module, the `Bun` global in code (types included; comments and strings do not
//      count), Bun's own `import.meta` members (dir, file, path, main) — and Deno's — the `Deno`
//      global, "npm:" and "jsr:" specifiers — only under RUNTIME_FOLDERS; within
//      src/fw/runtime/ and src/platform/ only in a file whose name says which runtime it is for
//      (`serve_bun.ts`, `serve_deno.ts`), so no file there names two. Which runtime runs is asked
//      in src/platform/which.ts alone (`"Deno" in globalThis`, `typeof Bun`, process.versions.bun…),
//      and its RUNTIME is read only by the adapters' selectors (RUNTIME_FOLDERS). "node:*"
//      builtins are portable and allowed everywhere, and so are `import.meta.url` (with
//      node:url's fileURLToPath), `import.meta.dirname` and `import.meta.filename`; but the
//      database clients (DRIVER_MODULES: node:sqlite, the npm postgres) only in STORE_DRIVERS.
//   8. No import cycles between files of src/ (`import type` and `export … from` count).
//   (0. Housekeeping: every relative import that stays inside src/ resolves to a file.)
//
// The checker works on an in-memory map { "src/…/….ts": source }, so the tests can run it
// on synthetic trees as well as on the real one (load_tree).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";

export const LAYERS: Record<string, readonly string[] | "*"> = {
  fw: ["fw"],
  config: ["config"],
  platform: ["platform"],
  store: ["store", "platform", "config"],
  oidc: ["oidc", "store", "platform", "config"],
  http: ["http", "fw", "oidc", "store", "platform", "config"],
  app: "*",
  cli: "*",
};
const LAYER_RULE: Record<string, number> = { fw: 1, config: 2, platform: 2, store: 3, oidc: 4, http: 5 };
/** Where runtime-specific code may be: the adapters of each seam (docs/decisions/0002-runtime-seam.md). */
export const RUNTIME_FOLDERS = ["src/fw/runtime/", "src/store/sqlite/", "src/store/postgres/", "src/platform/"];
/** The store's driver files (src/store/*\/driver.ts): the only files that load a database client. */
export const STORE_DRIVERS = ["src/store/sqlite/bun_sqlite.ts", "src/store/sqlite/node_sqlite.ts", "src/store/postgres/bun_sql.ts", "src/store/postgres/postgres_js.ts"];
const DRIVER_MODULES = ["node:sqlite", "postgres"];
/** The store drivers built on a runtime's own client (the others use portable node: or npm clients). */
const STORE_RUNTIME_DRIVERS: Record<RuntimeName, readonly string[]> = { bun: ["src/store/sqlite/bun_sqlite.ts", "src/store/postgres/bun_sql.ts"], deno: [] };
/** The one file that asks which runtime runs. */
export const WHICH = "src/platform/which.ts";

type RuntimeName = "bun" | "deno";

/**
 * Whether `file` may name `runtime`'s APIs: in src/fw/runtime/ and src/platform/ a file whose
 * name says it is for that runtime (`serve_bun.ts`); in the store, that runtime's drivers.
 */
export function may_name(file: string, runtime: RuntimeName): boolean {
  if (file.startsWith("src/store/")) return STORE_RUNTIME_DRIVERS[runtime].includes(file);
  if (!RUNTIME_FOLDERS.some((p) => file.startsWith(p))) return false;
  return file.endsWith(`_${runtime}.ts`);
}

const where = (runtime: RuntimeName) =>
  `outside the ${runtime === "bun" ? "Bun" : "Deno"} adapters (*_${runtime}.ts in src/fw/runtime/ and src/platform/${runtime === "bun" ? "; the store's Bun drivers" : ""})`;

export type Violation = { rule: number; file: string; line: number; specifier?: string; target?: string; message: string };
export type Import = { specifier: string; line: number; target?: string };

/** Reads every .ts file under `dir` (default: ./src) into a { "src/…": source } map. */
export function load_tree(root = process.cwd(), dir = "src"): Record<string, string> {
  const files: Record<string, string> = {};
  for (const rel of readdirSync(posix.join(root, dir), { recursive: true, encoding: "utf8" }).sort()) {
    const path = posix.join(dir, rel.split("\\").join("/"));
    if (path.endsWith(".ts") && existsSync(posix.join(root, path))) files[path] = readFileSync(posix.join(root, path), "utf8");
  }
  return files;
}

/**
 * Returns [code, blank]: `code` is the source with comments replaced by spaces; `blank` also has
 * the contents of string, template and regex literals replaced by spaces (template `${…}` stays
 * code). Both keep every newline and every offset, so positions map 1:1 to the original.
 */
export function strip(src: string): [string, string] {
  const code = src.split(""),
    blank = src.split("");
  const wipe = (from: number, to: number, both: boolean) => {
    for (let k = from; k < to; k++)
      if (src[k] !== "\n") {
        blank[k] = " ";
        if (both) code[k] = " ";
      }
  };
  const stack: number[] = []; // brace depth at each open `${`, to know where a template resumes
  let depth = 0,
    last = "",
    i = 0;
  const regex_can_start = () => last === "" || /[(,=:[!&|?{};+\-*%<>~^]$/.test(last) || /^(return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/.test(last);
  const template = (start: number) => {
    // scans template text from `start`, returns index after it
    let j = start;
    while (j < src.length && src[j] !== "`") {
      if (src[j] === "\\") j += 2;
      else if (src[j] === "$" && src[j + 1] === "{") {
        wipe(start, j, false);
        stack.push(depth++);
        return j + 2;
      } else j++;
    }
    wipe(start, j, false);
    return j + 1;
  };
  while (i < src.length) {
    const c = src[i]!,
      n = src[i + 1];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "/" && n === "/") {
      const e = src.indexOf("\n", i);
      const end = e < 0 ? src.length : e;
      wipe(i, end, true);
      i = end;
      continue;
    }
    if (c === "/" && n === "*") {
      const e = src.indexOf("*/", i + 2);
      const end = e < 0 ? src.length : e + 2;
      wipe(i, end, true);
      i = end;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      wipe(i + 1, j, false);
      i = j + 1;
      last = "str";
      continue;
    }
    if (c === "`") {
      i = template(i + 1);
      last = "str";
      continue;
    }
    if (c === "}" && stack.length && stack[stack.length - 1] === depth - 1) {
      stack.pop();
      depth--;
      i = template(i + 1);
      last = "str";
      continue;
    }
    if (c === "/" && regex_can_start()) {
      let j = i + 1,
        cls = false;
      while (j < src.length && src[j] !== "\n" && (cls || src[j] !== "/")) {
        if (src[j] === "\\") j++;
        else if (src[j] === "[") cls = true;
        else if (src[j] === "]") cls = false;
        j++;
      }
      wipe(i + 1, j, false);
      i = j + 1;
      last = "re";
      continue;
    }
    if (c === "{") depth++;
    if (c === "}") depth--;
    const word = /^[\w$]+/.exec(src.slice(i, i + 64));
    last = word ? word[0] : c;
    i += word ? word[0].length : 1;
  }
  return [code.join(""), blank.join("")];
}

const line_at = (src: string, index: number) => src.slice(0, index).split("\n").length;
const IMPORT_PATTERNS = [
  // import x from / import type { a, b } from / import * as x from / export { a } from / export * from
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\}|[\w$]+)\s*from\s*(["'])([^"'\n]+)\1/g,
  /\bimport\s*(["'])([^"'\n]+)\1/g, // import "x" (side effect)
  /\bimport\s*\(\s*(["'`])([^"'`\n]+)\1\s*\)/g, // import("x")
];

/** Every import / re-export / dynamic import with a literal specifier, in source order. */
export function scan_imports(src: string): Import[] {
  const [code, blank] = strip(src);
  const found: { index: number; specifier: string }[] = [];
  for (const pattern of IMPORT_PATTERNS)
    for (const m of code.matchAll(pattern)) if (blank[m.index] === code[m.index]) found.push({ index: m.index + m[0].lastIndexOf(m[2]!), specifier: m[2]! });
  return found.sort((a, b) => a.index - b.index).map((f) => ({ specifier: f.specifier, line: line_at(src, f.index) }));
}

/** Resolves a relative specifier against the file map (exact path, then `.ts`, then `/index.ts`). */
export function resolve(from: string, specifier: string, files: Record<string, string>): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  return [base, `${base}.ts`, `${base}/index.ts`].find((p) => p in files);
}

const layer_of = (file: string) => (file.split("/").length > 2 ? file.split("/")[1]! : "(src root)");
export const is_bun_module = (s: string) => s === "bun" || s.startsWith("bun:");
const is_deno_module = (s: string) => s.startsWith("npm:") || s.startsWith("jsr:");
export const BUN_GLOBAL = /(?<![\w$.])Bun\s*(?:\?\.|\.|\[)\s*[\w$"']*|\bglobalThis\s*\??\.\s*Bun\b/g;
const DENO_GLOBAL = /(?<![\w$.])Deno\s*(?:\?\.|\.|\[)\s*[\w$"']*|\bglobalThis\s*\??\.\s*Deno\b/g;
/** Asking which runtime runs (on code with comments removed and strings kept). */
const RUNTIME_QUESTION = /(["'])(?:Bun|Deno)\1\s+in\s+globalThis\b|\btypeof\s+(?:Bun|Deno)\b|\bversions\s*(?:\??\.\s*(?:bun|deno)\b|\[\s*(["'])(?:bun|deno)\2\s*\])/g;
/** `import.meta` members only Bun defines (https://bun.sh/docs/api/import-meta). */
export const BUN_IMPORT_META = /(?<![\w$.])import\s*\.\s*meta\s*\??\.\s*(?:dir|file|path|main)(?![\w$])/g;

/** Checks all eight rules over the file map; returns violations sorted by rule, file, line. */
export function check(files: Record<string, string>): Violation[] {
  const out: Violation[] = [];
  const graph = new Map<string, string[]>();
  const unknown = new Set<string>();
  for (const [file, src] of Object.entries(files)) {
    const layer = layer_of(file);
    if (!(layer in LAYERS) && !unknown.has(layer)) {
      unknown.add(layer);
      out.push({ rule: 6, file: layer === "(src root)" ? file : `src/${layer}/`, line: 0, message: `unknown layer "${layer}": add it to the rules` });
    }
    const bun_ok = may_name(file, "bun");
    const deno_ok = may_name(file, "deno");
    const adapter_folder = RUNTIME_FOLDERS.some((p) => file.startsWith(p));
    const edges: string[] = [];
    for (const imp of scan_imports(src)) {
      const at = { file, line: imp.line, specifier: imp.specifier };
      if (!imp.specifier.startsWith(".")) {
        if (is_bun_module(imp.specifier) && !bun_ok) out.push({ ...at, rule: 7, message: `Bun module import ${where("bun")}` });
        if (is_deno_module(imp.specifier) && !deno_ok) out.push({ ...at, rule: 7, message: `Deno module specifier ${where("deno")}` });
        if (DRIVER_MODULES.includes(imp.specifier) && !STORE_DRIVERS.includes(file))
          out.push({ ...at, rule: 7, message: `database client import outside ${STORE_DRIVERS.join(", ")}` });
        continue;
      }
      const target = resolve(file, imp.specifier, files);
      if (!target && !posix.join(posix.dirname(file), imp.specifier).startsWith("src/")) continue; // e.g. ../../package.json
      if (!target) {
        out.push({ ...at, rule: 0, message: "relative import does not resolve to a file in src/" });
        continue;
      }
      edges.push(target);
      if (target === WHICH && !adapter_folder) {
        out.push({ ...at, target, rule: 7, message: `which runtime runs is read only by the adapters' selectors (${RUNTIME_FOLDERS.join(", ")})` });
      }
      const allowed = LAYERS[layer],
        to = layer_of(target);
      // The server adapters' selectors read which runtime runs: the one thing of platform fw may import.
      if (target === WHICH && file.startsWith("src/fw/runtime/")) continue;
      if (Array.isArray(allowed) && !allowed.includes(to))
        out.push({ ...at, target, rule: LAYER_RULE[layer] ?? 6, message: `${layer} must not import ${to} (${layer} may import only ${allowed.join(", ")})` });
    }
    graph.set(file, edges);
    const [code, blank] = strip(src);
    const found = (m: RegExpMatchArray, message: string) => out.push({ rule: 7, file, line: line_at(src, m.index!), specifier: m[0].replace(/\s+/g, ""), message });
    if (!bun_ok) {
      for (const m of blank.matchAll(BUN_GLOBAL)) found(m, `Bun global used ${where("bun")}`);
      for (const m of blank.matchAll(BUN_IMPORT_META)) found(m, `Bun-only import.meta member used ${where("bun")}`);
    }
    if (!deno_ok) for (const m of blank.matchAll(DENO_GLOBAL)) found(m, `Deno global used ${where("deno")}`);
    if (file !== WHICH) {
      // Matched on the code with its strings (`"Deno" in globalThis`), but not inside a string.
      for (const m of code.matchAll(RUNTIME_QUESTION)) if (blank[m.index!] !== " ") found(m, `asks which runtime runs: only ${WHICH} does`);
    }
  }
  for (const { cycle, component } of find_cycles(graph)) {
    const rest = component.length > cycle.length - 1 ? ` (component of ${component.length} files: ${component.join(", ")})` : "";
    out.push({ rule: 8, file: cycle[0]!, line: 0, message: `import cycle: ${cycle.join(" → ")}${rest}` });
  }
  return out.sort((a, b) => a.rule - b.rule || a.file.localeCompare(b.file) || a.line - b.line);
}

/** Tarjan SCC; for each component with a cycle, one concrete cycle path through its first file. */
export function find_cycles(graph: Map<string, string[]>): { cycle: string[]; component: string[] }[] {
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    onStack = new Set<string>();
  const stack: string[] = [],
    sccs: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      sccs.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  const cycles: { cycle: string[]; component: string[] }[] = [];
  for (const scc of sccs) {
    const start = scc[0]!,
      members = new Set(scc);
    if (scc.length === 1 && !(graph.get(start) ?? []).includes(start)) continue;
    // breadth-first search inside the component for the shortest path start → … → start
    const prev = new Map<string, string>(),
      queue = [start];
    while (queue.length && !prev.has(start)) {
      const v = queue.shift()!;
      for (const w of graph.get(v) ?? [])
        if (members.has(w) && !prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
    }
    const path = [start];
    for (let v = prev.get(start)!; v !== start; v = prev.get(v)!) path.unshift(v);
    cycles.push({ cycle: [start, ...path], component: scc });
  }
  return cycles.sort((a, b) => a.cycle[0]!.localeCompare(b.cycle[0]!));
}

/** One line per violation: `file:line  "specifier" → target  [rule N] message`. */
export function format(v: Violation): string {
  const where = v.line ? `${v.file}:${v.line}` : v.file;
  const what = v.specifier ? ` ${JSON.stringify(v.specifier)}${v.target ? ` → ${v.target}` : ""}` : "";
  return `${where}${what}  [rule ${v.rule}] ${v.message}`;
}
