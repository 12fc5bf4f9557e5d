/**
 * `npm run build`: compiles the server and admin CLI into ONE executable, `dist/idp`, with the
 * page templates and static files embedded (scripts/embed.ts). Minified, with an embedded source
 * map so stack traces name the original files and lines.
 *
 * Offline: `bun build --compile` copies the running Bun binary (node_modules/.bin/bun) into the
 * executable. No `--target` is passed, since a target other than the host would be downloaded.
 *
 *   bun run scripts/build.ts [--outfile PATH]
 */
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { embed_plugin } from "./embed.ts";

export const ROOT = resolve(import.meta.dirname, "..");

export type Built = { outfile: string; bytes: number; seconds: number };

/** Builds the executable of the repository at `root` into `outfile`. */
export async function build_executable(outfile: string, root: string = ROOT): Promise<Built> {
  const started = performance.now();
  const result = await Bun.build({
    // The argon2id worker (src/platform/argon2/pool.ts) is a second entrypoint so the
    // executable embeds it; a Worker can only load a module that is listed here.
    entrypoints: [join(root, "main.ts"), join(root, "src/platform/argon2/worker.ts")],
    compile: {
      outfile: resolve(outfile),
      // Configuration comes from the environment and IDP_CONFIG only: a .env or bunfig.toml
      // that happens to be in the working directory must not change a production server.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    // Whitespace and syntax minified; identifiers are kept because JavaScriptCore prints the
    // running function's real name in stack traces (the source map gives files and lines).
    minify: { whitespace: true, syntax: true, identifiers: false },
    sourcemap: "linked",
    plugins: [embed_plugin(root)],
  });
  if (!result.success) {
    throw new AggregateError(result.logs, `build failed:\n${result.logs.map(String).join("\n")}`);
  }
  return { outfile: resolve(outfile), bytes: statSync(resolve(outfile)).size, seconds: (performance.now() - started) / 1000 };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { outfile: { type: "string", default: join(ROOT, "dist", "idp") } } });
  const built = await build_executable(values.outfile!);
  console.log(`built ${built.outfile} (${(built.bytes / 1024 / 1024).toFixed(1)} MB) in ${built.seconds.toFixed(1)} s`);
}
