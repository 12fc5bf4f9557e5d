/**
 * README's "Going to production" checklist, followed as written: the shell blocks marked
 * `<!-- checklist-commands -->` are read from README.md and run, in order, in one `sh` session
 * in a fresh temporary directory, so the test runs the text users read. What the test changes,
 * and nothing else: the database path (`/var/lib/idp` → the temporary directory), the port
 * (`3000` → a free one), `idp` (a shell function running `node bin/idp.mjs`, the package's bin,
 * the same main.ts the executable is built from) and `$PASSWORD` (set). The block that starts
 * the server runs in the background of that session; the next blocks run once /readyz answers.
 *
 * Checked: every command succeeds (`set -e`); `idp config check` says the configuration is
 * valid and nothing in the whole session — the CLI's stderr, the server's log — is a warning;
 * the first administrator is active and in the admin group; /healthz, /readyz and /metrics
 * answer; the database files are the owner's only; SIGTERM stops the server gracefully. And the
 * checklist's links to README sections and to the settings of docs/configuration.md point at
 * headings that exist. Linux (/proc), with sh, openssl, curl and setsid.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { spawn, which } from "../helpers/spawn.ts";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anchors_of } from "../../scripts/docs/anchors.ts";
import { alive, answers, descendants, pump, wait_for } from "../helpers/process_tree.ts";
import { free_port } from "../helpers/provider.ts";
import { setTimeout as sleep } from "node:timers/promises";

const ROOT = join(import.meta.dirname, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const MARKER = "<!-- checklist-commands -->";
const DONE = "checklist: every block ran";

/** The text of the "## Going to production" section, up to the next `## ` heading. */
function checklist_section(): string {
  const start = README.indexOf("\n## Going to production\n");
  if (start < 0) throw new Error('README.md has no "## Going to production" section');
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The fenced `sh` block right after each marker, in order. */
function checklist_blocks(section: string): string[] {
  const blocks: string[] = [];
  for (const m of section.matchAll(/<!-- checklist-commands -->\n+```sh\n([\s\S]*?)\n```/g)) blocks.push(m[1]!);
  return blocks;
}

const tools = ["sh", "openssl", "curl", "setsid", "node"];
const missing = tools.filter((tool) => which(tool) === null);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "idp-checklist-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("README, Going to production", () => {
  test("its links to README sections and to docs/configuration.md point at headings that exist", () => {
    const headings = anchors_of(README);
    const links = [...checklist_section().matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((link) => !headings.has(link))).toEqual([]);
    // Each setting step links to its topic in the settings reference.
    const settings = anchors_of(readFileSync(join(ROOT, "docs/configuration.md"), "utf8"));
    const to_settings = [...checklist_section().matchAll(/\]\(docs\/configuration\.md#([^)]+)\)/g)].map((m) => m[1]!);
    expect(to_settings).toEqual(expect.arrayContaining(["server-and-issuer", "security-and-secrets", "database", "mail", "what-production-needs"]));
    expect(to_settings.filter((link) => !settings.has(link))).toEqual([]);
  });

  test("its command blocks: the configuration, the first administrator, the start, the checks", () => {
    const blocks = checklist_blocks(checklist_section());
    expect(blocks.length).toBe(README.split(MARKER).length - 1);
    expect(blocks.filter((block) => /^idp serve\b/m.test(block))).toHaveLength(1);
    expect(blocks.some((block) => /^idp config check\b/m.test(block))).toBe(true);
  });

  test.skipIf(missing.length > 0)(
    "followed on a fresh directory: no warning, the administrator in the admin group, the server answers and stops",
    async () => {
      const port = await free_port();
      const node = which("node")!;
      const replacements: [string, string][] = [
        ["/var/lib/idp", join(dir, "var/lib/idp")],
        ["PORT=3000", `PORT=${port}`],
        ["127.0.0.1:3000", `127.0.0.1:${port}`],
      ];
      const original = checklist_blocks(checklist_section());
      for (const [from] of replacements)
        if (!original.some((block) => block.includes(from))) throw new Error(`the checklist no longer contains "${from}", which the test replaces`);
      const blocks = original.map((block) => replacements.reduce((text, [from, to]) => text.split(from).join(to), block));
      expect(blocks.join("\n")).not.toContain("3000");
      const serve = blocks.findIndex((block) => /^idp serve\b/m.test(block));
      // The test's own lines (glue) around the README's blocks, which are pasted in unchanged.
      const script = [
        "set -e",
        "exec 2>&1",
        `idp() { "$CHECKLIST_NODE" "$CHECKLIST_ROOT/bin/idp.mjs" "$@"; }`,
        ...blocks.slice(0, serve),
        `(\n${blocks[serve]}\n) &`,
        "server=$!",
        "tries=0",
        `until curl -fs -o /dev/null http://127.0.0.1:${port}/readyz; do`,
        '  kill -0 "$server" 2>/dev/null || { echo "checklist: the server exited"; exit 1; }',
        "  tries=$((tries + 1)); [ $tries -lt 300 ] || { echo 'checklist: the server was not ready in 30 s'; exit 1; }",
        "  sleep 0.1",
        "done",
        ...blocks.slice(serve + 1),
        `echo '${DONE}'`,
        "wait",
      ].join("\n");
      // Nothing of this process's environment leaks in (a DATABASE_URL, IDP_* settings).
      const env = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dir,
        PASSWORD: "correct horse battery staple",
        CHECKLIST_NODE: node,
        CHECKLIST_ROOT: ROOT,
      };
      // setsid: a process group of its own (its id is the shell's pid), stopped as a whole.
      const proc = spawn(["setsid", "sh", "-c", script], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
      let output = "";
      const pumped = Promise.all([pump(proc.stdout, (text) => void (output += text)), pump(proc.stderr, (text) => void (output += text))]);
      let tree: number[] = [];
      try {
        const deadline = Date.now() + 25_000;
        while (!output.includes(DONE) && proc.exitCode === null && Date.now() < deadline) await sleep(50);
        if (!output.includes(DONE)) throw new Error(`the checklist stopped (${proc.exitCode === null ? "after 25 s" : `exit ${proc.exitCode}`}):\n${output}`);

        // idp config check: valid, and no warning anywhere (neither the CLI's nor the server's log).
        expect(output).toContain("Configuration is valid.");
        expect(output).toMatch(/^production:\s+yes$/m);
        expect(output).not.toContain("warning:");
        expect(output).not.toContain('"level":"warn"');
        expect(output).not.toContain('"level":"error"');
        // The first administrator: active, in the admin group.
        expect(output).toMatch(/^status:\s+active$/m);
        expect(output).toMatch(/^groups:\s+admins$/m);
        // The monitoring block's answers, and the server as the test sees it.
        expect(output).toContain('{"status":"ok"}');
        expect(output).toContain('{"status":"ready","database":"ok","keys":"ok"}');
        expect(output).toMatch(/^idp_http_requests_total\{route="\/readyz",method="GET",status="200"\} \d+$/m);
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        expect(output).toContain('"issuer":"https://id.example.com"');
        // The database files are the owner's only.
        const db = join(dir, "var/lib/idp");
        expect(statSync(db).mode & 0o077).toBe(0);
        expect(statSync(join(db, "idp.sqlite")).mode & 0o077).toBe(0);

        // Stopped as the checklist says: SIGTERM, to the whole group (the shell, node, Bun).
        tree = descendants(proc.pid);
        process.kill(-proc.pid, "SIGTERM");
        await wait_for(() => tree.every((pid) => !alive(pid)), 15_000, `every process to exit (left: ${tree.filter(alive).join(", ")})`);
        await pumped;
        expect(output).toContain('"msg":"stopped"');
        expect(await answers(`http://127.0.0.1:${port}/healthz`)).toBe(false);
      } finally {
        // Whatever failed, nothing is left running: the group is the shell's and its children's.
        try {
          process.kill(-proc.pid, "SIGKILL");
        } catch {
          // The group is gone already.
        }
        for (const pid of tree) if (alive(pid)) process.kill(pid, "SIGKILL");
      }
    },
    40_000,
  );
});
