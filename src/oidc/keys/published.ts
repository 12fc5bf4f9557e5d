/**
 * What the key ring derives from the stored key rows, without touching the store: which keys
 * are published and trusted, which one signs per alg, and the JWKS document.
 */
import { createHash } from "node:crypto";
import type { KeyRow, UnixSeconds } from "../../store/types.ts";
import { ALGS, KEY_SHAPE, is_alg, public_jwk, type Alg, type PublicJwk } from "./algs.ts";

/** A stored key we can use: a known alg whose key type and curve fit it. */
export type UsableRow = KeyRow & { alg: Alg };

export function usable(row: KeyRow): row is UsableRow {
  if (!is_alg(row.alg)) return false;
  const shape = KEY_SHAPE[row.alg];
  return row.public_jwk.kty === shape.kty && (shape.crv === undefined || row.public_jwk.crv === shape.crv);
}

/**
 * Published (in the JWKS) and trusted for verification: `next` keys (published before they
 * sign; another instance may already have promoted one), `active` keys, and `retired` keys until
 * their retire_at, so tokens they signed verify until they expire.
 */
export function published(row: UsableRow, now: UnixSeconds): boolean {
  if (row.status === "retired") return row.retire_at !== null && row.retire_at > now;
  return true;
}

/** Retired keys past retire_at: no token they signed is still valid, so they can be deleted. */
export function expired(row: KeyRow, now: UnixSeconds): boolean {
  return row.status === "retired" && (row.retire_at === null || row.retire_at <= now);
}

/**
 * Orders active keys of one alg so every instance picks the same signer when two were activated
 * at once (concurrent start, concurrent rotation): newest activated_at, then created_at, then kid.
 */
export function newest_first(a: KeyRow, b: KeyRow): number {
  return (b.activated_at ?? 0) - (a.activated_at ?? 0) || b.created_at - a.created_at || (b.kid < a.kid ? -1 : b.kid > a.kid ? 1 : 0);
}

/** The key per alg with this status (the winner by `newest_first` when there are several). */
export function newest_keys(rows: readonly UsableRow[], status: "active" | "next" = "active"): Map<Alg, UsableRow> {
  const out = new Map<Alg, UsableRow>();
  for (const row of [...rows].filter((r) => r.status === status).sort(newest_first)) {
    if (!out.has(row.alg)) out.set(row.alg, row);
  }
  return out;
}

/** A timestamp strictly after `field` of every key of the alg, so order is clear within a second. */
export function after(rows: readonly KeyRow[], alg: Alg, field: "created_at" | "activated_at", now: UnixSeconds): UnixSeconds {
  let latest = now - 1;
  for (const row of rows) if (row.alg === alg) latest = Math.max(latest, row[field] ?? 0);
  return Math.max(now, latest + 1);
}

export type Jwks = {
  /** UTF-8 JSON `{"keys":[...]}` (RFC 7517 §5), ready to send. */
  body: Uint8Array;
  /** Strong ETag (RFC 9110 §8.8.3) of the body. */
  etag: string;
  /** When the document changes without a store change (a retired key reaches retire_at). */
  valid_until: UnixSeconds;
};

const STATUS_ORDER = { active: 0, next: 1, retired: 2 } as const;

/**
 * The JWK Set: public members only (an allow-list in `public_jwk`), active keys first so a
 * client that takes the first key of an alg gets the signing one.
 */
export function build_jwks(rows: readonly UsableRow[], now: UnixSeconds): Jwks {
  const keys: PublicJwk[] = [];
  let valid_until = Number.POSITIVE_INFINITY;
  const sorted = rows
    .filter((row) => published(row, now))
    .sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || ALGS.indexOf(a.alg) - ALGS.indexOf(b.alg) || newest_first(a, b));
  for (const row of sorted) {
    keys.push(public_jwk(row.public_jwk, row.kid, row.alg));
    if (row.status === "retired" && row.retire_at !== null) valid_until = Math.min(valid_until, row.retire_at);
  }
  const body = new TextEncoder().encode(JSON.stringify({ keys }));
  const etag = `"${createHash("sha256").update(body).digest("base64url")}"`;
  return { body, etag, valid_until };
}
