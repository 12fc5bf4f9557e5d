/**
 * Signing benchmark: which way of producing a compact JWS is cheapest on Bun, per alg.
 * Run by hand: `node_modules/.bin/bun bench/sign/index.ts` (prints a markdown table; ROUNDS=n).
 *
 * (a) jose SignJWT with a cached CryptoKey
 * (b) WebCrypto crypto.subtle.sign with a cached CryptoKey, JWS assembled by hand — one at a
 *     time, and 64 in flight (Bun signs on worker threads, so this can use several cores)
 * (c) node:crypto KeyObject (createPrivateKey once) + crypto.sign, synchronous (on the JS thread)
 * (d) src/oidc/keys/jws.ts, the signer KeyRing uses (OpenSSL 3 for RSA when it loads, else
 *     WebCrypto; node:crypto for EC/OKP)
 * (e) RS256/PS256 only: src/platform/openssl.ts alone — the system's libcrypto.so.3 through
 *     bun:ffi, synchronous (on the JS thread)
 *
 * Every case's token is checked with jose jwtVerify before it is timed.
 */
import { createPrivateKey, sign as node_sign, type KeyObject } from "node:crypto";
import { availableParallelism, cpus, loadavg } from "node:os";
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK } from "jose";
import { make_signer } from "../../src/oidc/keys/jws.ts";
import { openssl_rsa_signer } from "../../src/platform/openssl.ts";
import { ALGS, type Alg } from "../../src/oidc/keys/algs.ts";
import type { JsonObject } from "../../src/store/types.ts";
import { load_config } from "../../src/app/config.ts";

/** Config `openssl` (IDP_OPENSSL=off turns it off), as the server reads it. */
const OPENSSL = load_config().openssl;

const payload = {
  iss: "https://id.example.com",
  sub: "3f1c9a4e-7d1b-4c39-9a57-1c0f2b4d8e6a",
  aud: "client-1234567890",
  exp: 1_900_000_000,
  iat: 1_899_996_400,
  auth_time: 1_899_996_000,
  nonce: "n-0S6_WzA2Mj",
  at_hash: "77QmUPtjPfzWtF2AnpK9RQ",
  sid: "08a5019c-17e1-4977-8f42-65a12843ea02",
};

const WEBCRYPTO: Record<Alg, AlgorithmIdentifier | RsaPssParams | EcdsaParams> = {
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  PS256: { name: "RSA-PSS", saltLength: 32 } as RsaPssParams,
  ES256: { name: "ECDSA", hash: "SHA-256" } as EcdsaParams,
  EdDSA: { name: "Ed25519" },
};

function b64(value: string | Uint8Array): string {
  return Buffer.from(value).toString("base64url");
}

type Case = { name: string; run: () => string | Promise<string>; batch?: number };

type Sample = { per_second: number; cpu_us: number };

/** Wall-clock rate and CPU time (all threads, so a thread pool is counted) per token. */
async function measure(c: Case, ms: number): Promise<Sample> {
  for (let i = 0; i < 50; i++) await c.run(); // warm-up
  let count = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    if (c.batch) {
      await Promise.all(Array.from({ length: c.batch }, () => c.run()));
      count += c.batch;
    } else {
      const result = c.run();
      if (typeof result !== "string") await result;
      count++;
    }
    if ((count & 15) === 0 || c.batch) now = performance.now();
  }
  const used = process.cpuUsage(cpu);
  return { per_second: (count * 1000) / (performance.now() - start), cpu_us: (used.user + used.system) / count };
}

async function cases_for(alg: Alg): Promise<Case[]> {
  const kid = `bench-${alg}`;
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
  const jwk = (await exportJWK(privateKey)) as JWK;
  const header = { alg, kid, typ: "JWT" };
  const crypto_key = (await importJWK({ ...jwk, alg }, alg)) as CryptoKey;
  const key_object: KeyObject = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
  const ours = await make_signer(alg, kid, jwk as JsonObject, { openssl: OPENSSL });

  const webcrypto = async () => {
    const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`;
    const signature = await crypto.subtle.sign(WEBCRYPTO[alg], crypto_key, Buffer.from(input));
    return `${input}.${b64(new Uint8Array(signature))}`;
  };
  const node = () => {
    const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`;
    const data = Buffer.from(input);
    const signature =
      alg === "RS256"
        ? node_sign("sha256", data, key_object)
        : alg === "PS256"
          ? node_sign("sha256", data, { key: key_object, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 32 })
          : alg === "ES256"
            ? node_sign("sha256", data, { key: key_object, dsaEncoding: "ieee-p1363" })
            : node_sign(null, data, key_object);
    return `${input}.${signature.toString("base64url")}`;
  };
  const list: Case[] = [
    { name: "(a) jose SignJWT + CryptoKey", run: () => new SignJWT(payload).setProtectedHeader(header).sign(crypto_key) },
    { name: "(b) WebCrypto subtle.sign, sequential", run: webcrypto },
    { name: "(b) WebCrypto subtle.sign, 64 in flight", run: webcrypto, batch: 64 },
    { name: "(c) node:crypto sign (sync KeyObject)", run: node },
    { name: "(d) src/oidc/keys/jws.ts make_signer, sequential", run: () => ours(payload, "JWT") },
    { name: "(d) src/oidc/keys/jws.ts make_signer, 64 in flight", run: () => ours(payload, "JWT"), batch: 64 },
  ];
  const openssl = alg === "RS256" || alg === "PS256" ? openssl_rsa_signer(jwk as JsonObject, alg, { enabled: OPENSSL }) : null;
  if (openssl) {
    list.push({
      name: "(e) OpenSSL 3 via bun:ffi (sync)",
      run: () => {
        const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`;
        return `${input}.${b64(openssl(Buffer.from(input)))}`;
      },
    });
  } else if (alg === "RS256" || alg === "PS256") {
    console.error(`(e) skipped for ${alg}: libcrypto.so.3 not loaded (or IDP_OPENSSL=off)`);
  }
  // Every case must produce a token jose accepts.
  for (const c of list) await jwtVerify(await c.run(), publicKey, { algorithms: [alg], currentDate: new Date(1_899_996_500_000) });
  return list;
}

// Several short rounds per case, interleaved, reporting medians. The machine is shared, so the
// wall-clock rate includes time other processes took; CPU time per token is the steadier measure
// of what one core can sign (tokens per CPU-second = 1e6 / CPU µs).
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const cpu = cpus()[0]?.model ?? "unknown";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows: string[] = [];
const load_before = loadavg()[0]!.toFixed(1);
for (const alg of ALGS) {
  const list = await cases_for(alg);
  const samples = list.map(() => [] as Sample[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, c] of list.entries()) samples[i]!.push(await measure(c, 600));
  }
  for (const [i, c] of list.entries()) {
    const rate = median(samples[i]!.map((s) => s.per_second));
    const cpu_us = median(samples[i]!.map((s) => s.cpu_us));
    const cores = (rate * cpu_us) / 1e6;
    rows.push(
      `| ${alg} | ${c.name} | ${cpu_us.toFixed(1)} | ${Math.round(1e6 / cpu_us).toLocaleString("en-US")} | ${Math.round(rate).toLocaleString("en-US")} | ${cores.toFixed(2)} |`,
    );
    console.error(rows.at(-1));
  }
}
// Event-loop lag while a server signs 64 RS256 tokens at once: a synchronous signer holds the one
// JS thread for every token in the batch; an off-thread one lets other requests run meanwhile.
async function lag_while(run: () => string | Promise<string>): Promise<{ max: number; p50: number; tokens: number }> {
  const gaps: number[] = [];
  let last = performance.now();
  let stop = false;
  const probe = () => {
    const t = performance.now();
    gaps.push(t - last);
    last = t;
    if (!stop) setTimeout(probe, 0);
  };
  setTimeout(probe, 0);
  let tokens = 0;
  const start = performance.now();
  while (performance.now() - start < 1000) {
    await Promise.all(Array.from({ length: 64 }, run));
    tokens += 64;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  stop = true;
  gaps.sort((a, b) => a - b);
  return { max: gaps.at(-1) ?? 0, p50: gaps[Math.floor(gaps.length / 2)] ?? 0, tokens };
}
const lag_rows: string[] = [];
{
  const rs256 = await cases_for("RS256");
  for (const c of rs256.filter(
    (c) => c.name.startsWith("(b) WebCrypto subtle.sign, seq") || c.name.startsWith("(c)") || (c.name.startsWith("(d)") && !c.batch) || c.name.startsWith("(e)"),
  )) {
    const { max, p50 } = await lag_while(c.run);
    lag_rows.push(`| RS256 | ${c.name.replace(/, sequential$/, "")} | ${p50.toFixed(1)} | ${max.toFixed(1)} |`);
  }
}
const load = `load average ${load_before} → ${loadavg()[0]!.toFixed(1)}`;
console.log(`\nDate: ${new Date().toISOString().slice(0, 10)} · nproc: ${availableParallelism()} · CPU: ${cpu} · Bun ${Bun.version} · median of ${ROUNDS} rounds · ${load}\n`);
console.log("| alg | method | CPU µs/token | tokens per CPU-second | wall tokens/s | cores busy |");
console.log("| --- | --- | ---: | ---: | ---: | ---: |");
for (const row of rows) console.log(row);
console.log("\nEvent-loop lag while 64 RS256 tokens are signed at once (setTimeout(0) probe):\n");
console.log("| alg | method | median gap ms | max gap ms |");
console.log("| --- | --- | ---: | ---: |");
for (const row of lag_rows) console.log(row);
