// Every file a comment or a document names exists: a file moved or renamed without its
// mentions fails here, naming the mention (`file:line "word"`) and where it was looked for.
//
// Where mentions are read:
// - the comments of the TypeScript in src/, tests/, scripts/ and main.ts (strings and code do
//   not count: tests/architecture/rules.ts `strip` tells them apart);
// - the whole text of README.md, SECURITY.md, docs/*.md, docs/decisions/*.md and the README.md
//   files inside src/. Not bench/RESULTS.md (a record of past runs names the files of its day)
//   nor CHANGELOG.md (it names files that were renamed, on purpose).
//
// What a mention is. Text is cut into words at white space and at ` ' " ( ) [ ] , ; | (a
// `{a,b}` group stays in its word); a word loses a trailing `.:!?`, a `#anchor` and a `:line`
// suffix. A word is a mention when it ends in one of EXTENSIONS and:
// - it has a `/`: a path, checked wherever it appears. Resolved by its first segment: ./ and
//   ../ next to the mentioning file (a document's also from the repository's root); a
//   top-level folder (ROOT_DIRS: `src/…`, `tests/…`, `docs/…`, `bench/…`, `scripts/…`,
//   `views/…`, `deploy/…`…) from the repository's root; a layer of src/ (SRC_DIRS: `oidc/…`,
//   `http/…`, `store/…`, `app/…`, `fw/…`…) under src/, or next to the mentioning file, or
//   under its own top-level folder (a test's `http/token.test.ts` is tests/http/token.test.ts);
//   anything else (`sqlite/access.ts`, `outbound/fetch.ts`) next to the mentioning file or as
//   the tail of a path in the repository;
// - it has no `/`: a bare file name, when it is the whole of a backticked span (`methods.ts`
//   between backticks) or, outside backticks, when it has a name and one of the extensions of
//   PROSE_NAME (so "Node.js" in prose is no mention). Found next to the mentioning file, or
//   anywhere in the repository (most are under src/); a name that exists nowhere is stale.
// Skipped: words with a glob or a placeholder (`*`, `<name>`, `…`, `$VAR`, `~`), URLs and host
// names (`://`, `example.com/x.js`), absolute paths (`/etc/…`), options (`--x=y.json`), calls
// (`this.json(body)`), and the names listed in NOT_FILES. A `{a,b}` group is expanded: each
// of its paths must exist.
//
// A bare name that still exists elsewhere passes even when the mention meant another file of
// that name; prefer the capability's folder (`signin/methods.ts`) when naming a file of another
// folder.
//
// And every link of those documents to a heading — `[Mail](#mail)` in the same document,
// `[Database](docs/configuration.md#database)` in another Markdown file of the repository, found
// from the linking document's folder — names a heading that exists there (GitHub's anchors,
// scripts/docs/anchors.ts), so a renamed heading or a section moved to another document fails
// here, naming the link.
import { describe, expect, test } from "../helpers/test_api.ts";
import { readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { anchors_of } from "../../scripts/docs/anchors.ts";
import { strip } from "../architecture/rules.ts";

const ROOT = posix
  .normalize(
    fileURLToPath(new URL("../..", import.meta.url))
      .split("\\")
      .join("/"),
  )
  .replace(/\/$/, "");

const EXTENSIONS = ["ts", "mts", "js", "mjs", "cjs", "json", "md", "eta", "css", "html", "txt", "lua", "conf", "service", "svg", "png", "sql", "sh", "yml", "yaml", "toml"];
const ROOT_DIRS = new Set(["src", "tests", "docs", "bench", "scripts", "views", "deploy", "static", "locales", "lists", "examples", "bin"]);
const SRC_DIRS = new Set(["fw", "config", "platform", "store", "oidc", "http", "app", "cli"]);
/** Names that look like files of ours and are not, each named on purpose. */
const NOT_FILES = new Set<string>([
  "logn.eta", // README, "Branding and themes": a misspelt template name, the example of a refused theme
]);
/** Folders never walked: dependencies, build output, local data. */
const SKIP_DIRS = new Set(["node_modules", ".git", "dist", "data", "test-artifacts"]);

const PATH_SHAPE = new RegExp(`^(?:\\.{1,2}/)*[\\w.-]+(?:/[\\w.-]+)*\\.(?:${EXTENSIONS.join("|")})$`);
const WORD = /(?:[^\s`'"()[\],;|{}]|\{[^{}\s]*\})+/g;
const PROSE_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:ts|eta|md|json|txt|css|sql|lua|conf)$/;
const SKIP_WORD = /[*<>$~…@?=%]|:\/\//;

type Mention = { file: string; line: number; word: string; bare: boolean; document: boolean };

/** Every file of the repository, as paths from its root ("src/oidc/provider.ts"). */
function repository_files(root = ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(posix.join(root, dir), { withFileTypes: true })) {
      if (SKIP_DIRS.has(entry.name)) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(path);
    }
  };
  walk("");
  return out.sort();
}

/** The text of a TypeScript file's comments, every other character blanked (offsets kept). */
function comment_text(src: string): string {
  const [code] = strip(src);
  let out = "";
  for (let k = 0; k < src.length; k++) out += code[k] !== src[k] || src[k] === "\n" ? src[k] : " ";
  return out;
}

/** `store/{sqlite,postgres}/tokens.ts` → one path per member of the group (recursively). */
function expand_braces(word: string): string[] {
  const m = /\{([^{}]*)\}/.exec(word);
  if (!m) return [word];
  return m[1]!.split(",").flatMap((part) => expand_braces(word.slice(0, m.index) + part + word.slice(m.index + m[0].length)));
}

/** The file mentions in `text` (a comment text or a Markdown document) of `file`. */
function mentions_in(file: string, text: string, document = false): Mention[] {
  const out: Mention[] = [];
  const line_starts = [0];
  for (let k = 0; k < text.length; k++) if (text[k] === "\n") line_starts.push(k + 1);
  const line_of = (index: number) => {
    let lo = 0,
      hi = line_starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (line_starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const backticked = new Map<number, string>(); // start offset → text of each backtick span
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const inner = m[1]!.trim();
    if (inner) backticked.set(m.index + 1 + m[1]!.indexOf(inner), inner);
  }
  for (const m of text.matchAll(WORD)) {
    const word = m[0]
      .replace(/#[\w-]*$/, "")
      .replace(/:\d+(?::\d+)?$/, "")
      .replace(/[.:!?]+$/, "");
    if (!word || SKIP_WORD.test(word) || (/^[/.-]/.test(word) && !/^\.{1,2}\//.test(word))) continue;
    if (text[m.index + m[0].length] === "(") continue; // a call: `this.json(body)`
    const first = word.split("/")[0]!;
    if (word.includes("/") && /^[\w-]+(?:\.[\w-]+)+$/.test(first)) continue; // a host name: example.com/x.js
    const bare = !word.includes("/");
    if (bare && backticked.get(m.index) !== word && !PROSE_NAME.test(word)) continue;
    for (const one of expand_braces(word)) if (PATH_SHAPE.test(one)) out.push({ file, line: line_of(m.index), word: one, bare, document });
  }
  return out;
}

type Index = { files: Set<string>; by_name: Map<string, string[]> };

function index_of(files: Iterable<string>): Index {
  const set = new Set(files),
    by_name = new Map<string, string[]>();
  for (const f of set) {
    const name = posix.basename(f);
    by_name.set(name, [...(by_name.get(name) ?? []), f]);
  }
  return { files: set, by_name };
}

/** Where a mention may be; empty when it was found. */
function unresolved(m: Mention, index: Index): string[] {
  const dir = posix.dirname(m.file),
    top = m.file.split("/")[0]!;
  const exists = (p: string) => index.files.has(posix.normalize(p));
  const tried: string[] = [];
  const any = (...candidates: string[]) => {
    for (const c of candidates) {
      const p = posix.normalize(c);
      if (exists(p)) return true;
      if (!tried.includes(p)) tried.push(p);
    }
    return false;
  };
  const w = m.word;
  if (m.bare) {
    if (any(posix.join(dir, w)) || NOT_FILES.has(w) || (index.by_name.get(w) ?? []).length > 0) return [];
    return [...tried, `any file named ${w}`];
  }
  if (w.startsWith("./") || w.startsWith("../")) return any(posix.join(dir, w), ...(m.document ? [w] : [])) ? [] : tried;
  const first = w.split("/")[0]!;
  if (ROOT_DIRS.has(first)) return any(w) ? [] : tried;
  if (SRC_DIRS.has(first)) return any(`src/${w}`, posix.join(dir, w), `${top}/${w}`) ? [] : tried;
  if (any(posix.join(dir, w))) return [];
  for (const f of index.files) if (f.endsWith(`/${w}`)) return [];
  return [...tried, `any path ending in /${w}`];
}

/** The files whose comments are read, and the documents read whole. */
function scanned(files: string[]): { code: string[]; documents: string[] } {
  const code = files.filter((f) => /^(src|tests|scripts)\/.*\.ts$/.test(f) || f === "main.ts");
  const documents = files.filter(
    (f) => f === "README.md" || f === "SECURITY.md" || /^docs\/[^/]+\.md$/.test(f) || /^docs\/decisions\/[^/]+\.md$/.test(f) || /^src\/(.+\/)?README\.md$/.test(f),
  );
  return { code, documents };
}

/** Every stale mention of the given sources, as `file:line "word" (looked for: …)`. */
function stale_mentions(sources: Record<string, { text: string; kind: "code" | "document" }>, index: Index): string[] {
  const out: string[] = [];
  for (const [file, { text, kind }] of Object.entries(sources))
    for (const m of kind === "code" ? mentions_in(file, comment_text(text)) : mentions_in(file, text, true)) {
      const where = unresolved(m, index);
      if (where.length) out.push(`${m.file}:${m.line} "${m.word}" (looked for: ${where.join(", ")})`);
    }
  return out;
}

type AnchorLink = { file: string; line: number; target: string; anchor: string };

/** The links of a Markdown text to a heading of a Markdown file (`](#anchor)`, or a `.md` path and `#anchor`), resolved from the text's folder. */
function anchor_links(file: string, text: string): AnchorLink[] {
  const out: AnchorLink[] = [];
  for (const m of text.matchAll(/\]\(([^()\s]*)#([^()\s]+)\)/g)) {
    const [, path, anchor] = m as unknown as [string, string, string];
    if (path.includes("://") || (path !== "" && !path.endsWith(".md"))) continue;
    const target = path === "" ? file : posix.normalize(posix.join(posix.dirname(file), path));
    out.push({ file, line: text.slice(0, m.index).split("\n").length, target, anchor });
  }
  return out;
}

/** Every link of `links` whose anchor is no heading of its target, as `file:line "target#anchor"`. */
function broken_anchors(links: AnchorLink[], read: (path: string) => string | undefined): string[] {
  const anchors = new Map<string, Set<string> | undefined>();
  const of = (path: string) => {
    if (!anchors.has(path)) {
      const text = read(path);
      anchors.set(path, text === undefined ? undefined : anchors_of(text));
    }
    return anchors.get(path);
  };
  return links.flatMap((link) => {
    const known = of(link.target);
    if (known?.has(link.anchor)) return [];
    return [`${link.file}:${link.line} "${link.target}#${link.anchor}" (${known === undefined ? "no such file" : "no such heading"})`];
  });
}

describe("the scanner", () => {
  const index = index_of([
    "src/oidc/signin/methods.ts",
    "src/oidc/browser/cookies.ts",
    "src/http/errors.ts",
    "src/store/sqlite/access.ts",
    "src/store/postgres/tokens.ts",
    "src/store/sqlite/tokens.ts",
    "tests/http/claims_request.test.ts",
    "docs/ARCHITECTURE.md",
    "bench/RESULTS.md",
    "package.json",
  ]);
  const check = (file: string, text: string, kind: "code" | "document" = "code") => stale_mentions({ [file]: { text, kind } }, index);

  test("reads comments only, not strings or code", () => {
    const src = [
      "// see src/oidc/signin/methods.ts and src/oidc/acr.ts",
      'const a = "src/oidc/gone.ts"; /* oidc/browser/csrf.ts */',
      "const re = /src\\/x.ts/; // `http/errors.ts`",
    ].join("\n");
    expect(check("src/http/x.ts", src)).toEqual([
      'src/http/x.ts:1 "src/oidc/acr.ts" (looked for: src/oidc/acr.ts)',
      'src/http/x.ts:2 "oidc/browser/csrf.ts" (looked for: src/oidc/browser/csrf.ts, src/http/oidc/browser/csrf.ts)',
    ]);
  });

  test("bare names: whole backtick spans, and names in prose; found next to the file or anywhere", () => {
    const src = "// `methods.ts`, cookies.ts and `package.json` exist; `acr.ts` is stale, so is form_post.ts. Node.js is prose.";
    expect(check("src/oidc/signin/x.ts", src).map((s) => s.split(" (")[0])).toEqual(['src/oidc/signin/x.ts:1 "acr.ts"', 'src/oidc/signin/x.ts:1 "form_post.ts"']);
  });

  test("src-relative, top-level, partial and relative paths", () => {
    const src = [
      "// http/errors.ts, store/sqlite/access.ts, sqlite/access.ts, ../../store/sqlite/access.ts",
      "// docs/ARCHITECTURE.md#layers, bench/RESULTS.md:12, (tests/http/claims_request.test.ts).",
      "// tests/http/claims-request.test.ts and account/second_factor.ts are stale",
    ].join("\n");
    expect(check("src/oidc/signin/x.ts", src).map((s) => s.split(" (")[0])).toEqual([
      'src/oidc/signin/x.ts:3 "tests/http/claims-request.test.ts"',
      'src/oidc/signin/x.ts:3 "account/second_factor.ts"',
    ]);
  });

  test("a layer of src/ named in a test may mean the test's own folder", () => {
    expect(check("tests/docs/x.test.ts", "// http/claims_request.test.ts")).toEqual([]);
  });

  test("skips globs, placeholders, URLs, absolute paths and options; expands {a,b}", () => {
    const src = [
      "// tests/http/keys*.test.ts, views/mail/<template>.txt.eta, src/…/x.ts, https://example.com/a/b.js",
      "// example.com/x.js, /etc/nginx/nginx.conf, --config=x.json, $HOME/x.ts",
      "// src/store/{sqlite,postgres}/tokens.ts and src/store/{sqlite,mysql}/tokens.ts",
    ].join("\n");
    expect(check("src/x.ts", src).map((s) => s.split(" (")[0])).toEqual(['src/x.ts:3 "src/store/mysql/tokens.ts"']);
  });

  test("documents are read whole, links included", () => {
    const doc = "See [the rules](docs/ARCHITECTURE.md) and `oidc/outbound.ts`; `outbound.ts` too.\n";
    expect(check("SECURITY.md", doc, "document").map((s) => s.split(" (")[0])).toEqual(['SECURITY.md:1 "oidc/outbound.ts"', 'SECURITY.md:1 "outbound.ts"']);
  });
});

describe("the anchor checker", () => {
  const files: Record<string, string> = {
    "README.md": "# idp\n\n## Going to production\n\n```sh\n# not a heading\n```\n## Mail\n## Mail\n",
    "docs/configuration.md": "# Configuration\n\n## Server and issuer\n## `idp config check`\n",
  };
  const check = (file: string, text: string) => broken_anchors(anchor_links(file, text), (path) => files[path]);

  test("links in the same document, to another document, up a folder; repeated headings get -1", () => {
    expect(check("README.md", "[a](#mail) [b](#mail-1) [c](docs/configuration.md#server-and-issuer)")).toEqual([]);
    expect(check("docs/cli.md", "[a](../README.md#going-to-production) [b](configuration.md#idp-config-check)")).toEqual([]);
  });

  test("a heading that is not there, a file that is not there, a heading in a code block", () => {
    expect(check("README.md", "[a](#configuration)\n[b](docs/configuration.md#database) [c](docs/gone.md#x) [d](#not-a-heading)")).toEqual([
      'README.md:1 "README.md#configuration" (no such heading)',
      'README.md:2 "docs/configuration.md#database" (no such heading)',
      'README.md:2 "docs/gone.md#x" (no such file)',
      'README.md:2 "README.md#not-a-heading" (no such heading)',
    ]);
  });

  test("skips URLs and anchors of files that are not Markdown", () => {
    expect(check("README.md", "[a](https://example.com/x.md#y) [b](src/x.ts#L10)")).toEqual([]);
  });
});

describe("the repository", () => {
  test("every file named in a comment or a document exists", () => {
    const files = repository_files();
    const { code, documents } = scanned(files);
    expect(code.length).toBeGreaterThan(100);
    expect(documents).toContain("docs/ARCHITECTURE.md");
    const sources: Record<string, { text: string; kind: "code" | "document" }> = {};
    for (const f of code) sources[f] = { text: readFileSync(posix.join(ROOT, f), "utf8"), kind: "code" };
    for (const f of documents) sources[f] = { text: readFileSync(posix.join(ROOT, f), "utf8"), kind: "document" };
    expect(stale_mentions(sources, index_of(files))).toEqual([]);
  });

  test("every link of a document to a heading names a heading that exists", () => {
    const files = new Set(repository_files());
    const { documents } = scanned([...files]);
    const links = documents.flatMap((f) => anchor_links(f, readFileSync(posix.join(ROOT, f), "utf8")));
    expect(links.filter((link) => link.target.startsWith("docs/")).length).toBeGreaterThan(10);
    expect(broken_anchors(links, (path) => (files.has(path) ? readFileSync(posix.join(ROOT, path), "utf8") : undefined))).toEqual([]);
  });
});
