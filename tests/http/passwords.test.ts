/**
 * Passwords (src/platform/passwords.ts): both argon2id implementations, libsodium on worker
 * threads and Bun.password, give standard PHC strings that each verifies from the other, and
 * IDP_ARGON2_IMPL (config `argon2.impl`, applied by configure_argon2) picks one. Small parameters
 * keep the suite fast.
 *
 * What any runtime must do (hash, verify, refuse a malformed hash) runs on both; libsodium's FFI,
 * its worker pool and Bun.password are Bun's, and their tests run on Bun only.
 */
import { describe, expect, RUNTIME, spyOn, test } from "../helpers/test_api.ts";
import { ROOT, run_sync } from "../helpers/spawn.ts";
import { hash_password, verify_password } from "../../src/platform/passwords.ts";

// Loaded on Bun only: they name bun:ffi and Bun.password.
const bun =
  RUNTIME === "bun"
    ? { ...(await import("../../src/platform/argon2/ffi.ts")), ...(await import("../../src/platform/argon2/pool.ts")), ...(await import("../../src/platform/passwords.ts")) }
    : null;
const { open_argon2_ffi, Argon2Pool, argon2_impl, choose_impl, libsodium_impl } = bun ?? ({} as NonNullable<typeof bun>);

const params = { memory_kib: 1024, time_cost: 1 };
const libsodium = bun ? open_argon2_ffi() : null;

/** Runs a script against passwords.ts in a fresh Bun process with IDP_ARGON2_IMPL set (the script loads the config). */
function run_with_impl(setting: string, script: string): { code: number; out: string; err: string } {
  const ran = run_sync([process.execPath, "-e", script], { cwd: ROOT, env: { ...process.env, IDP_ARGON2_IMPL: setting } });
  return { code: ran.code, out: ran.stdout.trim(), err: ran.stderr };
}

describe("passwords: the implementation in use", () => {
  test.skipIf(!bun)("uses libsodium when it loads, Bun.password otherwise (Bun only)", () => {
    expect(argon2_impl.name).toBe(libsodium ? "libsodium" : "bun");
  });

  test("round trip: the hash is an argon2id PHC string with our parameters, p=1, and verifies", async () => {
    const hash = await hash_password("correct horse", params);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]{43}$/);
    expect(await verify_password("correct horse", hash)).toBe(true);
  });

  test("a wrong password is false", async () => {
    const hash = await hash_password("correct horse", params);
    expect(await verify_password("correct horsf", hash)).toBe(false);
    expect(await verify_password("", hash)).toBe(false);
  });

  test("an empty password and a non-ASCII one hash and verify", async () => {
    const empty = await hash_password("", params);
    expect(await verify_password("", empty)).toBe(true);
    expect(await verify_password(" ", empty)).toBe(false);
    const accented = await hash_password("pässwörd ✓", params);
    expect(await verify_password("pässwörd ✓", accented)).toBe(true);
    expect(await verify_password("passwort ✓", accented)).toBe(false);
  });

  test("a malformed stored hash is false, never an exception", async () => {
    const good = await hash_password("pw", params);
    for (const bad of [
      "",
      "not-a-hash",
      "$argon2id$v=19$m=1024,t=1,p=1$",
      "$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$",
      good.slice(0, -4),
      good + "\0junk",
      good + "A".repeat(200),
      "$argon2id$v=19$m=99999999999,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA",
      "$2b$10$abcdefghijklmnopqrstuu",
    ]) {
      expect(await verify_password("pw", bad)).toBe(false);
    }
  });

  test("several verifications at once all answer correctly", async () => {
    const hash = await hash_password("pw", params);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => verify_password(i % 2 ? "pw" : "nope", hash)));
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i % 2 === 1));
  });
});

describe.skipIf(!bun)("passwords: loading libsodium (Bun only: bun:ffi)", () => {
  test("a missing library, or one without libsodium's argon2id, is null (Bun.password is used)", () => {
    expect(open_argon2_ffi(["libsodium-that-is-not-there.so.0"])).toBeNull();
    expect(open_argon2_ffi(["libc.so.6"])).toBeNull();
  });
});

describe.skipIf(!bun)("passwords: libsodium and Bun.password read each other's hashes (Bun only)", () => {
  test.skipIf(!libsodium)("Bun.password's hash verifies with libsodium", async () => {
    const hash = await Bun.password.hash("correct horse", { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
    expect(libsodium!.verify("correct horse", hash)).toBe(true);
    expect(libsodium!.verify("wrong horse", hash)).toBe(false);
    expect(await verify_password("correct horse", hash)).toBe(true);
  });

  test.skipIf(!libsodium)("libsodium's hash verifies with Bun.password", async () => {
    const hash = libsodium!.hash("correct horse", 1024, 1);
    expect(await Bun.password.verify("correct horse", hash, "argon2id")).toBe(true);
    expect(await Bun.password.verify("wrong horse", hash, "argon2id")).toBe(false);
    expect(await Bun.password.verify("correct horse", await hash_password("correct horse", params), "argon2id")).toBe(true);
  });
});

describe("passwords: hashes of other libraries", () => {
  test("an argon2id hash with p=2 (made by another library) verifies", async () => {
    // @node-rs/argon2, parallelism 2: libsodium is not asked for lanes it was not tested with.
    const hash = "$argon2id$v=19$m=1024,t=1,p=2$oVkQZtP/uJQIsyjkGC6DLg$EonDtP9UGP8QUzBDA+t8kVt5BLrwWGmnHXWj4Xh5ebw";
    expect(await verify_password("pw", hash)).toBe(true);
    expect(await verify_password("px", hash)).toBe(false);
  });
});

describe.skipIf(!bun)("passwords: IDP_ARGON2_IMPL (Bun only: its two implementations)", () => {
  // As every entry point does: load the config (the only reader of the environment), then apply argon2.impl.
  const script = `
    import { load_config } from "./src/app/config.ts";
    import { argon2_impl, configure_argon2, hash_password, verify_password } from "./src/platform/passwords.ts";
    configure_argon2(load_config().argon2.impl);
    const hash = await hash_password("pw", { memory_kib: 1024, time_cost: 1 });
    console.log(JSON.stringify({ name: argon2_impl.name, hash, ok: await verify_password("pw", hash), bad: await verify_password("px", hash) }));
  `;

  test("=bun forces Bun.password, whose hashes the default implementation verifies", async () => {
    const run = run_with_impl("bun", script);
    expect(run.err).toBe("");
    const result = JSON.parse(run.out);
    expect(result).toMatchObject({ name: "bun", ok: true, bad: false });
    expect(await verify_password("pw", result.hash)).toBe(true);
  });

  test.skipIf(!libsodium)("=libsodium uses libsodium, whose hashes Bun.password verifies", async () => {
    const run = run_with_impl("libsodium", script);
    expect(run.err).toBe("");
    const result = JSON.parse(run.out);
    expect(result).toMatchObject({ name: "libsodium", ok: true, bad: false });
    expect(await Bun.password.verify("pw", result.hash, "argon2id")).toBe(true);
  });

  test("without libsodium: auto and bun use Bun.password, libsodium refuses to start", () => {
    const missing = ["libsodium-not-installed.so.99"];
    expect(choose_impl("auto", missing).name).toBe("bun");
    expect(choose_impl(undefined, missing).name).toBe("bun");
    expect(choose_impl("bun", missing).name).toBe("bun");
    expect(() => choose_impl("libsodium", missing)).toThrow(/IDP_ARGON2_IMPL=libsodium, but libsodium .* does not load/);
  });

  test("an unknown value stops the start with an error naming the variable", () => {
    const run = run_with_impl("scrypt", script);
    expect(run.code).not.toBe(0);
    expect(run.err).toContain("IDP_ARGON2_IMPL");
  });
});

describe.skipIf(!libsodium)("passwords: the worker pool (Bun only: libsodium through bun:ffi)", () => {
  test("runs jobs on at most `size` workers and queues the rest, in order of arrival", async () => {
    const pool = new Argon2Pool(2, 8);
    try {
      const hash = libsodium!.hash("pw", 1024, 1);
      const jobs = Array.from({ length: 10 }, (_, i) => pool.run({ op: "verify", password: i % 3 ? "pw" : "no", hash }));
      expect(jobs.every((job) => job !== null)).toBe(true);
      const answers = await Promise.all(jobs);
      expect(answers.map((a) => a!.ok)).toEqual(Array.from({ length: 10 }, (_, i) => i % 3 !== 0));
    } finally {
      pool.close();
    }
  });

  test("a full queue answers null (the caller falls back to Bun.password)", async () => {
    const pool = new Argon2Pool(1, 2);
    try {
      const hash = libsodium!.hash("pw", 1024, 1);
      const jobs = Array.from({ length: 4 }, () => pool.run({ op: "verify", password: "pw", hash }));
      expect(jobs.map((job) => job === null)).toEqual([false, false, false, true]);
      for (const answer of await Promise.all(jobs.slice(0, 3))) expect(answer!.ok).toBe(true);
    } finally {
      pool.close();
    }
  });

  test("a closed pool answers with an error instead of hanging", async () => {
    const pool = new Argon2Pool(1, 4);
    const pending = pool.run({ op: "hash", password: "pw", memory_kib: 1024, time_cost: 1 });
    pool.close();
    expect((await pending)!.error).toContain("closed");
    expect((await pool.run({ op: "verify", password: "pw", hash: "x" }))!.error).toContain("closed");
  });

  test("hashing through the pool gives a string Bun.password verifies", async () => {
    const pool = new Argon2Pool(1, 4);
    try {
      const answer = await pool.run({ op: "hash", password: "pw", memory_kib: 1024, time_cost: 1 });
      expect(await Bun.password.verify("pw", answer!.hash!, "argon2id")).toBe(true);
    } finally {
      pool.close();
    }
  });

  test("a broken pool falls back to Bun.password, says so once on stderr, and names the fallback", async () => {
    const pool = new Argon2Pool(1, 4);
    const impl = libsodium_impl(pool);
    const stored = await impl.hash("pw", params);
    expect(impl.name).toBe("libsodium");
    pool.close();
    const stderr = spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await impl.verify("pw", stored)).toBe(true);
      expect(await impl.verify("px", stored)).toBe(false);
      expect(impl.name).toBe("bun");
      const lines = stderr.mock.calls.map((call) => String(call[0])).filter((line) => line.includes("argon2id worker pool stopped"));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", reason: "argon2 pool closed" });
    } finally {
      stderr.mockRestore();
    }
  });
});
