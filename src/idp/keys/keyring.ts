/**
 * KeyRing: the provider's signing keys, shared by every instance through the store.
 *
 * - Keys live only in the store (DESIGN §5); each instance keeps an in-memory view: imported
 *   private keys (imported once, never per request), trusted public keys and the JWKS document.
 * - Rotation publishes before it signs: each alg keeps a `next` key in the JWKS; `rotate()`
 *   promotes it to `active`, retires the previous active key with retire_at = now +
 *   retire_after_seconds + grace (tokens it signed verify until they expire), and publishes a
 *   new `next`. Retired keys leave the JWKS at retire_at and are then deleted.
 * - Instances notice changes through `store.keysVersion()` (`refresh()`, `start_polling()`).
 *   Concurrent starts or rotations may activate two keys for one alg; every instance then keeps
 *   the same one (`newest_first`) and retires the other, which still verifies.
 */
import { importJWK, jwtVerify, errors, type JWTPayload, type JWTHeaderParameters } from "jose";
import { StoreConflictError, type KeyRow, type KeyStatus, type KeyStore, type NewKey, type UnixSeconds } from "../store/types.ts";
import { generate_key, type Alg } from "./algs.ts";
import { KeyRingError, TokenVerifyError, to_verify_error } from "./errors.ts";
import { make_signer, type Signer } from "./jws.ts";
import { newest_keys, after, build_jwks, expired, newest_first, published, usable, type Jwks, type UsableRow } from "./published.ts";

export type { Alg } from "./algs.ts";

export type KeyRingOptions = {
  /** Algs to sign with; each gets an active key (and a published next key). */
  algs: readonly Alg[];
  /** The longest lifetime of a token we sign: a retired key stays published this long. */
  retire_after_seconds: number;
  /** Extra time a retired key stays published, covering instances that notice a rotation one poll late (default 60). */
  retire_grace_seconds?: number;
  /** Keep a `next` key per alg in the JWKS ahead of rotation (default true). */
  publish_next?: boolean;
  /**
   * Seconds a key must have been in the store before this instance signs with it (default 0).
   * Other instances learn of a key by polling, so a key activated soon after it was stored (two
   * rotations within one poll interval, a key created active) may be missing from their JWKS;
   * meanwhile the key active before it, still published, keeps signing. The provider sets two
   * poll intervals.
   */
  publish_lead_seconds?: number;
  /** Unix seconds (default: the system clock). */
  now?: () => UnixSeconds;
};

export type SignOptions = { alg?: Alg; typ?: string };

export type VerifyOptions = {
  /** Accept a token past its exp (id_token_hint at logout, OIDC RP-Initiated Logout §2). */
  allow_expired?: boolean;
  issuer?: string;
  audience?: string | string[];
  /** Required `typ` header, e.g. "logout+jwt". */
  typ?: string;
  clock_tolerance_seconds?: number;
};

/** A key as the CLI lists it: no private parts. */
export type KeyInfo = Pick<KeyRow, "kid" | "alg" | "status" | "created_at" | "activated_at" | "retire_at">;

type View = {
  version: number;
  rows: UsableRow[];
  all_rows: KeyRow[];
  signers: Map<Alg, { kid: string; sign: Signer }>;
  jwks: Jwks;
  /** The earliest retire_at among stored retired keys (the next sync deletes it), or when a held-back key may start signing. */
  cleanup_at: UnixSeconds;
};

export class KeyRing {
  private view!: View;
  private readonly now: () => UnixSeconds;
  private readonly signer_cache = new Map<string, Signer>();
  private readonly verify_cache = new Map<string, Promise<CryptoKey>>();
  private lock: Promise<unknown> = Promise.resolve();
  private poller: ReturnType<typeof setInterval> | undefined;
  private last_unknown_kid_refresh = 0;

  private constructor(
    private readonly store: KeyStore,
    private readonly options: KeyRingOptions,
  ) {
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    if (options.algs.length === 0) throw new KeyRingError("KeyRing needs at least one alg");
  }

  /** Reads the keys from the store and creates whatever a configured alg lacks. */
  static async load(store: KeyStore, options: KeyRingOptions): Promise<KeyRing> {
    const ring = new KeyRing(store, options);
    await ring.exclusive(() => ring.sync());
    return ring;
  }

  /** Compact JWS of the claims, header `{alg, kid, typ}` (typ defaults to "JWT"). */
  async sign(payload: Record<string, unknown>, options: SignOptions = {}): Promise<string> {
    const alg = options.alg ?? this.default_alg();
    const signer = this.view.signers.get(alg);
    if (!signer) throw new KeyRingError(`No active signing key for alg ${alg}`);
    return signer.sign(payload, options.typ ?? "JWT");
  }

  /** Verifies a JWT signed by one of our published keys; returns its claims or throws TokenVerifyError. */
  async verify(jwt: string, options: VerifyOptions = {}): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(jwt, (header) => this.verification_key(header), {
        algorithms: [...new Set(this.view.rows.map((row) => row.alg))],
        currentDate: new Date(this.now() * 1000),
        ...(options.issuer !== undefined && { issuer: options.issuer }),
        ...(options.audience !== undefined && { audience: options.audience }),
        ...(options.typ !== undefined && { typ: options.typ }),
        ...(options.clock_tolerance_seconds !== undefined && { clockTolerance: options.clock_tolerance_seconds }),
      });
      return payload;
    } catch (error) {
      // jose checks exp last among the claims it validates (iss, aud, nbf before), so an
      // expired token's payload has passed every other check.
      if (error instanceof errors.JWTExpired && error.claim === "exp" && options.allow_expired) return error.payload;
      throw to_verify_error(error);
    }
  }

  /** The JWKS document (public members only) and its strong ETag; rebuilt only when keys change. */
  jwks(): { body: Uint8Array; etag: string } {
    const now = this.now();
    if (now >= this.view.jwks.valid_until) this.view = { ...this.view, jwks: build_jwks(this.view.rows, now) };
    return { body: this.view.jwks.body, etag: this.view.jwks.etag };
  }

  /**
   * Rotates the key of `alg` (every configured alg when omitted): the published next key (or a
   * fresh one) signs from now on, the previous active key is retired. Returns the new active kids.
   */
  async rotate(alg?: Alg): Promise<Map<Alg, string>> {
    const algs = alg === undefined ? this.options.algs : [alg];
    for (const a of algs) if (!this.options.algs.includes(a)) throw new KeyRingError(`Alg ${a} is not configured`);
    return this.exclusive(async () => {
      for (const a of algs) {
        const rows = await this.store.listKeys();
        const now = this.now();
        const mine = rows.filter((row): row is UsableRow => usable(row) && row.alg === a);
        const next = mine.filter((row) => row.status === "next").sort(newest_first)[0];
        const activated_at = after(rows, a, "activated_at", now);
        if (next) await this.store.updateKeyStatus(next.kid, "active", { activated_at, now });
        else await this.insert(await generate_key(a), "active", after(rows, a, "created_at", now), activated_at);
        for (const old of mine.filter((row) => row.status === "active")) await this.retire(old.kid, now);
      }
      await this.sync();
      return new Map(algs.map((a) => [a, this.active_kid(a)] as const));
    });
  }

  /** Re-reads the keys when another instance changed them (or a retired key expired). True when it did. */
  async refresh(): Promise<boolean> {
    return this.exclusive(async () => {
      const version = await this.store.keysVersion();
      if (version === this.view.version && this.now() < this.view.cleanup_at) return false;
      await this.sync();
      return true;
    });
  }

  /** Polls the store every `ms` so rotation on another instance is seen within that time. */
  start_polling(ms = 5000, on_error: (error: unknown) => void = () => {}): void {
    this.stop_polling();
    this.poller = setInterval(() => void this.refresh().catch(on_error), ms);
    this.poller.unref?.();
  }

  stop_polling(): void {
    if (this.poller !== undefined) clearInterval(this.poller);
    this.poller = undefined;
  }

  /** The algs this instance signs with (those configured), in configured order. */
  signing_algs(): Alg[] {
    return this.options.algs.filter((alg) => this.view.signers.has(alg));
  }

  /** The kid that signs `alg` now. */
  active_kid(alg: Alg): string {
    const signer = this.view.signers.get(alg);
    if (!signer) throw new KeyRingError(`No active signing key for alg ${alg}`);
    return signer.kid;
  }

  /** Every stored key, for `idp keys list`: no key material. */
  list(): KeyInfo[] {
    return this.view.all_rows.map(({ kid, alg, status, created_at, activated_at, retire_at }) => ({ kid, alg, status, created_at, activated_at, retire_at }));
  }

  // -------------------------------------------------------------------------------------------

  private default_alg(): Alg {
    return this.options.algs.includes("RS256") ? "RS256" : this.options.algs[0]!;
  }

  /** Runs `fn` after every earlier sync/rotate of this instance has finished. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Brings the store to a signing state (one active key per alg, next keys, no expired keys) and rebuilds the view. */
  private async sync(): Promise<void> {
    // Version before rows: a change in between makes the next refresh() sync again, never miss it.
    let version = await this.store.keysVersion();
    let rows = await this.store.listKeys();
    let now = this.now();
    let wrote = false;
    for (const alg of this.options.algs) {
      const mine = rows.filter((row): row is UsableRow => usable(row) && row.alg === alg);
      let promoted: string | undefined;
      if (!mine.some((row) => row.status === "active")) {
        const next = mine.filter((row) => row.status === "next").sort(newest_first)[0];
        const activated_at = after(rows, alg, "activated_at", now);
        if (next) await this.store.updateKeyStatus((promoted = next.kid), "active", { activated_at, now });
        else await this.insert(await generate_key(alg), "active", after(rows, alg, "created_at", now), activated_at);
        wrote = true;
      }
      if (this.options.publish_next !== false && !mine.some((row) => row.status === "next" && row.kid !== promoted)) {
        rows = await this.store.listKeys();
        await this.insert(await generate_key(alg), "next", after(rows, alg, "created_at", this.now()), null);
        wrote = true;
      }
    }
    if (wrote) rows = await this.store.listKeys();
    now = this.now();
    // Two instances activated (or prepared) a key for the same alg at once: every instance keeps
    // the same winner and retires the others (still published, so what they signed still verifies).
    const winners = { active: newest_keys(rows.filter(usable), "active"), next: newest_keys(rows.filter(usable), "next") };
    for (const row of rows) {
      if (row.status !== "retired" && usable(row) && winners[row.status].get(row.alg)?.kid !== row.kid) {
        await this.retire(row.kid, now);
        wrote = true;
      } else if (expired(row, now)) {
        await this.store.deleteKey(row.kid);
        wrote = true;
      }
    }
    if (wrote) {
      version = await this.store.keysVersion();
      rows = await this.store.listKeys();
    }
    this.view = await this.build_view(version, rows, now);
  }

  private async build_view(version: number, all_rows: KeyRow[], now: UnixSeconds): Promise<View> {
    const rows = all_rows.filter(usable).filter((row) => published(row, now));
    const signers = new Map<Alg, { kid: string; sign: Signer }>();
    const lead = this.options.publish_lead_seconds ?? 0;
    let sign_later_at = Number.POSITIVE_INFINITY;
    for (const [alg, newest] of newest_keys(rows)) {
      if (!this.options.algs.includes(alg)) continue;
      let row = newest;
      if (lead > 0 && newest.created_at + lead > now) {
        // Publish before sign (DESIGN §5): another instance may not have this key in its JWKS
        // yet. Sign with the key active before it while that one stays published longer than
        // what it signs now lives; a first key (nothing older) signs at once. Keys stored
        // within a second of each other (`after()` spaces their created_at) count as one.
        sign_later_at = Math.min(sign_later_at, newest.created_at + lead);
        const min_retire_at = now + this.options.retire_after_seconds + lead;
        const older = rows.filter(
          (r) => r.alg === alg && r.activated_at !== null && r.created_at < newest.created_at - 1 && r.created_at + lead <= now && (r.status === "active" || (r.retire_at ?? 0) >= min_retire_at),
        );
        row = older.sort(newest_first)[0] ?? newest;
      }
      let sign = this.signer_cache.get(row.kid);
      if (!sign) this.signer_cache.set(row.kid, (sign = await make_signer(alg, row.kid, row.private_jwk)));
      signers.set(alg, { kid: row.kid, sign });
    }
    const live = new Set(rows.map((row) => row.kid));
    for (const kid of this.signer_cache.keys()) if (!live.has(kid)) this.signer_cache.delete(kid);
    for (const kid of this.verify_cache.keys()) if (!live.has(kid)) this.verify_cache.delete(kid);
    const cleanup_at = Math.min(sign_later_at, ...all_rows.map((row) => (row.status === "retired" ? (row.retire_at ?? now) : Infinity)));
    return { version, rows, all_rows, signers, jwks: build_jwks(rows, now), cleanup_at };
  }

  private async insert(key: Awaited<ReturnType<typeof generate_key>>, status: KeyStatus, created_at: UnixSeconds, activated_at: UnixSeconds | null): Promise<void> {
    const row: NewKey = { kid: key.kid, alg: key.alg, use: "sig", private_jwk: key.private_jwk, public_jwk: key.public_jwk, status, created_at, activated_at };
    try {
      await this.store.insertKey(row);
    } catch (error) {
      // Same kid = same key (RFC 7638 thumbprint): someone stored it already; the re-read sees it.
      if (!(error instanceof StoreConflictError)) throw error;
    }
  }

  private async retire(kid: string, now: UnixSeconds): Promise<void> {
    const retire_at = now + this.options.retire_after_seconds + (this.options.retire_grace_seconds ?? 60);
    await this.store.updateKeyStatus(kid, "retired", { retire_at, now });
  }

  /** The public key for a JWS header; an unknown kid triggers one refresh (at most once a second). */
  private async verification_key(header: JWTHeaderParameters): Promise<CryptoKey> {
    if (typeof header.kid !== "string") throw new TokenVerifyError("malformed", "JWT header has no kid");
    let row = this.find_published(header.kid);
    if (!row && Date.now() - this.last_unknown_kid_refresh > 1000) {
      this.last_unknown_kid_refresh = Date.now();
      await this.refresh();
      row = this.find_published(header.kid);
    }
    if (!row) throw new TokenVerifyError("unknown_key", "JWT kid is not one of our keys");
    // RFC 8725 §3.1: the key decides the algorithm, not the token.
    if (header.alg !== row.alg) throw new TokenVerifyError("bad_signature", "JWT alg does not match its key");
    let key = this.verify_cache.get(row.kid);
    if (!key) {
      key = importJWK(row.public_jwk as Parameters<typeof importJWK>[0], row.alg) as Promise<CryptoKey>;
      this.verify_cache.set(row.kid, key);
    }
    return key;
  }

  private find_published(kid: string): UsableRow | undefined {
    const now = this.now();
    return this.view.rows.find((row) => row.kid === kid && published(row, now));
  }
}
