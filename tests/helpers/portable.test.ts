/**
 * The portable helpers behave the same on Bun and Deno: serve_fetch.ts (a fetch handler over
 * node:http), spawn.ts (child processes) and raw_sqlite.ts (bun:sqlite or node:sqlite).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_raw_sqlite } from "./raw_sqlite.ts";
import { free_port, serve_fetch } from "./serve_fetch.ts";
import { run, run_sync, spawn, which } from "./spawn.ts";
import { afterAll, describe, expect, test } from "./test_api.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-portable-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("serve_fetch", () => {
  test("gives the handler the request (method, URL, headers, body) and sends its answer, cookies apart", async () => {
    const server = await serve_fetch(async (request) => {
      const headers = new Headers({ "x-seen": `${request.method} ${request.url} ${request.headers.get("x-in")}` });
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return new Response(`got ${await request.text()}`, { status: 201, headers });
    });
    try {
      const answer = await fetch(`${server.url}/path?q=1`, { method: "POST", headers: { "x-in": "yes" }, body: "hello" });
      expect(answer.status).toBe(201);
      expect(answer.headers.get("x-seen")).toBe(`POST ${server.url}/path?q=1 yes`);
      expect(answer.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
      expect(answer.headers.get("content-length")).toBe("9");
      expect(await answer.text()).toBe("got hello");
    } finally {
      await server.stop();
    }
  });

  test("a body still streaming is sent chunked as it comes; stop() closes the open connection", async () => {
    const server = await serve_fetch(() => new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode("{")) })));
    const answer = await fetch(server.url);
    expect(answer.headers.get("content-length")).toBeNull();
    const reader = answer.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("{");
    await server.stop();
    expect(
      await reader.read().then(
        () => "more",
        () => "closed",
      ),
    ).toBe("closed");
  });

  test("free_port gives a port nothing listens on", async () => {
    const port = await free_port();
    expect(
      await fetch(`http://127.0.0.1:${port}/`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
  });
});

describe("spawn", () => {
  test("run gives the exit code and both outputs, with the input on stdin and only the environment given", async () => {
    const ran = await run(["sh", "-c", 'read line; echo "$line $ONLY"; echo oops >&2; exit 3'], { input: "hi\n", env: { ONLY: "me" } });
    expect(ran).toEqual({ code: 3, stdout: "hi me\n", stderr: "oops\n" });
    expect(run_sync(["sh", "-c", "pwd"], { cwd: dir })).toEqual({ code: 0, stdout: `${dir}\n`, stderr: "" });
  });

  test("a child ended by a signal exits with 128 + its number, as Bun says", async () => {
    const child = spawn(["sleep", "30"]);
    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    expect(await child.exited).toBe(143);
    expect(child.signalCode).toBe("SIGTERM");
  });

  test("a child that catches the signal exits with its own code; a second signal still reaches it", async () => {
    // Deno's ChildProcess.kill reported SIGTERM (143) here, and sent no later signal.
    const caught = spawn(["sh", "-c", 'trap "exit 0" TERM; echo ready; while :; do sleep 0.05; done'], { stdout: "pipe" });
    await caught.stdout.getReader().read();
    caught.kill("SIGTERM");
    expect(await caught.exited).toBe(0);
    const stubborn = spawn(["sh", "-c", 'trap "" TERM; echo ready; while :; do sleep 0.05; done'], { stdout: "pipe" });
    await stubborn.stdout.getReader().read();
    stubborn.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stubborn.exitCode).toBeNull();
    stubborn.kill("SIGKILL");
    expect(await stubborn.exited).toBe(137);
  });

  test("output to a file", async () => {
    const out = join(dir, "out.txt");
    expect(await spawn(["sh", "-c", "echo to-file"], { stdout: { file: out } }).exited).toBe(0);
    expect((await run(["cat", out])).stdout).toBe("to-file\n");
  });

  test("which finds an executable on PATH, or gives null", () => {
    expect(which("sh")).toMatch(/\/sh$/);
    expect(which("sh", { PATH: dir })).toBeNull();
    expect(which("no-such-command-here")).toBeNull();
  });
});

describe("raw_sqlite", () => {
  test("exec, run with parameters, get (null when no row) and all give plain rows", () => {
    const db = open_raw_sqlite(join(dir, "raw.db"));
    try {
      db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER); CREATE INDEX t_n ON t (n)");
      db.run("INSERT INTO t (k, n) VALUES (?, ?)", "a", 1);
      db.run("INSERT INTO t (k, n) VALUES (?, ?)", "b", 2);
      expect(db.get("SELECT n FROM t WHERE k = ?", "b")).toEqual({ n: 2 });
      expect(db.get("SELECT n FROM t WHERE k = ?", "zz")).toBeNull();
      expect(db.all("SELECT k FROM t ORDER BY k")).toEqual([{ k: "a" }, { k: "b" }]);
    } finally {
      db.close();
    }
    const reader = open_raw_sqlite(join(dir, "raw.db"), { readonly: true });
    try {
      expect(() => reader.exec("DELETE FROM t")).toThrow();
    } finally {
      reader.close();
    }
  });
});
