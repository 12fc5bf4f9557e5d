/**
 * KeyRing: the provider's signing keys, shared by every instance through the store.
 *
 * - Keys live only in the store; each instance keeps an in-memory view: imported private keys
 *   (imported once, never per request), trusted public keys and the JWKS document.
 * - Rotation publishes before it signs: each alg keeps a `next` key in the JWKS; `rotate()`
 *   promotes it to `active`, retires the previous active key with retire_at = now +
 *   retire_after_seconds + grace (tokens it signed verify until they expire), and publishes a
 *   new `next`. Retired keys leave the JWKS at retire_at and are then deleted.
 * - With `secret_key` (IDP_SECRET_KEY) the private keys are stored sealed (sealed_keys.ts); keys
 *   stored in clear before it was set are sealed at load; a sealed key that does not open stops it.
 * - Revocation (`revoke()`, a compromised key) deletes the key from the store at once: it leaves
 *   the JWKS and is trusted no more; an active key first hands signing to the next key (or a new one).
 * - Instances notice changes through `store.keys_version()` (`refresh()`, `start_polling()`).
 * - With `rotate_after_seconds` each poll also rotates an alg whose active key has signed that
 *   long (`rotate_due()`), after reading the store, so the first instance to notice rotates and
 *   the others see its new key instead of rotating again.
 *   Concurrent starts or rotations may activate two keys for one alg; every instance then keeps
 *   the same one (`newest_first`) and retires the other, which still verifies.
 */
import { importJWK, jwtVerify, errors, type JWTPayload, type JWTHeaderParameters } from "jose";
import type { KeyRow, KeyStore, UnixSeconds } from "../../store/types.ts";
import { generate_key, type Alg } from "./algs.ts";
import { KeyRingError, TokenVerifyError, to_verify_error } from "./errors.ts";
import { after, build_jwks, newest_first, published, usable, type UsableRow } from "./published.ts";
import type { KeyRingOptions } from "./options.ts";
import { seal_plain_keys, sealing_store } from "./sealed_keys.ts";
import { insert_key, retire_key, sync_keys, type KeyCaches, type View } from "./view.ts";
import { traced } from "../ops/tracing.ts";

export type { Alg } from "./algs.ts";
export type { KeyRingOptions } from "./options.ts";

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

export class KeyRing {
  private view!: View;
  private readonly now: () => UnixSeconds;
  private readonly caches: KeyCaches = { signers: new Map(), verify: new Map() };
  private lock: Promise<unknown> = Promise.resolve();
  private poller: ReturnType<typeof setInterval> | undefined;
  private last_unknown_kid_refresh = 0;
  private readonly listeners: (() => unknown)[] = [];
  /** The store with the private keys sealed on the way in and opened on the way out (sealed_keys.ts). */
  private readonly store: KeyStore;

  private constructor(
    store: KeyStore,
    private readonly options: KeyRingOptions,
  ) {
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    if (options.algs.length === 0) throw new KeyRingError("KeyRing needs at least one alg");
    this.store = sealing_store(store, options.secret_key);
  }

  /**
   * Reads the keys from the store and creates whatever a configured alg lacks. With a secret key,
   * plain keys are sealed first; KeyRingError when a sealed key does not open (no or another key).
   */
  static async load(store: KeyStore, options: KeyRingOptions): Promise<KeyRing> {
    const ring = new KeyRing(store, options);
    await ring.exclusive(async () => {
      await seal_plain_keys(store, options.secret_key);
      await ring.sync();
    });
    return ring;
  }

  /** Compact JWS of the claims, header `{alg, kid, typ}` (typ defaults to "JWT"). */
  async sign(payload: Record<string, unknown>, options: SignOptions = {}): Promise<string> {
    const alg = options.alg ?? this.default_alg();
    const signer = this.view.signers.get(alg);
    if (!signer) throw new KeyRingError(`No active signing key for alg ${alg}`);
    const typ = options.typ ?? "JWT";
    // A span when tracing is on (ops/tracing.ts): the key's id and alg, never the claims.
    return traced("jwt.sign", { "idp.jwt.alg": alg, "idp.jwt.kid": signer.kid, "idp.jwt.typ": typ }, () => signer.sign(payload, typ));
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
        const rows = await this.store.list_keys();
        const now = this.now();
        const mine = rows.filter((row): row is UsableRow => usable(row) && row.alg === a);
        const next = mine.filter((row) => row.status === "next").sort(newest_first)[0];
        const activated_at = after(rows, a, "activated_at", now);
        if (next) await this.store.update_key_status(next.kid, "active", { activated_at, now });
        else await insert_key(this.store, await generate_key(a), "active", after(rows, a, "created_at", now), activated_at);
        for (const old of mine.filter((row) => row.status === "active")) await retire_key(this.store, this.options, old.kid, now);
      }
      await this.sync();
      return new Map(algs.map((a) => [a, this.active_kid(a)] as const));
    });
  }

  /**
   * Revokes `kid` at once (a compromised key): it is deleted from the store, so it leaves the
   * JWKS and every token it signed is refused, here now and on other instances at their next
   * poll. When it was an active key of a configured alg, the published next key (or a fresh one)
   * becomes active first, so the alg never lacks a signer. Returns the revoked key (null when
   * there is none) and the kids that now sign, per alg.
   */
  async revoke(kid: string): Promise<{ revoked: KeyInfo; active: Map<Alg, string> } | null> {
    return this.exclusive(async () => {
      const rows = await this.store.list_keys();
      const row = rows.find((r) => r.kid === kid);
      if (row === undefined) return null;
      if (row.status === "active" && usable(row) && this.options.algs.includes(row.alg)) {
        const alg = row.alg;
        const now = this.now();
        const next = rows.filter((r): r is UsableRow => usable(r) && r.alg === alg && r.status === "next").sort(newest_first)[0];
        const activated_at = after(rows, alg, "activated_at", now);
        if (next) await this.store.update_key_status(next.kid, "active", { activated_at, now });
        else await insert_key(this.store, await generate_key(alg), "active", after(rows, alg, "created_at", now), activated_at);
      }
      await this.store.delete_key(kid);
      await this.sync();
      const { alg, status, created_at, activated_at, retire_at } = row;
      return { revoked: { kid, alg, status, created_at, activated_at, retire_at }, active: new Map(this.signing_algs().map((a) => [a, this.active_kid(a)] as const)) };
    });
  }

  /** Re-reads the keys when another instance changed them (or a retired key expired). True when it did. */
  async refresh(): Promise<boolean> {
    return this.exclusive(async () => {
      const version = await this.store.keys_version();
      if (version === this.view.version && this.now() < this.view.cleanup_at) return false;
      await this.sync();
      return true;
    });
  }

  /**
   * When the key that signs `alg` now is due to hand over to the next key (its activation plus
   * `rotate_after_seconds`); null when keys rotate only when asked, or `alg` has no signer.
   */
  next_rotation(alg: Alg): UnixSeconds | null {
    const period = this.options.rotate_after_seconds ?? 0;
    const signer = this.view.signers.get(alg);
    if (period <= 0 || signer === undefined) return null;
    const row = this.view.rows.find((r) => r.kid === signer.kid);
    return (row?.activated_at ?? row?.created_at ?? this.now()) + period;
  }

  /**
   * Rotates every configured alg whose key is due (`next_rotation`), after re-reading the store
   * so a rotation another instance just made counts. Returns the algs rotated and their new kids.
   */
  async rotate_due(): Promise<Map<Alg, string>> {
    const rotated = new Map<Alg, string>();
    if ((this.options.rotate_after_seconds ?? 0) <= 0) return rotated;
    await this.refresh();
    for (const alg of this.signing_algs()) {
      const due = this.next_rotation(alg);
      if (due === null || due > this.now()) continue;
      for (const [a, kid] of await this.rotate(alg)) rotated.set(a, kid);
    }
    return rotated;
  }

  /**
   * Polls the store every `ms` so rotation on another instance is seen within that time, and
   * rotates the keys that are due (`rotate_due`), telling `on_rotated` which.
   */
  start_polling(ms = 5000, on_error: (error: unknown) => void = () => {}, on_rotated: (rotated: Map<Alg, string>) => void = () => {}): void {
    this.stop_polling();
    // rotate_due refreshes first; without a rotation period, a refresh is the whole tick.
    const tick = async () => {
      if ((this.options.rotate_after_seconds ?? 0) <= 0) return void (await this.refresh());
      const rotated = await this.rotate_due();
      if (rotated.size > 0) on_rotated(rotated);
    };
    this.poller = setInterval(() => void tick().catch(on_error), ms);
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

  /**
   * The stored keys of `alg` for XML signatures (saml/keys.ts): the one that signs now, private
   * JWK included (xml-crypto signs through node:crypto, not through the JWS signer), and the
   * keys that may sign next — the `next` keys, and an `active` key held back while other
   * instances learn of it (`publish_lead_seconds`) — which SAML metadata announces ahead.
   */
  stored_signing_keys(alg: Alg): { signer: KeyRow; upcoming: KeyRow[] } {
    const kid = this.active_kid(alg);
    const signer = this.view.rows.find((row) => row.kid === kid);
    if (signer === undefined) throw new KeyRingError(`No active signing key for alg ${alg}`);
    const upcoming = this.view.rows.filter((row) => row.alg === alg && row.kid !== kid && row.status !== "retired").sort(newest_first);
    return { signer, upcoming };
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

  /**
   * Calls `listener` after every sync (start, rotation, a change seen by polling, a retired key
   * reaching retire_at), once the new view is in place; rotate and refresh wait for it.
   */
  on_change(listener: () => unknown): void {
    this.listeners.push(listener);
  }

  /** Syncs with the store (view.ts) and swaps in the new view. */
  private async sync(): Promise<void> {
    this.view = await sync_keys(this.store, this.options, this.now, this.caches);
    for (const listener of this.listeners) await listener();
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
    let key = this.caches.verify.get(row.kid);
    if (!key) {
      key = importJWK(row.public_jwk as Parameters<typeof importJWK>[0], row.alg) as Promise<CryptoKey>;
      this.caches.verify.set(row.kid, key);
    }
    return key;
  }

  private find_published(kid: string): UsableRow | undefined {
    const now = this.now();
    return this.view.rows.find((row) => row.kid === kid && published(row, now));
  }
}
