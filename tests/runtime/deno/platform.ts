/**
 * Runs the runtime seam (src/platform) under Deno for tests/runtime/platform.test.ts: reads a JSON
 * job from its first argument, prints one JSON line of results. Started with the permissions
 * the test names, so what it shows is what those permissions allow.
 */
import { sha256_base64url, uuid_v7 } from "../../../src/platform/crypto.ts";
import { openssl_rsa_signer } from "../../../src/platform/openssl.ts";
import { argon2_impl, configure_argon2, hash_password, verify_password } from "../../../src/platform/passwords.ts";
import { environment, is_compiled_executable, sleep } from "../../../src/platform/runtime.ts";

type Job = { sha256: string[]; verify: { password: string; hash: string }[]; env_names: string[]; impl?: "auto" | "bun" | "libsodium" };
const job = JSON.parse(Deno.args[0] ?? "{}") as Job;

let configured: string;
try {
  configured = configure_argon2(job.impl ?? "auto");
} catch (error) {
  configured = `error: ${(error as Error).message}`;
}
const started = performance.now();
await sleep(30);
const slept_ms = performance.now() - started;
const params = { memory_kib: 1024, time_cost: 1 };
const hashes = configured.startsWith("error")
  ? []
  : await Promise.all(["correct horse", "", "pässwörd ✓"].map((password) => hash_password(password, params).catch((error: Error) => `error: ${error.message}`)));

console.log(
  JSON.stringify({
    sha256: job.sha256.map(sha256_base64url),
    uuids: Array.from({ length: 2000 }, uuid_v7),
    compiled: is_compiled_executable(),
    slept_ms,
    argon2: configured,
    argon2_in_use: configured.startsWith("error") ? null : argon2_impl.name,
    hashes,
    verified: await Promise.all(job.verify.map(({ password, hash }) => verify_password(password, hash))),
    env: environment(job.env_names),
    openssl: openssl_rsa_signer({ kty: "RSA" }, "RS256") === null ? "none" : "signer",
  }),
);
