/**
 * The store side of the key ring: `sync_keys` brings the stored keys to a signing state (one
 * active key per alg, a published next key, no expired keys) and builds the in-memory view an
 * instance signs and verifies with. KeyRing (keyring.ts) serialises the calls.
 */
import { StoreConflictError, type KeyRow, type KeyStatus, type KeyStore, type NewKey, type UnixSeconds } from "../../store/types.ts";
import { generate_key, type Alg } from "./algs.ts";
import { make_signer, type Signer } from "./jws.ts";
import type { KeyRingOptions } from "./options.ts";
import { newest_keys, after, build_jwks, expired, newest_first, published, usable, type Jwks, type UsableRow } from "./published.ts";

/** What one instance holds between syncs. */
export type View = {
  version: number;
  rows: UsableRow[];
  all_rows: KeyRow[];
  signers: Map<Alg, { kid: string; sign: Signer }>;
  jwks: Jwks;
  /** The earliest retire_at among stored retired keys (the next sync deletes it), or when a held-back key may start signing. */
  cleanup_at: UnixSeconds;
};

/** Imported keys, kept across syncs so a key is imported once, not per request or per sync. */
export type KeyCaches = {
  signers: Map<string, Signer>;
  verify: Map<string, Promise<CryptoKey>>;
};

/** Brings the store to a signing state (one active key per alg, next keys, no expired keys) and returns the new view. */
export async function sync_keys(store: KeyStore, options: KeyRingOptions, clock: () => UnixSeconds, caches: KeyCaches): Promise<View> {
  // Version before rows: a change in between makes the next refresh() sync again, never miss it.
  let version = await store.keys_version();
  let rows = await store.list_keys();
  let now = clock();
  let wrote = false;
  for (const alg of options.algs) {
    const mine = rows.filter((row): row is UsableRow => usable(row) && row.alg === alg);
    let promoted: string | undefined;
    if (!mine.some((row) => row.status === "active")) {
      const next = mine.filter((row) => row.status === "next").sort(newest_first)[0];
      const activated_at = after(rows, alg, "activated_at", now);
      if (next) await store.update_key_status((promoted = next.kid), "active", { activated_at, now });
      else await insert_key(store, await generate_key(alg), "active", after(rows, alg, "created_at", now), activated_at);
      wrote = true;
    }
    if (options.publish_next !== false && !mine.some((row) => row.status === "next" && row.kid !== promoted)) {
      rows = await store.list_keys();
      await insert_key(store, await generate_key(alg), "next", after(rows, alg, "created_at", clock()), null);
      wrote = true;
    }
  }
  if (wrote) rows = await store.list_keys();
  now = clock();
  // Two instances activated (or prepared) a key for the same alg at once: every instance keeps
  // the same winner and retires the others (still published, so what they signed still verifies).
  const winners = { active: newest_keys(rows.filter(usable), "active"), next: newest_keys(rows.filter(usable), "next") };
  for (const row of rows) {
    if (row.status !== "retired" && usable(row) && winners[row.status].get(row.alg)?.kid !== row.kid) {
      await retire_key(store, options, row.kid, now);
      wrote = true;
    } else if (expired(row, now)) {
      await store.delete_key(row.kid);
      wrote = true;
    }
  }
  if (wrote) {
    version = await store.keys_version();
    rows = await store.list_keys();
  }
  return build_view(version, rows, now, options, caches);
}

async function build_view(version: number, all_rows: KeyRow[], now: UnixSeconds, options: KeyRingOptions, caches: KeyCaches): Promise<View> {
  const rows = all_rows.filter(usable).filter((row) => published(row, now));
  const signers = new Map<Alg, { kid: string; sign: Signer }>();
  const lead = options.publish_lead_seconds ?? 0;
  let sign_later_at = Number.POSITIVE_INFINITY;
  for (const [alg, newest] of newest_keys(rows)) {
    if (!options.algs.includes(alg)) continue;
    let row = newest;
    if (lead > 0 && newest.created_at + lead > now) {
      // Publish before sign: another instance may not have this key in its JWKS
      // yet. Sign with the key active before it while that one stays published longer than
      // what it signs now lives; a first key (nothing older) signs at once. Keys stored
      // within a second of each other (`after()` spaces their created_at) count as one.
      sign_later_at = Math.min(sign_later_at, newest.created_at + lead);
      const min_retire_at = now + options.retire_after_seconds + lead;
      const older = rows.filter(
        (r) =>
          r.alg === alg &&
          r.activated_at !== null &&
          r.created_at < newest.created_at - 1 &&
          r.created_at + lead <= now &&
          (r.status === "active" || (r.retire_at ?? 0) >= min_retire_at),
      );
      row = older.sort(newest_first)[0] ?? newest;
    }
    let sign = caches.signers.get(row.kid);
    if (!sign) caches.signers.set(row.kid, (sign = await make_signer(alg, row.kid, row.private_jwk, { openssl: options.openssl })));
    signers.set(alg, { kid: row.kid, sign });
  }
  const live = new Set(rows.map((row) => row.kid));
  for (const kid of caches.signers.keys()) if (!live.has(kid)) caches.signers.delete(kid);
  for (const kid of caches.verify.keys()) if (!live.has(kid)) caches.verify.delete(kid);
  const cleanup_at = Math.min(sign_later_at, ...all_rows.map((row) => (row.status === "retired" ? (row.retire_at ?? now) : Infinity)));
  return { version, rows, all_rows, signers, jwks: build_jwks(rows, now), cleanup_at };
}

/** Stores a generated key; a conflict means another instance stored the same key first. */
export async function insert_key(
  store: KeyStore,
  key: Awaited<ReturnType<typeof generate_key>>,
  status: KeyStatus,
  created_at: UnixSeconds,
  activated_at: UnixSeconds | null,
): Promise<void> {
  const row: NewKey = { kid: key.kid, alg: key.alg, use: "sig", private_jwk: key.private_jwk, public_jwk: key.public_jwk, status, created_at, activated_at };
  try {
    await store.insert_key(row);
  } catch (error) {
    // Same kid = same key (RFC 7638 thumbprint): someone stored it already; the re-read sees it.
    if (!(error instanceof StoreConflictError)) throw error;
  }
}

/** Retires a key: it stays published for the longest token lifetime plus the grace period. */
export async function retire_key(store: KeyStore, options: KeyRingOptions, kid: string, now: UnixSeconds): Promise<void> {
  const retire_at = now + options.retire_after_seconds + (options.retire_grace_seconds ?? 60);
  await store.update_key_status(kid, "retired", { retire_at, now });
}
