// Layering, runtime-seam and cycle rules over every import in src/.
// The rules live in ./rules.ts (header comment there); the why is in docs/ARCHITECTURE.md.
// The first block runs the checker on small synthetic trees to prove that it catches each
// kind of violation (and does not cry wolf); the second runs it on the real src/.
import { describe, expect, test } from "../helpers/test_api.ts";
import { check, format, load_tree, scan_imports, strip, type Violation } from "./rules.ts";

const rules_of = (files: Record<string, string>, rule: number) => check(files).filter((v) => v.rule === rule);
const only = (files: Record<string, string>, rule: number): Violation => {
  const found = rules_of(files, rule);
  expect(found.map(format)).toHaveLength(1);
  return found[0]!;
};

describe("the scanner", () => {
  test("finds every import form, with the line of the specifier", () => {
    const src = [
      'import { a } from "./a.ts";', //                          1
      "import type { B,", //                                     2
      "  C } from './types.ts';", //                             3
      'import * as ns from "zod";', //                           4
      'import "./side_effect.ts";', //                           5
      'export { x } from "./x.ts";', //                          6
      'export * from "./all.ts";', //                            7
      'export type { T } from "./t.ts";', //                     8
      'const lazy = await import("./lazy.ts");', //             9
      'import def, { named } from "node:fs";', //               10
      '// import { no } from "./commented.ts";', //             11
      "const s = \"import { no } from './in_string.ts'\";", //  12
      "/* import('./in_block_comment.ts') */", //               13
      'const t = `import("./in_template.ts")`;', //          14
    ].join("\n");
    expect(scan_imports(src)).toEqual([
      { specifier: "./a.ts", line: 1 },
      { specifier: "./types.ts", line: 3 },
      { specifier: "zod", line: 4 },
      { specifier: "./side_effect.ts", line: 5 },
      { specifier: "./x.ts", line: 6 },
      { specifier: "./all.ts", line: 7 },
      { specifier: "./t.ts", line: 8 },
      { specifier: "./lazy.ts", line: 9 },
      { specifier: "node:fs", line: 10 },
    ]);
  });

  test("strip blanks comments, strings, templates and regexes but keeps template code and offsets", () => {
    const src = 'a("Bun.x") // Bun.y\nb(`t ${Bun.z} u`, /"Bun.r/) /* Bun.w */';
    const [code, blank] = strip(src);
    expect(code.length).toBe(src.length);
    expect(blank.length).toBe(src.length);
    expect(code).toContain('"Bun.x"');
    expect(code).not.toContain("Bun.y");
    expect(blank.match(/Bun\.\w/g)).toEqual(["Bun.z"]);
  });
});

describe("the checker reports planted violations", () => {
  test("clean tree: no violations", () => {
    const files = {
      "src/fw/index.ts": 'export * from "./router/index.ts";',
      "src/fw/router/index.ts": "export const r = 1;",
      "src/fw/runtime/serve.ts":
        'import { RUNTIME } from "../../platform/which.ts";\nexport const s = RUNTIME === "deno" ? await import("./serve_deno.ts") : await import("./serve_bun.ts");',
      "src/fw/runtime/serve_bun.ts": 'import { serve } from "bun";\nexport const s = Bun.serve;',
      "src/fw/runtime/serve_deno.ts": "export const s = Deno.serve;\nexport type S = Deno.HttpServer;",
      "src/platform/which.ts": 'export const RUNTIME = "Deno" in globalThis ? "deno" : "bun";',
      "src/platform/hash.ts": 'import { RUNTIME } from "./which.ts";\nexport const p = RUNTIME === "bun" ? await import("./hash_bun.ts") : null;',
      "src/platform/hash_bun.ts": 'import { dlopen } from "bun:ffi";\nimport { createHash } from "node:crypto";\nexport const p = Bun.password;',
      "src/config/schema.ts": 'import { z } from "zod";',
      "src/store/sqlite/bun_sqlite.ts": 'import { Database } from "bun:sqlite";\nimport { p } from "../../platform/hash.ts";\nimport "../../config/schema.ts";',
      "src/oidc/tokens.ts":
        'import { p } from "../platform/hash.ts";\nimport "../store/sqlite/bun_sqlite.ts";\n// Bun.password is hashed in platform\nconst msg = "see Bun.password";',
      "src/http/token.ts": 'import { r } from "../fw/index.ts";\nimport "../oidc/tokens.ts";\nimport { readFileSync } from "node:fs";',
      "src/app/server.ts": 'import "../http/token.ts";\nimport "../fw/runtime/serve.ts";\nimport "../cli/index.ts";',
      "src/cli/index.ts": 'export async function go() { await import("../store/sqlite/bun_sqlite.ts"); }\nimport "../fw"; // a directory resolves to its index.ts',
    };
    expect(check(files).map(format)).toEqual([]);
  });

  test("rule 1: fw importing anything else of ours", () => {
    const v = only({ "src/fw/app.ts": 'import { c } from "../oidc/cookies.ts";', "src/oidc/cookies.ts": "" }, 1);
    expect(v).toMatchObject({ file: "src/fw/app.ts", line: 1, specifier: "../oidc/cookies.ts", target: "src/oidc/cookies.ts" });
  });

  test("rule 2: config and platform are leaves", () => {
    const files = {
      "src/config/index.ts": 'import "../platform/x.ts";',
      "src/platform/x.ts": '\nimport type { S } from "../store/types.ts";',
      "src/store/types.ts": "",
    };
    expect(rules_of(files, 2).map((v) => `${v.file}:${v.line} → ${v.target}`)).toEqual(["src/config/index.ts:1 → src/platform/x.ts", "src/platform/x.ts:2 → src/store/types.ts"]);
  });

  test("rule 3: store importing a protocol or web layer", () => {
    const v = only({ "src/store/open.ts": 'import {\n  a,\n  b,\n} from "../http/pages/x.ts";', "src/http/pages/x.ts": "" }, 3);
    expect(v).toMatchObject({ line: 4, target: "src/http/pages/x.ts" });
  });

  test("rule 4: oidc importing fw (even a type)", () => {
    const v = only({ "src/oidc/errors.ts": 'import type { HttpError } from "../fw/index.ts";', "src/fw/index.ts": "" }, 4);
    expect(v.message).toContain("oidc must not import fw");
  });

  test("rule 5: http importing app", () => {
    const v = only({ "src/http/x.ts": 'const { serve } = await import("../app/server.ts");', "src/app/server.ts": "" }, 5);
    expect(v).toMatchObject({ file: "src/http/x.ts", target: "src/app/server.ts" });
  });

  test("rule 6: a folder that is not a known layer", () => {
    const files = { "src/util/a.ts": "", "src/util/b.ts": "", "src/oidc/x.ts": 'import "../util/a.ts";' };
    expect(rules_of(files, 6).map(format)).toEqual(['src/util/  [rule 6] unknown layer "util": add it to the rules']);
    expect(rules_of(files, 4).map((v) => v.target)).toEqual(["src/util/a.ts"]);
  });

  test("rule 7: Bun modules and the Bun global outside the allowed places", () => {
    const files = {
      "src/oidc/hash.ts": [
        'import { password } from "bun";',
        'import { Database } from "bun:sqlite";',
        "// Bun.password would be nice here",
        'const label = "uses Bun.password";',
        "export const h = (s: string) => Bun.password.hash(s);",
        "export type Jar = Bun.CookieMap;",
        "const other = foo.Bun.x; /* Bun.nope */ const tpl = `Bun.no ${Bun.env.X}`;",
        'import { randomBytes } from "node:crypto";',
      ].join("\n"),
      "src/store/sqlite/bun_sqlite.ts": 'import { Database } from "bun:sqlite";\nBun.file("x");',
      "src/fw/runtime/serve_bun.ts": "Bun.serve({});",
    };
    expect(rules_of(files, 7).map((v) => `${v.file}:${v.line} ${v.specifier}`)).toEqual([
      "src/oidc/hash.ts:1 bun",
      "src/oidc/hash.ts:2 bun:sqlite",
      "src/oidc/hash.ts:5 Bun.password",
      "src/oidc/hash.ts:6 Bun.CookieMap",
      "src/oidc/hash.ts:7 Bun.env",
    ]);
  });

  test("rule 7: the database clients only in the store's driver files, not in the rest of store/", () => {
    const files = {
      "src/store/sqlite/users.ts": 'import type { Database } from "bun:sqlite";',
      "src/store/postgres/users.ts": 'import type { SQL } from "bun";\nimport postgres from "postgres";',
      "src/oidc/x.ts": 'import { DatabaseSync } from "node:sqlite";',
      "src/store/sqlite/bun_sqlite.ts": 'import { Database } from "bun:sqlite";',
      "src/store/sqlite/node_sqlite.ts": 'import { DatabaseSync } from "node:sqlite";',
      "src/store/postgres/bun_sql.ts": 'import { SQL } from "bun";',
      "src/store/postgres/postgres_js.ts": 'import postgres from "postgres";',
    };
    expect(rules_of(files, 7).map((v) => `${v.file}:${v.line} ${v.specifier}`)).toEqual([
      "src/oidc/x.ts:1 node:sqlite",
      "src/store/postgres/users.ts:1 bun",
      "src/store/postgres/users.ts:2 postgres",
      "src/store/sqlite/users.ts:1 bun:sqlite",
    ]);
  });

  test("rule 7: Bun's own import.meta members outside the allowed places", () => {
    const files = {
      "src/app/server.ts": [
        'export const VIEWS = join(import.meta.dir, "../../views");',
        "if (import.meta.main) start();",
        "const me = [import.meta.file, import.meta . path];",
        'export const PORTABLE = fileURLToPath(new URL("../../views", import.meta.url));',
        "const node = [import.meta.dirname, import.meta.filename];",
        '// import.meta.dir in a comment; "import.meta.main" in a string',
        "const x = { import: { meta: { dir: 1 } } }.import.meta.dir;",
      ].join("\n"),
      "src/platform/runtime_bun.ts": "export const here = import.meta.dir;",
      "src/fw/runtime/serve_bun.ts": "if (import.meta.main) Bun.serve({});",
    };
    expect(rules_of(files, 7).map((v) => `${v.file}:${v.line} ${v.specifier}`)).toEqual([
      "src/app/server.ts:1 import.meta.dir",
      "src/app/server.ts:2 import.meta.main",
      "src/app/server.ts:3 import.meta.file",
      "src/app/server.ts:3 import.meta.path",
    ]);
  });

  test("rule 7: Deno's global and specifiers outside the Deno adapters", () => {
    const files = {
      "src/oidc/env.ts": [
        "export const home = Deno.env.get('HOME');",
        "// Deno.exit in a comment; 'Deno.exit' in a string",
        "export type S = Deno.HttpServer;",
        'import { z } from "npm:zod";',
        'import { assert } from "jsr:@std/assert";',
        "const d = globalThis.Deno;",
      ].join("\n"),
      "src/platform/env_deno.ts": "export const home = Deno.env.get('HOME');",
      "src/store/sqlite/driver.ts": "Deno.cwd();",
    };
    expect(rules_of(files, 7).map((v) => `${v.file}:${v.line} ${v.specifier}`)).toEqual([
      "src/oidc/env.ts:1 Deno.env",
      "src/oidc/env.ts:3 Deno.HttpServer",
      "src/oidc/env.ts:4 npm:zod",
      "src/oidc/env.ts:5 jsr:@std/assert",
      "src/oidc/env.ts:6 globalThis.Deno",
      // The store's drivers use bun:sqlite, Bun.SQL, node:sqlite or postgres.js: none names Deno.
      "src/store/sqlite/driver.ts:1 Deno.cwd",
    ]);
  });

  test("rule 7: in fw/runtime and platform, a file names only the runtime its name says", () => {
    const files = {
      "src/platform/crypto.ts": "export const h = Bun.SHA256;",
      "src/platform/crypto_deno.ts": 'import { dlopen } from "bun:ffi";\nexport const h = Bun.SHA256;',
      "src/fw/runtime/serve_bun.ts": "export const s = Deno.serve;",
      "src/fw/runtime/serve_deno.ts": "export const s = Deno.serve;",
    };
    expect(rules_of(files, 7).map((v) => `${v.file}:${v.line} ${v.specifier}`)).toEqual([
      "src/fw/runtime/serve_bun.ts:1 Deno.serve",
      "src/platform/crypto_deno.ts:1 bun:ffi",
      "src/platform/crypto_deno.ts:2 Bun.SHA256",
      "src/platform/crypto.ts:1 Bun.SHA256",
    ]);
  });

  test("rule 7: only platform/which.ts asks which runtime runs, and only the adapters' selectors read it", () => {
    const files = {
      "src/platform/which.ts": 'export const RUNTIME = "Deno" in globalThis ? "deno" : "bun";',
      "src/platform/crypto.ts": 'import { RUNTIME } from "./which.ts";\nconst deno = typeof Deno !== "undefined";',
      "src/fw/runtime/files.ts": 'import { RUNTIME } from "../../platform/which.ts";',
      "src/fw/app.ts": 'import { RUNTIME } from "../platform/which.ts";',
      "src/oidc/x.ts": [
        'import { RUNTIME } from "../platform/which.ts";',
        "const bun = 'Bun' in globalThis || process.versions.bun !== undefined || process.versions['deno'];",
        '// "Deno" in globalThis, in a comment',
        "const s = 'is \"Deno\" in globalThis?';",
      ].join("\n"),
    };
    expect(rules_of(files, 7).map((v) => `${v.file}:${v.line} ${v.specifier ?? ""}`)).toEqual([
      "src/fw/app.ts:1 ../platform/which.ts",
      "src/oidc/x.ts:1 ../platform/which.ts",
      "src/oidc/x.ts:2 'Bun'inglobalThis",
      "src/oidc/x.ts:2 versions.bun",
      "src/oidc/x.ts:2 versions['deno']",
      "src/platform/crypto.ts:2 typeofDeno",
    ]);
    // fw's selectors may read which.ts; the rest of fw may not (rule 1 too).
    expect(rules_of(files, 1).map((v) => v.file)).toEqual(["src/fw/app.ts"]);
  });

  test("rule 8: import cycles, type-only and re-export edges included", () => {
    const files = {
      "src/oidc/a.ts": 'import type { B } from "./b.ts";',
      "src/oidc/b.ts": 'export { C } from "./c.ts";',
      "src/oidc/c.ts": 'import "./a.ts";',
      "src/oidc/d.ts": 'import "./a.ts";', // reaches the cycle but is not part of it
      "src/fw/self.ts": 'import "./self.ts";',
    };
    expect(rules_of(files, 8).map((v) => v.message)).toEqual([
      "import cycle: src/fw/self.ts → src/fw/self.ts",
      "import cycle: src/oidc/a.ts → src/oidc/b.ts → src/oidc/c.ts → src/oidc/a.ts",
    ]);
  });

  test("a relative import that resolves to nothing is reported", () => {
    const v = only({ "src/oidc/a.ts": 'import "./gone.ts";' }, 0);
    expect(v.message).toContain("does not resolve");
  });
});

describe("src/ follows the architecture (docs/ARCHITECTURE.md)", () => {
  const files = load_tree();
  const violations = check(files);
  const report = (rule: number) => violations.filter((v) => v.rule === rule).map(format);

  test("src/ was read", () => {
    expect(Object.keys(files).length).toBeGreaterThan(50);
    expect(Object.values(files).flatMap(scan_imports).length).toBeGreaterThan(200);
  });
  test("every relative import resolves to a file of src/", () => expect(report(0)).toEqual([]));
  test("rule 1: fw imports only fw", () => expect(report(1)).toEqual([]));
  test("rule 2: config and platform import only themselves", () => expect(report(2)).toEqual([]));
  test("rule 3: store imports only store, platform, config", () => expect(report(3)).toEqual([]));
  test("rule 4: oidc imports only oidc, store, platform, config", () => expect(report(4)).toEqual([]));
  test("rule 5: http does not import app or cli", () => expect(report(5)).toEqual([]));
  test("rule 6: every top-level folder of src/ is a known layer", () => expect(report(6)).toEqual([]));
  test("rule 7: Bun's and Deno's APIs only in their adapters, database clients only in the store's drivers; only platform/which.ts asks which runtime runs", () =>
    expect(report(7)).toEqual([]));
  test("rule 8: no import cycles", () => expect(report(8)).toEqual([]));
});
