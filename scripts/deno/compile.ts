/**
 * `deno task compile`: the provider as one executable built by `deno compile`, `dist/idp-deno`,
 * with the page templates, static files, locales, lists and the argon2id worker embedded
 * (`--include`) and the permissions of `deno task start` (permissions.ts) baked in, computed from
 * the environment and IDP_CONFIG at build time: build it with the configuration it will run
 * with (the data folder, the port, IDP_DENO_ALLOW_NET…).
 *
 * `deno compile` downloads `denort`, the runtime it copies into the executable, from
 * dl.deno.land on first use. Where that cannot be reached this stops with a message that says
 * so and prints the command to run on a machine that can (or set DENORT_BIN to a `denort`
 * binary obtained there).
 *
 *   deno run --allow-env --allow-read --allow-write=. --allow-run=deno scripts/deno/compile.ts [--output PATH]
 */
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { VENDOR_FILES } from "../../src/http/vendor_files.ts";
import { flags_for, ROOT } from "./permissions.ts";

/** What the executable embeds besides the modules main.ts imports (paths from the repository root). */
export const INCLUDED = ["views", "static", "locales", "lists", "src/platform/argon2/worker_thread.ts", ...Object.values(VENDOR_FILES)];

/** True when `deno compile` failed because it could not download denort. */
export function denort_download_failed(stderr: string): boolean {
  return /denort/i.test(stderr) && /(error sending request|dns error|connect|timed out|network|download)/i.test(stderr) && /(dl\.deno\.land|base binary)/i.test(stderr);
}

/** The `deno compile` arguments for an executable at `output`, or why there are none. */
export function compile_args(env: Record<string, string | undefined>, cwd: string, output: string): { args: string[] } | { refused: string } {
  // A compiled executable reads its embedded files under <tmp>/deno-compile-<its name>/ (Deno's standalone loader).
  const permissions = flags_for(env, cwd, join(tmpdir(), `deno-compile-${basename(output)}`));
  if ("refused" in permissions) return permissions;
  return { args: ["compile", ...permissions.flags, ...INCLUDED.flatMap((path) => ["--include", path]), "--output", output, "main.ts"] };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { output: { type: "string", default: join(ROOT, "dist", "idp-deno") } } });
  const output = resolve(values.output!);
  const planned = compile_args(process.env, process.cwd(), output);
  if ("refused" in planned) {
    process.stderr.write(`error: ${planned.refused}\n`);
    process.exit(1);
  }
  // The PATH's `deno`, the program --allow-run=deno grants (deno task and npx put it there).
  // Deno.Command, not node:child_process, whose spawn of the runtime's own binary Deno rewrites.
  const child = new Deno.Command("deno", { args: planned.args, cwd: ROOT, stdin: "inherit", stdout: "inherit", stderr: "piped" }).spawn();
  let stderr = "";
  const decoder = new TextDecoder();
  const reader = child.stderr.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    stderr += decoder.decode(part.value, { stream: true });
    process.stderr.write(part.value);
  }
  const { code } = await child.status;
  if (code !== 0 && denort_download_failed(stderr)) {
    process.stderr.write(
      [
        "",
        "error: `deno compile` needs denort, the Deno runtime it copies into the executable, and downloads it",
        "from https://dl.deno.land on first use: this machine cannot reach that server.",
        "On a machine that can (same operating system and architecture), from the repository root:",
        "",
        `  deno ${planned.args.join(" ")}`,
        "",
        "or point DENORT_BIN at a denort binary of the same Deno version (from dl.deno.land) and run `deno task compile` again.",
        "",
      ].join("\n"),
    );
  }
  process.exit(code);
}
