/**
 * Passkeys (WebAuthn Level 3) through @simplewebauthn/server: the options of the two ceremonies
 * (registration §7.1, authentication §7.2) and the checks of their results. No HTTP here: the
 * endpoints hand in the browser's JSON and get a result back.
 *
 * - Relying party: its id is the issuer's host name, and the origin the issuer's origin (§5.1.4.1,
 *   §13.4.9: a credential only ever answers for this origin, which makes it phishing-resistant).
 *   WebAuthn needs a secure context: an https issuer, or http://localhost in development.
 * - Challenges: 32 random bytes (§13.4.3), stored as SHA-256 with what the ceremony is for
 *   (`purpose`) and what it is bound to (a session, an interaction in one browser), for five
 *   minutes, taken atomically once (store.consume_webauthn_challenge): a replayed response finds
 *   no challenge.
 * - User verification is required to register and to sign in without a password (§6.2.3); as a
 *   second factor after a password, presence is enough (the password is the other factor), and
 *   so it is for a password reset (the link from the mailbox is the other).
 * - Signature counter (§6.1.1): the stored counter must grow, unless the authenticator keeps none
 *   (always 0); one that goes backwards may be a cloned key: refused and audited.
 * - Backup flags BE/BS (§6.3.3) are stored: a backup-eligible passkey is synced (amr "swk").
 */
import { randomBytes } from "node:crypto";
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { record_event } from "../../audit.ts";
import { constant_time_equal, sha256 } from "../../crypto/secrets.ts";
import type { Provider } from "../../provider.ts";
import { passkey_amr } from "../methods.ts";
import { StoreConflictError, type PasskeyRow, type UserRow } from "../../../store/types.ts";

/**
 * The library, loaded with the first ceremony (about 20 MiB a process that never sees a passkey
 * does not pay), after the Reflect metadata polyfill it needs (reflect_polyfill.ts).
 */
let library: Promise<typeof import("@simplewebauthn/server")> | undefined;
function webauthn(): Promise<typeof import("@simplewebauthn/server")> {
  return (library ??= import("./reflect_polyfill.ts").then(() => import("@simplewebauthn/server")));
}

/** What a challenge may be used for; `password_reset`: the second factor of a reset (accounts/password_reset.ts). */
export type CeremonyPurpose = "register" | "login" | "second_factor" | "password_reset";
/** The ceremonies that check a passkey the user has. */
export type AssertionPurpose = Exclude<CeremonyPurpose, "register">;

/** Seconds a ceremony may take (the browser's timeout too). */
export const CHALLENGE_TTL_SECONDS = 300;
/** Longest name a user may give a passkey. */
export const MAX_PASSKEY_NAME = 64;

export type RelyingParty = { id: string; origin: string; name: string };

export function relying_party(idp: Provider): RelyingParty {
  const url = new URL(idp.config.issuer);
  return { id: url.hostname, origin: url.origin, name: url.host };
}

/** Why a ceremony failed: `reason` goes to the audit log, `message` to the user. */
export type CeremonyFailure = { ok: false; reason: string; message: string; user_id: string | null };

const TRY_AGAIN = "The passkey could not be checked. Try again.";

function failure(reason: string, message: string = TRY_AGAIN, user_id: string | null = null): CeremonyFailure {
  return { ok: false, reason, message, user_id };
}

function binding_hash(purpose: CeremonyPurpose, binding: string): string {
  return sha256(`webauthn:${purpose}:${binding}`);
}

async function store_challenge(idp: Provider, challenge: string, purpose: CeremonyPurpose, binding: string, user_id: string | null): Promise<void> {
  const now = idp.now();
  await idp.store.create_webauthn_challenge({
    challenge_hash: sha256(challenge),
    purpose,
    binding_hash: binding_hash(purpose, binding),
    user_id,
    created_at: now,
    expires_at: now + CHALLENGE_TTL_SECONDS,
  });
}

/** The browser's JSON, shaped enough to read its client data (the library checks the rest). */
function client_data(response: unknown): { id: string; challenge: string; user_handle: string | null } | null {
  if (response === null || typeof response !== "object") return null;
  const r = response as { id?: unknown; response?: { clientDataJSON?: unknown; userHandle?: unknown } };
  if (typeof r.id !== "string" || r.id === "" || r.id.length > 1024 || typeof r.response?.clientDataJSON !== "string") return null;
  try {
    const data = JSON.parse(Buffer.from(r.response.clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    if (typeof data.challenge !== "string" || data.challenge === "") return null;
    const handle = typeof r.response.userHandle === "string" && r.response.userHandle !== "" ? r.response.userHandle : null;
    return { id: r.id, challenge: data.challenge, user_handle: handle };
  } catch {
    return null;
  }
}

/** Parses the JSON text a form carried; null when it is not JSON. */
export function parse_response(text: string | undefined): unknown {
  if (text === undefined || text === "" || text.length > 64 * 1024) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Takes the response's challenge once: it must exist, be unexpired, be for `purpose`, bound to
 * `binding` and (when given) to `user_id`. Null otherwise (replayed, expired, another browser's).
 */
async function take_challenge(idp: Provider, challenge: string, purpose: CeremonyPurpose, binding: string, user_id: string | null): Promise<boolean> {
  const row = await idp.store.consume_webauthn_challenge(sha256(challenge), idp.now());
  if (row === null || row.purpose !== purpose || !constant_time_equal(row.binding_hash, binding_hash(purpose, binding))) return false;
  return user_id === null || row.user_id === user_id;
}

/** The user handle of a user's credentials (§14.6.1: no personal data): their id. */
function user_handle(user: UserRow): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(user.id, "utf8"));
}

function descriptor(passkey: PasskeyRow): { id: string; transports?: string[] } {
  return passkey.transports.length === 0 ? { id: passkey.credential_id } : { id: passkey.credential_id, transports: passkey.transports };
}

/** A default name for a new passkey: "Passkey 2" when the user has one already. */
export function default_passkey_name(count: number): string {
  return count === 0 ? "Passkey" : `Passkey ${count + 1}`;
}

/** Trims and checks a passkey name; the problem in words, or null. */
export function passkey_name_problem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === "") return "Give the passkey a name.";
  if (trimmed.length > MAX_PASSKEY_NAME || /[\p{Cc}]/u.test(trimmed)) return `The name must be at most ${MAX_PASSKEY_NAME} characters, without control characters.`;
  return null;
}

/** §7.1: options for adding a passkey to `user`, bound to `binding` (the account session). */
export async function registration_options(idp: Provider, user: UserRow, binding: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relying_party(idp);
  const existing = await idp.store.list_passkeys_for_user(user.id);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userID: user_handle(user),
    userDisplayName: user.name ?? user.username,
    challenge: new Uint8Array(randomBytes(32)),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    // No attestation: which authenticator model it is does not change what we accept (§5.4.7).
    attestationType: "none",
    // §5.4.3: the same authenticator is not registered twice.
    excludeCredentials: existing.map(descriptor),
    // A discoverable credential (§6.2.2) with user verification: it signs in without a username or password.
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
  });
  await store_challenge(idp, options.challenge, "register", binding, user.id);
  return options;
}

/** §7.1 steps 5–27: checks a new credential of `user` and stores it under `name`. */
export async function register_passkey(
  idp: Provider,
  user: UserRow,
  binding: string,
  response: unknown,
  name: string,
): Promise<{ ok: true; passkey: PasskeyRow } | CeremonyFailure> {
  const data = client_data(response);
  if (data === null) return failure("malformed", TRY_AGAIN, user.id);
  if (!(await take_challenge(idp, data.challenge, "register", binding, user.id))) {
    return failure("challenge", "This passkey request has expired or was already used. Try again.", user.id);
  }
  const rp = relying_party(idp);
  let verified;
  try {
    verified = await (await webauthn()).verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: data.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch {
    return failure("invalid", TRY_AGAIN, user.id);
  }
  if (!verified.verified) return failure("invalid", TRY_AGAIN, user.id);
  const info = verified.registrationInfo;
  try {
    const passkey = await idp.store.create_passkey({
      credential_id: info.credential.id,
      user_id: user.id,
      public_key: Buffer.from(info.credential.publicKey).toString("base64url"),
      counter: info.credential.counter,
      transports: (info.credential.transports ?? []).filter((t) => typeof t === "string").slice(0, 8),
      backup_eligible: info.credentialDeviceType === "multiDevice",
      backup_state: info.credentialBackedUp,
      aaguid: info.aaguid,
      name: name.trim(),
      created_at: idp.now(),
    });
    return { ok: true, passkey };
  } catch (error) {
    if (error instanceof StoreConflictError) return failure("duplicate", "This passkey is already registered.", user.id);
    throw error;
  }
}

/**
 * §7.2: options for signing in. With `user` (a second factor after the password, or of a password
 * reset) the user's
 * passkeys are listed; without (a sign-in without username) the browser offers the
 * discoverable credentials it has for this site, in a list or in the username field's autofill.
 */
export async function authentication_options(idp: Provider, purpose: AssertionPurpose, binding: string, user: UserRow | null): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const rp = relying_party(idp);
  const allow = user === null ? [] : (await idp.store.list_passkeys_for_user(user.id)).map(descriptor);
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: allow,
    challenge: new Uint8Array(randomBytes(32)),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    userVerification: purpose === "login" ? "required" : "preferred",
  });
  await store_challenge(idp, options.challenge, purpose, binding, user?.id ?? null);
  return options;
}

export type Assertion = { ok: true; user: UserRow; passkey: PasskeyRow; amr: string[] };

/**
 * §7.2 steps 5–24: checks a sign-in response. For a second factor, `user` is the user who gave
 * the password, and the passkey must be theirs. Records failures in the audit log.
 */
export async function verify_assertion(
  idp: Provider,
  purpose: AssertionPurpose,
  binding: string,
  response: unknown,
  user: UserRow | null,
  audit: { ip: string; client_id: string | null },
): Promise<Assertion | CeremonyFailure> {
  const result = await check_assertion(idp, purpose, binding, response, user);
  if (!result.ok) {
    await record_event(idp, {
      type: result.reason === "counter" ? "passkey_counter_regressed" : purpose === "login" ? "login" : "two_factor",
      outcome: "failure",
      user_id: result.user_id,
      client_id: audit.client_id,
      ip: audit.ip,
      details: { method: "passkey", reason: result.reason },
    });
  }
  return result;
}

async function check_assertion(idp: Provider, purpose: AssertionPurpose, binding: string, response: unknown, user: UserRow | null): Promise<Assertion | CeremonyFailure> {
  const data = client_data(response);
  if (data === null) return failure("malformed");
  if (!(await take_challenge(idp, data.challenge, purpose, binding, user?.id ?? null))) {
    return failure("challenge", "This passkey request has expired or was already used. Try again.", user?.id ?? null);
  }
  const passkey = await idp.store.get_passkey_by_credential_id(data.id);
  const unknown = "This passkey is not registered for an account here (it may have been removed). Sign in another way.";
  if (passkey === null) return failure("unknown_credential", unknown, user?.id ?? null);
  if (user !== null && passkey.user_id !== user.id) return failure("other_user", unknown, user.id);
  // §7.2 step 6: the user handle, when the authenticator returns one, names the passkey's owner.
  if (data.user_handle !== null && Buffer.from(data.user_handle, "base64url").toString("utf8") !== passkey.user_id) {
    return failure("user_handle", TRY_AGAIN, passkey.user_id);
  }
  const rp = relying_party(idp);
  let verified;
  try {
    verified = await (await webauthn()).verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: data.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      // The counter is checked below, atomically with its update (store.use_passkey).
      credential: { id: passkey.credential_id, publicKey: new Uint8Array(Buffer.from(passkey.public_key, "base64url")), counter: 0, transports: passkey.transports },
      requireUserVerification: purpose === "login",
    });
  } catch {
    return failure("invalid", TRY_AGAIN, passkey.user_id);
  }
  if (!verified.verified) return failure("invalid", TRY_AGAIN, passkey.user_id);
  const info = verified.authenticationInfo;
  const now = idp.now();
  if (!(await idp.store.use_passkey(passkey.id, info.newCounter, info.credentialBackedUp, now))) {
    return failure(
      "counter",
      "This passkey was refused: its signature counter went backwards, which can mean it was copied. Use another way to sign in and check your passkeys on your account page.",
      passkey.user_id,
    );
  }
  const owner = user ?? (await idp.store.get_user_by_id(passkey.user_id));
  if (owner === null || owner.status === "disabled" || owner.status === "invited") return failure("user_unavailable", unknown, passkey.user_id);
  const used = { ...passkey, counter: info.newCounter, backup_state: info.credentialBackedUp, last_used_at: now };
  return { ok: true, user: owner, passkey: used, amr: passkey_amr(passkey.backup_eligible, purpose !== "login") };
}
