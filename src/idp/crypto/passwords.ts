/**
 * User passwords: argon2id through Bun.password (DESIGN §2; OWASP Password Storage Cheat Sheet:
 * argon2id, m=19456 KiB, t=2, p=1 as the minimum — the config default).
 */

export type Argon2Params = { memory_kib: number; time_cost: number };

/** An argon2id PHC string ($argon2id$v=19$m=...,t=...,p=...$salt$hash). */
export async function hash_password(password: string, params: Argon2Params): Promise<string> {
  return Bun.password.hash(password, {
    algorithm: "argon2id",
    memoryCost: params.memory_kib,
    timeCost: params.time_cost,
  });
}

/** True when the password matches the hash; false for a wrong password or a malformed hash. */
export async function verify_password(password: string, hash: string): Promise<boolean> {
  try {
    return await Bun.password.verify(password, hash, "argon2id");
  } catch {
    return false;
  }
}

// One dummy hash per parameter set, built on first use, so an unknown user costs one argon2id
// verification with the same parameters as a real one.
const dummy_hashes = new Map<string, Promise<string>>();

function dummy_hash(params: Argon2Params): Promise<string> {
  const key = `${params.memory_kib}:${params.time_cost}`;
  let hash = dummy_hashes.get(key);
  if (!hash) {
    hash = hash_password(crypto.randomUUID(), params);
    dummy_hashes.set(key, hash);
  }
  return hash;
}

/**
 * Verifies a login attempt in the same time whether or not the user exists: with no stored hash
 * it verifies against a dummy hash and returns false, so response time does not reveal which
 * usernames exist (OWASP Authentication Cheat Sheet, "Authentication Responses").
 */
export async function verify_password_or_dummy(
  password: string,
  hash: string | null,
  params: Argon2Params,
): Promise<boolean> {
  if (hash === null) {
    await verify_password(password, await dummy_hash(params));
    return false;
  }
  return verify_password(password, hash);
}

/** Builds the dummy hash ahead of the first login (call at start so the first miss is not slower). */
export async function warm_dummy_hash(params: Argon2Params): Promise<void> {
  await dummy_hash(params);
}
