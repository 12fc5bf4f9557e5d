/**
 * DPoP (RFC 9449): proofs of possession of a client's key, and the server nonces of §8.
 *
 * A proof is a JWT the client signs for one HTTP request with the key whose public part it
 * carries in its header. The checks of §4.3, in order: one well-formed JWT, `typ` dpop+jwt, an
 * asymmetric alg we support, a public `jwk` (never a private or symmetric key) that verifies the
 * signature, `htm` and `htu` of this request (htu without query and fragment, compared after
 * RFC 3986 §6.2.2/§6.2.3 normalisation, against the URL built from the issuer and never from the
 * Host header), `iat` within the window (setting `dpop.proof_window_seconds`), a server nonce
 * when one is required (setting `dpop.require_nonce`), `ath` = base64url(SHA-256(access token))
 * at a protected resource (§4.3 step 11, §7), and a `jti` seen once: the replay cache is the
 * store's `use_jti` (namespace `dpop:<jkt>`), so it holds across instances.
 *
 * Nonces (§8, §9) are stateless and valid on every instance: a JWT `typ: dpop-nonce+jwt` signed
 * with the provider's signing keys (shared through the store), valid for `NONCE_TTL_SECONDS`,
 * re-signed by each instance every half of that.
 *
 * Nothing here knows HTTP: the endpoints pass the header, the method and the URL, and turn a
 * `DpopRefusal` into the answer of their kind (OAuthError at /token and /par, BearerError with a
 * DPoP challenge at /userinfo).
 */
import { EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, jwtVerify, type JWK } from "jose";
import { sha256 } from "../crypto/secrets.ts";
import { BearerError, OAuthError } from "../errors.ts";
import { FAPI_SIGNING_ALGS } from "../clients/fapi.ts";
import type { Provider } from "../provider.ts";

/** dpop_signing_alg_values_supported: asymmetric only (§4.2: never none or a MAC). */
export const DPOP_ALGS = ["ES256", "PS256", "RS256", "EdDSA"] as const;

/** How long a server nonce is accepted; each instance re-signs one every half of it. */
export const NONCE_TTL_SECONDS = 300;

const NONCE_TYP = "dpop-nonce+jwt";

/** A refused proof: `use_dpop_nonce` when only a (fresh) nonce is missing, with the nonce to use. */
export class DpopRefusal extends Error {
  constructor(
    readonly code: "invalid_dpop_proof" | "use_dpop_nonce",
    description: string,
    readonly nonce?: string,
  ) {
    super(description);
    this.name = "DpopRefusal";
  }
}

/** What the proof must match: the request's method and URL, and the access token it comes with. */
export type ProofTarget = { htm: string; htu: string; access_token?: string /** Fewer algs than DPOP_ALGS (FAPI 2.0 §5.4.1). */; algs?: readonly string[] };

/** A verified proof: the JWK SHA-256 thumbprint (RFC 7638) of its key (§6.1 `jkt`). */
export type VerifiedProof = { jkt: string /** The proof's alg (FAPI 2.0 §5.4.1 narrows it for FAPI clients). */; alg: string };

function refuse(description: string): never {
  throw new DpopRefusal("invalid_dpop_proof", description);
}

/** RFC 9449 §4.3 step 9: the URL without query and fragment, normalised (case of scheme and host, default port, dot segments). */
export function normalized_htu(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** base64url(SHA-256(access token)): the `ath` claim (§4.2). */
export function access_token_hash(access_token: string): string {
  return sha256(access_token);
}

type NonceCache = { value: string; refresh_at: number };
const NONCES = new WeakMap<Provider, NonceCache>();

/** The current server nonce of this instance (§8), re-signed every NONCE_TTL_SECONDS / 2. */
export async function current_nonce(idp: Provider): Promise<string> {
  const now = idp.now();
  const cached = NONCES.get(idp);
  if (cached !== undefined && cached.refresh_at > now) return cached.value;
  const value = await idp.keys.sign({ iss: idp.config.issuer, iat: now, exp: now + NONCE_TTL_SECONDS }, { typ: NONCE_TYP });
  NONCES.set(idp, { value, refresh_at: now + NONCE_TTL_SECONDS / 2 });
  return value;
}

/** Whether `nonce` is one this provider (any instance) issued and that has not expired. */
async function is_valid_nonce(idp: Provider, nonce: unknown): Promise<boolean> {
  if (typeof nonce !== "string" || nonce === "") return false;
  try {
    await idp.keys.verify(nonce, { issuer: idp.config.issuer, typ: NONCE_TYP });
    return true;
  } catch {
    return false;
  }
}

/** The nonce to send with an answer (DPoP-Nonce header): only when nonces are required. */
export async function nonce_to_send(idp: Provider): Promise<string | undefined> {
  return idp.config.dpop.require_nonce ? current_nonce(idp) : undefined;
}

const MAX_PROOF_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;

/**
 * Verifies the proof of one request (§4.3). `header` is the DPoP header as received (null when
 * absent: null is returned). DpopRefusal on any failure.
 */
export async function verify_proof(idp: Provider, header: string | null, target: ProofTarget): Promise<VerifiedProof | null> {
  if (header === null) return null;
  // §4.3 step 1: "There is not more than one DPoP HTTP request header field" (fields are joined by commas; a JWT has none).
  if (header.includes(",")) refuse("send one DPoP header");
  const proof = header.trim();
  if (proof === "" || proof.length > MAX_PROOF_LENGTH || proof.split(".").length !== 3) refuse("the DPoP proof is not a JWT");
  let jwk: JWK | undefined;
  let alg = "";
  try {
    const protected_header = decodeProtectedHeader(proof);
    jwk = protected_header.jwk;
    if (protected_header.typ !== "dpop+jwt") refuse("the DPoP proof must have typ dpop+jwt");
    const algs: readonly string[] = target.algs ?? DPOP_ALGS;
    if (typeof protected_header.alg !== "string" || !algs.includes(protected_header.alg)) {
      refuse(`the DPoP proof alg must be one of ${algs.join(", ")}${target.algs === undefined ? "" : " (FAPI 2.0 §5.4.1)"}`);
    }
    alg = protected_header.alg;
  } catch (error) {
    if (error instanceof DpopRefusal) throw error;
    refuse("the DPoP proof header cannot be read");
  }
  // §4.3 step 6: the jwk "does not contain a private key"; symmetric keys are private by nature.
  if (jwk === undefined || typeof jwk !== "object" || jwk === null) refuse("the DPoP proof must carry the public key in jwk");
  if ("d" in jwk || "p" in jwk || "q" in jwk || "k" in jwk || jwk.kty === "oct") refuse("the DPoP proof jwk must be a public key");
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, { typ: "dpop+jwt", algorithms: [...DPOP_ALGS], currentDate: new Date(idp.now() * 1000) }));
  } catch {
    refuse("the DPoP proof signature does not verify with its jwk");
  }
  const { jti, htm, htu, iat } = payload;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_LENGTH) refuse("the DPoP proof needs a jti");
  if (htm !== target.htm) refuse(`the DPoP proof htm must be ${target.htm}`);
  if (typeof htu !== "string" || normalized_htu(htu) !== normalized_htu(target.htu)) refuse(`the DPoP proof htu must be ${target.htu}`);
  const now = idp.now();
  const window = idp.config.dpop.proof_window_seconds;
  if (typeof iat !== "number" || !Number.isFinite(iat)) refuse("the DPoP proof needs an iat");
  // §11.1: an iat too far from the server's clock, either way.
  if (Math.abs(now - iat) > window) refuse("the DPoP proof iat is outside the accepted window; check the client's clock");
  if (target.access_token !== undefined) {
    // §4.3 step 11, §7: the proof names the access token it is sent with.
    if (typeof payload.ath !== "string" || payload.ath !== access_token_hash(target.access_token)) refuse("the DPoP proof ath does not match the access token");
  }
  // §8: a missing, unknown or expired nonce gets use_dpop_nonce with a fresh one.
  if (idp.config.dpop.require_nonce && !(await is_valid_nonce(idp, payload.nonce))) {
    throw new DpopRefusal("use_dpop_nonce", "the DPoP proof must carry the server nonce given in DPoP-Nonce", await current_nonce(idp));
  }
  const jkt = await calculateJwkThumbprint(jwk, "sha256");
  // §11.1: each proof once, across instances (store use_jti); kept until its iat leaves the window.
  if (!(await idp.store.use_jti(`dpop:${jkt}`, sha256(jti), iat + window + 1, now))) refuse("the DPoP proof was already used (jti replay)");
  return { jkt, alg };
}

/** The refusal as /token and /par answer it (RFC 9449 §5: 400, with the nonce when due). */
export function as_oauth_error(refusal: DpopRefusal): OAuthError {
  return new OAuthError(refusal.code, refusal.message, refusal.nonce === undefined ? {} : { dpop_nonce: refusal.nonce });
}

/** The refusal as a protected resource answers it (RFC 9449 §7.1: 401 with a DPoP challenge). */
export function as_bearer_error(refusal: DpopRefusal, realm: string): BearerError {
  return new BearerError(refusal.code, refusal.message, realm, { algs: DPOP_ALGS, ...(refusal.nonce === undefined ? {} : { nonce: refusal.nonce }) });
}

/**
 * The proof of a token request (§5): null without a DPoP header, unless the client registered
 * `dpop_bound_access_tokens` (§5.2) or runs FAPI 2.0 (`fapi`), which make one required; `algs`
 * narrows the accepted algs (a FAPI client's push to /par). OAuthError on a refused proof.
 */
export async function token_request_proof(
  idp: Provider,
  header: string | null,
  htu: string,
  bound_client: boolean,
  fapi = false,
  algs?: readonly string[],
): Promise<VerifiedProof | null> {
  try {
    // FAPI 2.0 §5.3.2.1 items 4–5: a FAPI client's tokens are always DPoP-bound, its proofs signed with PS256, ES256 or EdDSA (§5.4.1).
    const limit = fapi ? FAPI_SIGNING_ALGS : algs;
    const proof = await verify_proof(idp, header, limit === undefined ? { htm: "POST", htu } : { htm: "POST", htu, algs: limit });
    if (proof === null && fapi) refuse("this client must send a DPoP proof: its access tokens are sender-constrained (FAPI 2.0 §5.3.2.1)");
    if (proof === null && bound_client) refuse("this client must send a DPoP proof (dpop_bound_access_tokens)");
    return proof;
  } catch (error) {
    if (error instanceof DpopRefusal) throw as_oauth_error(error);
    throw error;
  }
}

/** The token_type of a token response (§5): DPoP when the access token is bound to a key. */
export function token_type(jkt: string | null | undefined): "DPoP" | "Bearer" {
  return jkt === null || jkt === undefined ? "Bearer" : "DPoP";
}

/** The DPoP challenge parameters of a protected resource's refusal (§7.1). */
export function dpop_challenge(nonce?: string): { algs: readonly string[]; nonce?: string } {
  return nonce === undefined ? { algs: DPOP_ALGS } : { algs: DPOP_ALGS, nonce };
}

/**
 * The proof of a request to a protected resource that sent `Authorization: DPoP <token>` (§7.1):
 * BearerError with a DPoP challenge when it is missing or refused.
 */
export async function resource_request_proof(idp: Provider, header: string | null, target: Required<Omit<ProofTarget, "algs">>, realm: string): Promise<VerifiedProof> {
  try {
    const proof = await verify_proof(idp, header, target);
    if (proof === null) throw new DpopRefusal("invalid_dpop_proof", "a DPoP proof is required with DPoP credentials");
    return proof;
  } catch (error) {
    if (error instanceof DpopRefusal) throw as_bearer_error(error, realm);
    throw error;
  }
}

/**
 * §7.1, §7.2: a DPoP-bound token is accepted only with a proof of its key (the DPoP scheme); a
 * bearer token only as Bearer. BearerError invalid_token with a DPoP challenge otherwise.
 */
export function check_token_binding(token_jkt: string | null, proof: VerifiedProof | null, realm: string): void {
  if (token_jkt !== null && proof === null) {
    throw new BearerError("invalid_token", "the access token is DPoP-bound: send it with the DPoP scheme and a proof", realm, dpop_challenge());
  }
  if (proof !== null && token_jkt !== proof.jkt) {
    const description = token_jkt === null ? "the access token is not DPoP-bound: send it as Bearer" : "the DPoP proof is signed by another key than the access token is bound to";
    throw new BearerError("invalid_token", description, realm, dpop_challenge());
  }
}
