/**
 * The device authorization grant (RFC 8628): a device without a browser (a TV, a CLI) asks for
 * a device_code and a user_code (§3.1, §3.2), shows the user_code and the verification URI; the
 * user opens /device on another device, enters the code, signs in and approves (§3.3); the
 * device polls /token meanwhile (§3.4, grants/device_code.ts).
 *
 * - The device_code is a 256-bit secret, stored as its SHA-256 (like a code).
 * - The user_code is 8 characters of BCDFGHJKLMNPQRSTVWXZ (§6.1: no vowels, so no words, and no
 *   digits or letters that look alike), about 34.6 bits, shown as WDJB-MJHT; entered without
 *   case, dashes or spaces. It is stored as the SHA-256 of its normalized form. Guessing is
 *   bounded by its short life (IDP_DEVICE_CODE_TTL) and a limit of failed entries per address
 *   (§5.1): `reserve_user_code_attempt`.
 * - The user's approval is always asked for, with the device's client named, even from
 *   verification_uri_complete (§5.4: a code sent by an attacker must not be approved unseen).
 */
import { acr_claim } from "../signin/methods.ts";
import { record_event } from "../audit.ts";
import { allows_grant } from "../clients/metadata.ts";
import { grant_id, random_token, secret_key, sha256 } from "../crypto/secrets.ts";
import { OAuthError, Throttled } from "../errors.ts";
import { COUNTERS, release, reserve } from "../limits/counters.ts";
import type { Authentication, AuthorizationRequest } from "./interactions.ts";
import type { Provider } from "../provider.ts";
import { attribute_scopes, load_attribute_catalog } from "../attributes/claims.ts";
import { check_scope, split_scope } from "../claims/scopes.ts";
import { StoreConflictError, type ClientRow, type DeviceAuthorizationRow } from "../../store/types.ts";

/** RFC 8628 §3.4: the grant type of the device's token request. */
export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** RFC 8628 §6.1: the example alphabet, consonants only (no words, no 0/O or 1/I). */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const USER_CODE_LENGTH = 8;

/** The verification page, below the issuer (RFC 8628 §3.2 verification_uri). */
export const DEVICE_PATH = "/device";

/** RFC 8628 §3.2: the device authorization response. */
export type DeviceAuthorizationResponse = {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
};

/** A user code drawn uniformly from the alphabet (rejection sampling: 240 is 12 × 20). */
export function new_user_code(): string {
  let code = "";
  while (code.length < USER_CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      if (byte < 240 && code.length < USER_CODE_LENGTH) code += USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length];
    }
  }
  return code;
}

/** RFC 8628 §6.1: shown in two groups of four, for reading and typing. */
export function format_user_code(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What the user typed, as stored: case, dashes and white space ignored (RFC 8628 §6.1); null when
 * it cannot be a user code at all (then nothing is looked up).
 */
export function normalize_user_code(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]+/g, "");
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const char of code) if (!USER_CODE_ALPHABET.includes(char)) return null;
  return code;
}

export function user_code_key(normalized: string): string {
  return sha256(`user_code:${normalized}`);
}

export function verification_uri(idp: Provider): string {
  return `${idp.config.issuer}${DEVICE_PATH}`;
}

/**
 * RFC 8628 §3.1-3.2: a new device authorization for an authenticated client registered for the
 * grant. The scope is checked as at /authorize; without one, the client's registered scope, else
 * openid.
 */
export async function start_device_authorization(idp: Provider, client: ClientRow, requested_scope: string | undefined): Promise<DeviceAuthorizationResponse> {
  if (!allows_grant(client, DEVICE_CODE_GRANT)) throw new OAuthError("unauthorized_client", `this client may not use the ${DEVICE_CODE_GRANT} grant`);
  const fallback = typeof client.metadata.scope === "string" ? client.metadata.scope : "openid";
  const scope = check_scope(requested_scope ?? fallback, client.metadata, attribute_scopes(await load_attribute_catalog(idp.store)));
  if (!scope.ok) throw new OAuthError("invalid_scope", scope.description);
  const scopes = allows_grant(client, "refresh_token") ? scope.scopes : scope.scopes.filter((s) => s !== "offline_access");
  if (scopes.length === 0) throw new OAuthError("invalid_scope", "offline_access alone is ignored for a client not registered for the refresh_token grant");
  const { code_ttl, interval } = idp.config.device;
  const device_code = random_token(32);
  const now = idp.now();
  // A user code is short: a draw may meet a live one (the column is unique); draw again.
  for (let attempt = 0; ; attempt++) {
    const user_code = new_user_code();
    try {
      await idp.store.insert_device_authorization({
        device_code_hash: secret_key(device_code),
        user_code_hash: user_code_key(user_code),
        client_id: client.client_id,
        scope: scopes.join(" "),
        grant_id: grant_id(),
        poll_interval: interval,
        created_at: now,
        expires_at: now + code_ttl,
      });
    } catch (error) {
      if (error instanceof StoreConflictError && attempt < 4) continue;
      throw error;
    }
    const shown = format_user_code(user_code);
    return {
      device_code,
      user_code: shown,
      verification_uri: verification_uri(idp),
      verification_uri_complete: `${verification_uri(idp)}?user_code=${encodeURIComponent(shown)}`,
      expires_in: code_ttl,
      interval,
    };
  }
}

/**
 * RFC 8628 §5.1: "the authorization server SHOULD ... rate-limit" user code entries. Each entry
 * reserves a place in its address's window first (atomic across instances, as the sign-in
 * throttle does), so no more than `user_code_attempts` codes are tried per window, however many
 * requests run at once; a code that matched gives its place back.
 */
export async function find_by_user_code(idp: Provider, input: string, ip: string): Promise<DeviceAuthorizationRow | null> {
  const now = idp.now();
  const place = await reserve(idp, COUNTERS.device_code_failures_per_ip, { ip }, now);
  if (!place.allowed) {
    throw new Throttled("Too many wrong codes were entered from this network. Wait a few minutes and try again.", Math.max(1, place.reset_at - now));
  }
  const normalized = normalize_user_code(input);
  const found = normalized === null ? null : await idp.store.find_device_authorization(user_code_key(normalized), now);
  if (found !== null && found.status === "pending") {
    await release(idp, place);
    return found;
  }
  // Recorded once per window, when the failure that fills it happens.
  if (place.count >= place.limit) await record_event(idp, { type: "device_code_throttled", outcome: "failure", ip });
  return null;
}

/**
 * The authorization request a device approval goes through the interaction pages with (sign-in,
 * two-factor, then the device's consent page): no redirect URI, nothing to send back (the device
 * polls), `device` naming the authorization.
 */
export function device_request(authorization: DeviceAuthorizationRow, user_code: string): AuthorizationRequest {
  return {
    client_id: authorization.client_id,
    redirect_uri: "",
    response_mode: "query",
    scopes: split_scope(authorization.scope),
    state: null,
    nonce: null,
    code_challenge: null,
    code_challenge_method: null,
    prompt: [],
    max_age: null,
    expected_sub: null,
    login_hint: null,
    ui_locales: [],
    claims: null,
    acr_values: [],
    dpop_jkt: null,
    device: { device_code_hash: authorization.device_code_hash, user_code: format_user_code(user_code) },
    // RFC 8707 is not part of the device flow here: its tokens are for this provider.
    resources: [],
  };
}

/** RFC 8628 §3.3: the user approved; the device's next poll redeems it (once). False: too late. */
export async function approve_device(idp: Provider, request: AuthorizationRequest, authentication: Authentication, ip: string): Promise<boolean> {
  const device = request.device;
  if (device === null) return false;
  const approval = {
    user_id: authentication.user_id,
    session_id_hash: authentication.session_id_hash,
    auth_time: authentication.auth_time,
    amr: authentication.amr,
    acr: acr_claim(request.acr_values, authentication.amr),
  };
  const done = await idp.store.decide_device_authorization(device.device_code_hash, { status: "approved", approval }, idp.now());
  if (done)
    await record_event(idp, {
      type: "device_approved",
      outcome: "success",
      user_id: authentication.user_id,
      client_id: request.client_id,
      ip,
      details: { scopes: request.scopes },
    });
  return done;
}

/** RFC 8628 §3.5 access_denied: the user refused; the device's next poll learns it. */
export async function deny_device(idp: Provider, request: AuthorizationRequest, user_id: string | null, ip: string): Promise<boolean> {
  const device = request.device;
  if (device === null) return false;
  const done = await idp.store.decide_device_authorization(device.device_code_hash, { status: "denied" }, idp.now());
  if (done) await record_event(idp, { type: "device_denied", outcome: "failure", user_id, client_id: request.client_id, ip, details: {} });
  return done;
}
