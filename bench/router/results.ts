// Rewrites the "## Router" section of bench/RESULTS.md, leaving other sections as they are.
import { cpus } from "node:os";

const FILE = new URL("../RESULTS.md", import.meta.url);

/** `load` describes the machine load during the run (other processes share it). */
export async function write_section(table: string, legend: string, load: string): Promise<void> {
  const model =
    (
      await Bun.file("/proc/cpuinfo")
        .text()
        .catch(() => "")
    ).match(/model name\s*:\s*(.*)/)?.[1] ??
    cpus()[0]?.model ??
    "unknown";
  const body = [
    "## Router",
    "",
    "Reproduce: `cd bench && npm install && ../node_modules/.bin/bun run router/index.ts --rounds=7` (prints the table; `--write` also",
    "rewrites this section's numbers, keeping the notes below them; router names as arguments measure only those).",
    "",
    `${new Date().toISOString().slice(0, 10)} · ${cpus().length} CPUs (nproc) · ${model} · Bun ${Bun.version} · ${load}`,
    "",
    legend,
    "",
    table,
    "",
    "<!-- router-notes -->",
    "",
    "",
  ].join("\n");
  const file = Bun.file(FILE);
  const old = (await file.exists()) ? await file.text() : "# Benchmark results\n";
  const notes = old.match(/<!-- router-notes -->\n([\s\S]*?)(?=\n## |$)/)?.[1] ?? "";
  const start = old.indexOf("## Router");
  const section = body + notes.replace(/^\n+/, "");
  let text: string;
  if (start === -1) text = `${old.trimEnd()}\n\n${section}`;
  else {
    const next = old.indexOf("\n## ", start + 1);
    text = old.slice(0, start) + section.trimEnd() + "\n" + (next === -1 ? "" : old.slice(next));
  }
  await Bun.write(FILE, text.trimEnd() + "\n");
}
