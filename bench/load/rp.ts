/**
 * The relying party's ID Token check, as an RP library does it: jose `jwtVerify` against a
 * cached JWKS, fetched again (once, shared by concurrent callers) when a token names a kid the
 * cache does not have. The JWKS comes from any of the instances, so with several instances a
 * token signed by one is checked against the keys another publishes.
 */
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet } from "jose";

export type RpStats = {
  verified: number;
  failures: { kid: string; error: string }[];
  jwks_fetches: number;
  refetches_for_unknown_kid: number;
  kids: Set<string>;
  /** verify_fresh: tokens checked against a JWKS fetched just after they arrived, and failures. */
  fresh: { verified: number; failures: { kid: string; error: string }[] };
};

export class RelyingParty {
  readonly stats: RpStats = { verified: 0, failures: [], jwks_fetches: 0, refetches_for_unknown_kid: 0, kids: new Set(), fresh: { verified: 0, failures: [] } };
  private keys: ReturnType<typeof createLocalJWKSet> | undefined;
  private fetching: Promise<void> | undefined;
  private turn = 0;

  constructor(
    private readonly bases: string[],
    private readonly issuer: string,
    private readonly client_id: string,
  ) {}

  /** Fetches the JWKS from the next instance (concurrent callers share one fetch). */
  refresh(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const base = this.bases[this.turn++ % this.bases.length]!;
        const response = await fetch(`${base}/.well-known/jwks.json`, { signal: AbortSignal.timeout(10_000) });
        if (response.status !== 200) throw new Error(`JWKS answered ${response.status}`);
        this.keys = createLocalJWKSet((await response.json()) as JSONWebKeySet);
        this.stats.jwks_fetches++;
      } finally {
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }

  /** Verifies signature, iss, aud, exp and nonce; throws (and records) when it does not. */
  async verify(id_token: string, nonce: string): Promise<void> {
    const kid = String(JSON.parse(Buffer.from(id_token.split(".")[0]!, "base64url").toString()).kid);
    this.stats.kids.add(kid);
    try {
      if (!this.keys) await this.refresh();
      let payload;
      try {
        ({ payload } = await jwtVerify(id_token, this.keys!, { issuer: this.issuer, audience: this.client_id }));
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
        // Unknown kid: the keys rotated since the cache was filled. Fetch again, once.
        this.stats.refetches_for_unknown_kid++;
        await this.refresh();
        ({ payload } = await jwtVerify(id_token, this.keys!, { issuer: this.issuer, audience: this.client_id }));
      }
      if (payload.nonce !== nonce) throw new Error("nonce mismatch");
      this.stats.verified++;
    } catch (error) {
      this.stats.failures.push({ kid, error: `${(error as Error).name}: ${(error as Error).message}` });
      throw error;
    }
  }

  /**
   * The strictest reading: the JWKS fetched from `base` just after the token arrived, no cache.
   * With several instances, `base` is another instance than the one that signed.
   */
  async verify_fresh(id_token: string, nonce: string, base: string): Promise<void> {
    const kid = String(JSON.parse(Buffer.from(id_token.split(".")[0]!, "base64url").toString()).kid);
    try {
      const response = await fetch(`${base}/.well-known/jwks.json`, { signal: AbortSignal.timeout(10_000) });
      const { payload } = await jwtVerify(id_token, createLocalJWKSet((await response.json()) as JSONWebKeySet), { issuer: this.issuer, audience: this.client_id });
      if (payload.nonce !== nonce) throw new Error("nonce mismatch");
      this.stats.fresh.verified++;
    } catch (error) {
      this.stats.fresh.failures.push({ kid, error: `${(error as Error).name}: ${(error as Error).message}` });
      throw error;
    }
  }
}
