/**
 * Passwords in the compiled executable (`npm run build`): the argon2id worker is embedded
 * (scripts/build.ts lists it as an entrypoint), so the executable hashes with libsodium on its
 * worker pool; IDP_ARGON2_IMPL=bun switches it to Bun.password. The two are told apart by the
 * salt they draw: libsodium's is 16 bytes (22 base64 characters), Bun.password's 32 (43).
 * A worker that did not load would fall back to Bun.password silently, so this is what catches
 * a build that lost it.
 *
 * Bun only: the executable is Bun's (`bun build --compile`), and Bun.password is half the test.
 */
import { afterAll, beforeAll, describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { open_raw_sqlite } from "../helpers/raw_sqlite.ts";
import { run } from "../helpers/spawn.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Loaded on Bun only: both name Bun's API (bun:ffi, Bun.build).
const { build_executable } = RUNTIME === "bun" ? await import("../../scripts/build.ts") : { build_executable: null };
const { open_argon2_ffi } = RUNTIME === "bun" ? await import("../../src/platform/argon2/ffi.ts") : { open_argon2_ffi: () => null };

/** Each CLI call starts a 100 MB executable; generous for a loaded CI machine. */
const CLI_TIMEOUT = 30_000;
const SALT = /^\$argon2id\$v=19\$m=1024,t=1,p=1\$([A-Za-z0-9+/]+)\$/;

describe.skipIf(!open_argon2_ffi())("passwords in the compiled executable (Bun only)", () => {
  let dir: string;
  let bin: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "idp-passwords-bin-"));
    bin = (await build_executable!(join(dir, "idp"))).outfile;
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `idp users add NAME` with the password on stdin; returns the stored hash. */
  async function add_user(name: string, env: Record<string, string> = {}): Promise<string> {
    const db = join(dir, `${name}.sqlite`);
    const { code, stderr: err } = await run([bin, "users", "add", name, "--password-stdin"], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: `sqlite:${db}`,
        IDP_ISSUER: "http://127.0.0.1:9",
        IDP_ARGON2_MEMORY_KIB: "1024",
        IDP_ARGON2_TIME_COST: "1",
        ...env,
      },
      input: "correct horse\n",
    });
    expect(err).toBe("");
    expect(code).toBe(0);
    const store = open_raw_sqlite(db, { readonly: true });
    try {
      return store.get<{ password_hash: string }>("SELECT password_hash FROM users")!.password_hash;
    } finally {
      store.close();
    }
  }

  test(
    "hashes with libsodium on the embedded worker; Bun.password verifies the hash",
    async () => {
      const hash = await add_user("alice");
      expect(hash.match(SALT)?.[1]).toHaveLength(22);
      expect(await Bun.password.verify("correct horse", hash, "argon2id")).toBe(true);
    },
    CLI_TIMEOUT,
  );

  test(
    "IDP_ARGON2_IMPL=bun hashes with Bun.password; libsodium verifies the hash",
    async () => {
      const hash = await add_user("bob", { IDP_ARGON2_IMPL: "bun" });
      expect(hash.match(SALT)?.[1]).toHaveLength(43);
      expect(open_argon2_ffi()!.verify("correct horse", hash)).toBe(true);
    },
    CLI_TIMEOUT,
  );
});
