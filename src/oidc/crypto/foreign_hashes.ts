/**
 * Password hashes written by other identity providers, kept after an import (oidc/foreign_import/)
 * until the user's next password sign-in replaces them with our argon2id (signin/password.ts).
 *
 * Stored forms (one canonical string each; an import converts to them):
 * - bcrypt, modular crypt: `$2a$`, `$2b$` or `$2y$` + cost + 22 characters of salt + 31 of hash.
 *   The three prefixes compute the same for passwords of up to 72 bytes, and bcrypt reads no
 *   further: longer passwords are cut at 72 bytes, as every bcrypt does.
 * - PBKDF2, PHC: `$pbkdf2-sha256$i=27500$<salt>$<hash>` (and `-sha512`), salt and hash in
 *   base64 without padding; passlib's `$pbkdf2-sha256$27500$...` (`.` for `+`) is read too.
 *   Keycloak's stored credential converts to it (keycloak_credential_hash).
 * - scrypt, PHC: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (N = 2^ln).
 * - argon2i and argon2d, PHC: `$argon2i$v=19$m=65536,t=2,p=1$<salt>$<hash>`.
 * Our own argon2id strings are not foreign (platform/passwords.ts verifies them), but an imported
 * one is held to the same limits (checked_imported_hash).
 *
 * The strings come from files an operator imports, possibly crafted: every cost parameter is
 * bounded (FOREIGN_LIMITS) before any work, so no stored hash makes a sign-in cost more than
 * about a second, and a hash over the limits never verifies. Digests are compared in constant
 * time. The password is taken as its UTF-8 bytes (Java's PBKDF2, used by Keycloak, does the same).
 */
import { pbkdf2, scrypt, timingSafeEqual } from "node:crypto";
import { bcrypt } from "hash-wasm";
import { verify_password } from "../../platform/passwords.ts";

export type ForeignKind = "bcrypt" | "pbkdf2-sha256" | "pbkdf2-sha512" | "scrypt" | "argon2i" | "argon2d";

/** Upper bounds on what a stored hash may ask for, checked before computing anything. */
export const FOREIGN_LIMITS = {
  /** bcrypt cost (2^cost rounds): 14 is ~1 s in WebAssembly; providers use 10 to 12. */
  bcrypt_cost: 14,
  /** PBKDF2 iterations (OWASP asks 600,000 for SHA-256, 210,000 for SHA-512). */
  pbkdf2_iterations: 1_000_000,
  /** scrypt memory, 128·N·r bytes, and work, N·r·p. */
  scrypt_memory_bytes: 128 * 1024 * 1024,
  scrypt_work: 2 ** 22,
  /** argon2 memory in KiB, passes, lanes, and memory × passes. */
  argon2_memory_kib: 131_072,
  argon2_passes: 16,
  argon2_lanes: 8,
  argon2_work: 262_144,
  /** Salt and digest sizes in bytes. */
  salt_bytes: [1, 256],
  digest_bytes: [16, 64],
} as const;

type Pbkdf2 = { kind: "pbkdf2-sha256" | "pbkdf2-sha512"; iterations: number; salt: Buffer; digest: Buffer };
type Scrypt = { kind: "scrypt"; ln: number; r: number; p: number; salt: Buffer; digest: Buffer };
type Argon2 = { kind: "argon2i" | "argon2d" | "argon2id"; m: number; t: number; p: number; salt: Buffer; digest: Buffer };
type Bcrypt = { kind: "bcrypt"; cost: number; salt: Buffer; encoded: string };
export type ParsedHash = Pbkdf2 | Scrypt | Argon2 | Bcrypt;

/** A stored string this module does not take, or one over the limits, and why. */
export type HashProblem = { problem: string };

/** Longer than any hash within the limits (64-byte hash and 256-byte salt in base64, parameters). */
const MAX_STORED_LENGTH = 512;
const BCRYPT = /^\$2[aby]\$(\d\d)\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;
const PBKDF2 = /^\$pbkdf2-(sha256|sha512)\$(?:i=)?(\d{1,10})\$([A-Za-z0-9+/.]+={0,2})\$([A-Za-z0-9+/.]+={0,2})$/;
const SCRYPT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/.]+={0,2})\$([A-Za-z0-9+/.]+={0,2})$/;
const ARGON2 = /^\$(argon2i|argon2d|argon2id)\$v=19\$m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Standard base64 (PHC's B64 without padding, or passlib's with `.` for `+`). */
function b64(text: string): Buffer {
  return Buffer.from(text.replace(/\./g, "+"), "base64");
}

/** bcrypt's own base64 alphabet, mapped onto the standard one. */
const BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const STANDARD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function bcrypt_b64(text: string): Buffer {
  let standard = "";
  for (const char of text) standard += STANDARD_ALPHABET[BCRYPT_ALPHABET.indexOf(char)];
  return Buffer.from(standard, "base64");
}

function sizes(salt: Buffer, digest: Buffer): string | null {
  const [salt_min, salt_max] = FOREIGN_LIMITS.salt_bytes;
  const [digest_min, digest_max] = FOREIGN_LIMITS.digest_bytes;
  if (salt.length < salt_min || salt.length > salt_max) return `salt of ${salt.length} bytes (${salt_min} to ${salt_max} taken)`;
  if (digest.length < digest_min || digest.length > digest_max) return `hash of ${digest.length} bytes (${digest_min} to ${digest_max} taken)`;
  return null;
}

/** Parses a stored hash of a kind this module knows and checks it against FOREIGN_LIMITS. */
export function parse_password_hash(stored: string): ParsedHash | HashProblem {
  if (stored.length > MAX_STORED_LENGTH) return { problem: `longer than ${MAX_STORED_LENGTH} characters` };
  let match = BCRYPT.exec(stored);
  if (match) {
    const cost = Number(match[1]);
    if (cost < 4 || cost > FOREIGN_LIMITS.bcrypt_cost) return { problem: `bcrypt cost ${cost} (4 to ${FOREIGN_LIMITS.bcrypt_cost} taken)` };
    return { kind: "bcrypt", cost, salt: bcrypt_b64(match[2]!).subarray(0, 16), encoded: match[3]! };
  }
  match = PBKDF2.exec(stored);
  if (match) {
    const iterations = Number(match[2]);
    if (iterations < 1 || iterations > FOREIGN_LIMITS.pbkdf2_iterations) return { problem: `PBKDF2 iterations ${iterations} (1 to ${FOREIGN_LIMITS.pbkdf2_iterations} taken)` };
    const salt = b64(match[3]!);
    const digest = b64(match[4]!);
    const bad = sizes(salt, digest);
    return bad !== null ? { problem: bad } : { kind: match[1] === "sha256" ? "pbkdf2-sha256" : "pbkdf2-sha512", iterations, salt, digest };
  }
  match = SCRYPT.exec(stored);
  if (match) {
    const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (ln < 1 || r < 1 || p < 1) return { problem: "scrypt parameters must be at least 1" };
    if (128 * 2 ** ln * r > FOREIGN_LIMITS.scrypt_memory_bytes) return { problem: `scrypt memory 128·2^${ln}·${r} bytes (at most ${FOREIGN_LIMITS.scrypt_memory_bytes})` };
    if (2 ** ln * r * p > FOREIGN_LIMITS.scrypt_work) return { problem: `scrypt work 2^${ln}·${r}·${p} (at most ${FOREIGN_LIMITS.scrypt_work})` };
    const salt = b64(match[4]!);
    const digest = b64(match[5]!);
    const bad = sizes(salt, digest);
    return bad !== null ? { problem: bad } : { kind: "scrypt", ln, r, p, salt, digest };
  }
  match = ARGON2.exec(stored);
  if (match) {
    const [m, t, p] = [Number(match[2]), Number(match[3]), Number(match[4])];
    if (p < 1 || p > FOREIGN_LIMITS.argon2_lanes) return { problem: `argon2 lanes ${p} (1 to ${FOREIGN_LIMITS.argon2_lanes} taken)` };
    if (t < 1 || t > FOREIGN_LIMITS.argon2_passes) return { problem: `argon2 passes ${t} (1 to ${FOREIGN_LIMITS.argon2_passes} taken)` };
    if (m < 8 * p || m > FOREIGN_LIMITS.argon2_memory_kib) return { problem: `argon2 memory ${m} KiB (8·p to ${FOREIGN_LIMITS.argon2_memory_kib} taken)` };
    if (m * t > FOREIGN_LIMITS.argon2_work) return { problem: `argon2 memory × passes ${m * t} (at most ${FOREIGN_LIMITS.argon2_work})` };
    const salt = b64(match[5]!);
    const digest = b64(match[6]!);
    const bad = sizes(salt, digest) ?? (salt.length < 8 ? "argon2 salt shorter than 8 bytes" : null);
    return bad !== null ? { problem: bad } : { kind: match[1] as Argon2["kind"], m, t, p, salt, digest };
  }
  return { problem: "not a hash this provider reads (bcrypt $2a$/$2b$/$2y$, or PHC $pbkdf2-sha256$, $pbkdf2-sha512$, $scrypt$, $argon2i$, $argon2d$, $argon2id$ v=19)" };
}

/**
 * A stored hash to be replaced at the next sign-in: anything but our argon2id ("" is no password).
 * Cheap: the metric's store query (`count_foreign_password_hashes`) uses the same rule.
 */
export function is_foreign_hash(stored: string): boolean {
  return stored !== "" && !stored.startsWith("$argon2id$");
}

/** The kind of a foreign stored hash, for the audit trail; null when unknown or not foreign. */
export function foreign_kind(stored: string): ForeignKind | null {
  if (!is_foreign_hash(stored)) return null;
  const parsed = parse_password_hash(stored);
  return "problem" in parsed || parsed.kind === "argon2id" ? null : parsed.kind;
}

/** The hash an import may store: a known kind within the limits, written back canonically. */
export function checked_imported_hash(stored: string): { hash: string } | HashProblem {
  const parsed = parse_password_hash(stored.trim());
  if ("problem" in parsed) return parsed;
  return { hash: canonical(parsed) };
}

function unpadded(bytes: Buffer): string {
  return bytes.toString("base64").replace(/=+$/, "");
}

function canonical(parsed: ParsedHash): string {
  switch (parsed.kind) {
    case "bcrypt":
      return `$2b$${String(parsed.cost).padStart(2, "0")}$${bcrypt_salt_text(parsed.salt)}${parsed.encoded}`;
    case "pbkdf2-sha256":
    case "pbkdf2-sha512":
      return `$${parsed.kind}$i=${parsed.iterations}$${unpadded(parsed.salt)}$${unpadded(parsed.digest)}`;
    case "scrypt":
      return `$scrypt$ln=${parsed.ln},r=${parsed.r},p=${parsed.p}$${unpadded(parsed.salt)}$${unpadded(parsed.digest)}`;
    default:
      return `$${parsed.kind}$v=19$m=${parsed.m},t=${parsed.t},p=${parsed.p}$${unpadded(parsed.salt)}$${unpadded(parsed.digest)}`;
  }
}

/** 16 salt bytes in bcrypt's alphabet (22 characters). */
function bcrypt_salt_text(salt: Buffer): string {
  let text = "";
  for (const char of unpadded(salt)) text += BCRYPT_ALPHABET[STANDARD_ALPHABET.indexOf(char)];
  return text.slice(0, 22);
}

const encoder = new TextEncoder();

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * True when `password` matches a foreign stored hash; false for a wrong password, a string this
 * module does not read, or one over FOREIGN_LIMITS (never computed). Never throws.
 */
export async function verify_foreign_hash(password: string, stored: string): Promise<boolean> {
  if (password === "") return false;
  const parsed = parse_password_hash(stored);
  if ("problem" in parsed || parsed.kind === "argon2id") return false;
  const secret = encoder.encode(password);
  try {
    switch (parsed.kind) {
      case "bcrypt": {
        // bcrypt reads at most 72 bytes of the password (the original OpenBSD definition).
        const output = await bcrypt({ password: secret.subarray(0, 72), salt: parsed.salt, costFactor: parsed.cost, outputType: "encoded" });
        return same(encoder.encode(output.slice(-31)), encoder.encode(parsed.encoded));
      }
      case "pbkdf2-sha256":
      case "pbkdf2-sha512": {
        const digest = parsed.kind === "pbkdf2-sha256" ? "sha256" : "sha512";
        const derived = await new Promise<Buffer>((resolve, reject) =>
          pbkdf2(secret, parsed.salt, parsed.iterations, parsed.digest.length, digest, (error, key) => (error ? reject(error) : resolve(key))),
        );
        return same(derived, parsed.digest);
      }
      case "scrypt": {
        const N = 2 ** parsed.ln;
        const derived = await new Promise<Buffer>((resolve, reject) =>
          scrypt(secret, parsed.salt, parsed.digest.length, { N, r: parsed.r, p: parsed.p, maxmem: 2 * FOREIGN_LIMITS.scrypt_memory_bytes }, (error, key) =>
            error ? reject(error) : resolve(key),
          ),
        );
        return same(derived, parsed.digest);
      }
      default:
        // The argon2id implementations read argon2i and argon2d too (Bun.password off the JS
        // thread, hash-wasm on Deno): within the limits checked above.
        return await verify_password(password, stored);
    }
  } catch {
    return false;
  }
}
