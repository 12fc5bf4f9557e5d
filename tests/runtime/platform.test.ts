/**
 * The runtime seam on Deno (src/platform/*_deno.ts, run by tests/runtime/deno/platform.ts under
 * the permissions each test gives): SHA-256 and UUIDv7 as on Bun, argon2id hashes that Bun's
 * implementations verify and the other way round (libsodium through Deno.dlopen when
 * `--allow-ffi` grants it, hash-wasm when not), the environment as far as `--allow-env` allows.
 * The portable pieces (crypto_deno.ts's UUIDv7, wasm.ts) are also run here under Bun, against
 * Bun's own. What is checked against Bun.password runs from Bun only (skipped under `deno task
 * test`, which has no Bun to compare with); the rest runs from either.
 */
import { describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { join } from "node:path";
import { open_argon2_ffi } from "../../src/platform/argon2/ffi.ts";
import { wasm_argon2 } from "../../src/platform/argon2/wasm.ts";
import { sha256_base64url as bun_sha256 } from "../../src/platform/crypto.ts";
import { sha256_base64url as portable_sha256, uuid_v7 as portable_uuid_v7 } from "../../src/platform/crypto_deno.ts";
import { library_candidates } from "../../src/platform/libraries.ts";
import { existsSync } from "node:fs";
import { DENO, ROOT, run } from "./process.ts";
import { rejection } from "../helpers/settle.ts";

const SCRIPT = join(ROOT, "tests/runtime/deno/platform.ts");
const libsodium = open_argon2_ffi();
const LIBSODIUM_PATH = library_candidates("libsodium.so.23").find((path) => existsSync(path));
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PHC = /^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;
const SHA_INPUTS = ["", "abc", "pässwörd ✓", "lone \ud800 surrogate", "x".repeat(10_000)];

type Result = {
  sha256: string[];
  uuids: string[];
  compiled: boolean;
  slept_ms: number;
  argon2: string;
  argon2_in_use: string | null;
  hashes: string[];
  verified: boolean[];
  env: Record<string, string>;
  openssl: string;
};

async function on_deno(flags: string[], job: object, env: Record<string, string> = {}): Promise<Result> {
  const result = await run([DENO, "run", "--no-prompt", `--allow-read=${ROOT}`, ...flags, SCRIPT, JSON.stringify({ sha256: [], verify: [], env_names: [], ...job })], {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...env,
  });
  if (result.code !== 0) throw new Error(`deno exited ${result.code}:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe.skipIf(RUNTIME !== "bun")("the portable primitives, under Bun (Bun only: checked against Bun's own)", () => {
  test("SHA-256 through node:crypto equals Bun.SHA256, lone surrogates included", () => {
    for (const input of SHA_INPUTS) expect(portable_sha256(input)).toBe(bun_sha256(input));
  });

  test("UUIDv7: version and variant bits, the time in front, strictly increasing within a millisecond", () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, portable_uuid_v7);
    const after = Date.now();
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const ms = (id: string) => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);
    expect(ms(ids[0]!)).toBeGreaterThanOrEqual(before);
    // 20,000 ids may borrow a few milliseconds ahead (4,096 at most per millisecond), never more.
    expect(ms(ids.at(-1)!)).toBeLessThanOrEqual(after + 20_000 / 2048 + 1);
  });

  test("hash-wasm's argon2id hashes verify with Bun.password and libsodium, and theirs with hash-wasm", async () => {
    const wasm = await wasm_argon2.hash("correct horse", 1024, 1);
    expect(wasm).toMatch(PHC);
    expect(await Bun.password.verify("correct horse", wasm, "argon2id")).toBe(true);
    expect(await Bun.password.verify("wrong horse", wasm, "argon2id")).toBe(false);
    const bun = await Bun.password.hash("correct horse", { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
    expect(await wasm_argon2.verify("correct horse", bun)).toBe(true);
    expect(await wasm_argon2.verify("wrong horse", bun)).toBe(false);
    if (libsodium) {
      expect(libsodium.verify("correct horse", wasm)).toBe(true);
      expect(await wasm_argon2.verify("correct horse", libsodium.hash("correct horse", 1024, 1))).toBe(true);
    }
    expect(await wasm_argon2.verify("pw", "not a hash")).toBe(false);
    // No empty password (Bun.password refuses one too): a clear refusal, and never a match.
    expect((await rejection(wasm_argon2.hash("", 1024, 1))).message).toContain("an empty password cannot be hashed");
    if (libsodium) expect(await wasm_argon2.verify("", libsodium.hash("", 1024, 1))).toBe(false);
    expect(await wasm_argon2.verify("pw", "$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$")).toBe(false);
  });
});

describe("the runtime seam under Deno", () => {
  test("SHA-256 and UUIDv7 as on Bun; not a compiled executable; sleep waits; no OpenSSL signer (WebCrypto signs)", async () => {
    const result = await on_deno([], { sha256: SHA_INPUTS });
    expect(result.sha256).toEqual(SHA_INPUTS.map(bun_sha256));
    for (const id of result.uuids) expect(id).toMatch(UUID_V7);
    expect([...result.uuids].sort()).toEqual(result.uuids);
    expect(result.compiled).toBe(false);
    expect(result.slept_ms).toBeGreaterThanOrEqual(25);
    expect(result.openssl).toBe("none");
  }, 60_000);

  test.skipIf(RUNTIME !== "bun" || !libsodium || !LIBSODIUM_PATH)(
    "with --allow-ffi for libsodium: libsodium, and the hashes cross over both ways (from Bun only: Bun.password's hashes)",
    async () => {
      const bun_hash = await Bun.password.hash("correct horse", { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
      const sodium_hash = libsodium!.hash("correct horse", 1024, 1);
      const result = await on_deno([`--allow-ffi=${LIBSODIUM_PATH}`], {
        verify: [
          { password: "correct horse", hash: bun_hash },
          { password: "correct horse", hash: sodium_hash },
          { password: "wrong horse", hash: sodium_hash },
        ],
      });
      expect(result.argon2).toBe("libsodium");
      expect(result.argon2_in_use).toBe("libsodium");
      expect(result.verified).toEqual([true, true, false]);
      const [first, empty, accented] = result.hashes;
      for (const hash of result.hashes) expect(hash).toMatch(PHC);
      expect(await Bun.password.verify("correct horse", first!, "argon2id")).toBe(true);
      expect(libsodium!.verify("", empty!)).toBe(true);
      expect(libsodium!.verify("pässwörd ✓", accented!)).toBe(true);
      expect(libsodium!.verify("passwort ✓", accented!)).toBe(false);
    },
    60_000,
  );

  test.skipIf(RUNTIME !== "bun")(
    "without --allow-ffi: hash-wasm (no prompt, no crash), and the hashes cross over both ways (from Bun only: Bun.password's hashes)",
    async () => {
      const bun_hash = await Bun.password.hash("correct horse", { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
      const p2_hash = "$argon2id$v=19$m=1024,t=1,p=2$oVkQZtP/uJQIsyjkGC6DLg$EonDtP9UGP8QUzBDA+t8kVt5BLrwWGmnHXWj4Xh5ebw";
      const verify = [
        { password: "correct horse", hash: bun_hash },
        { password: "wrong horse", hash: bun_hash },
        { password: "pw", hash: p2_hash },
        { password: "pw", hash: "garbage" },
      ];
      if (libsodium) verify.push({ password: "correct horse", hash: libsodium.hash("correct horse", 1024, 1) });
      const result = await on_deno([], { verify });
      expect(result.argon2).toBe("hash-wasm");
      expect(result.argon2_in_use).toBe("hash-wasm");
      expect(result.verified).toEqual([true, false, true, false, ...(libsodium ? [true] : [])]);
      const [first, empty, accented] = result.hashes;
      expect(first).toMatch(PHC);
      expect(accented).toMatch(PHC);
      expect(await Bun.password.verify("correct horse", first!, "argon2id")).toBe(true);
      expect(await Bun.password.verify("pässwörd ✓", accented!, "argon2id")).toBe(true);
      if (libsodium) expect(libsodium.verify("pässwörd ✓", accented!)).toBe(true);
      // hash-wasm takes no empty password, nor does Bun.password (the policy never lets one be set): a clear refusal.
      expect(empty).toBe("error: argon2id (hash-wasm): an empty password cannot be hashed");
    },
    60_000,
  );

  test("IDP_ARGON2_IMPL: bun is refused on Deno, libsodium without --allow-ffi too, each with the reason", async () => {
    expect((await on_deno([], { impl: "bun" })).argon2).toBe(
      'error: IDP_ARGON2_IMPL=bun: Bun.password exists only on Bun; here use "auto" (libsodium when it loads, else hash-wasm) or "libsodium"',
    );
    expect((await on_deno([], { impl: "libsodium" })).argon2).toBe(
      "error: IDP_ARGON2_IMPL=libsodium, but libsodium (libsodium.so.23) does not load (or --allow-ffi does not grant it)",
    );
  }, 60_000);

  test("the environment: what --allow-env lists and is set; everything with --allow-env alone", async () => {
    const env = { IDP_ISSUER: "https://idp.example", PORT: "4000", SECRET_OF_ANOTHER_APP: "x" };
    const names = ["IDP_ISSUER", "PORT", "HOST", "SECRET_OF_ANOTHER_APP"];
    expect((await on_deno(["--allow-env=IDP_*,PORT,HOST"], { env_names: names }, env)).env).toEqual({ IDP_ISSUER: "https://idp.example", PORT: "4000" });
    expect((await on_deno(["--allow-env"], { env_names: names }, env)).env).toMatchObject(env);
  }, 60_000);
});
