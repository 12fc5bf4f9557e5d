/**
 * The second sign-in step (two-step verification with TOTP, RFC 6238): after a correct password,
 * a user with an authenticator app is asked for a code (or a recovery code) before any session
 * starts.
 *
 * The password step is recorded in an interaction row (`params.second_factor`), bound to the
 * browser like every interaction:
 * - for a sign-in to an application, in that application's interaction;
 * - for the account page's own sign-in, in an interaction of its own (`params.account: true`).
 * Both are completed at /interaction/:id/two-factor.
 */
import { needs_second_factor, requires_passkey, requires_two_factors } from "./methods.ts";
import { record_event } from "../audit.ts";
import { cookie_options, interaction_cookie_name, read_cookie, type CookieReader, type CookieToSet } from "../browser/cookies.ts";
import { constant_time_equal, random_token, sha256 } from "../crypto/secrets.ts";
import { PageError, Throttled } from "../errors.ts";
import { csrf_token, expired_interaction, load_interaction, type Interaction } from "../authorize/interactions.ts";
import { clear, COUNTERS, reserve } from "../limits/counters.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../limits/login.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow, JsonObject, UserRow } from "../../store/types.ts";
import { use_recovery_code, verify_totp } from "./totp.ts";

/**
 * What the interaction keeps between the password and the code. `enrol`: the user has no second
 * factor yet but must have one (IDP_REQUIRE_2FA, the client's require_2fa): they add one now.
 */
export type PendingSecondFactor = {
  user_id: string;
  password_at: number;
  enrol?: boolean;
  /**
   * Set when the user just added an authenticator app here (its code proved it): the sign-in
   * completes with these methods once the recovery codes were shown (two_factor.ts `continue`).
   */
  verified_amr?: string[];
  /**
   * The first step's methods when it was not a password: a sign-in through an upstream identity
   * provider (["fed", …]); the second step's methods replace "pwd" with these (with_first_step).
   */
  first_amr?: string[];
};

/** A password step waiting for its code, loaded for the browser that started it. */
export type Pending = {
  id: string;
  /** The form token of the two-factor page. */
  csrf: string;
  /** Null when no password step is waiting (or the user no longer has a second factor, and need not add one). */
  user: UserRow | null;
  /** What the user can use: an authenticator app, passkeys (none of either: `enrol`). */
  methods: SecondFactors;
  /** The user has no second factor and must add one before the sign-in goes on. */
  enrol: boolean;
  /** The second step already done by adding an authenticator app (PendingSecondFactor.verified_amr). */
  verified_amr: string[] | null;
  /** The application's interaction; null for the account page's own sign-in. */
  interaction: Interaction | null;
  /** PendingSecondFactor.first_amr: null after a password. */
  first_amr: string[] | null;
};

/** Whether the user has an authenticator app enrolled. */
export function has_totp(user: UserRow): boolean {
  return user.totp_enabled_at !== null && user.totp_secret !== null;
}

export type SecondFactors = { totp: boolean; passkeys: number };

/** The second factors a user has (passkeys only count while they are on). */
export async function second_factors(idp: Provider, user: UserRow): Promise<SecondFactors> {
  return { totp: has_totp(user), passkeys: idp.config.passkeys ? await idp.store.count_passkeys_for_user(user.id) : 0 };
}

export function has_any(methods: SecondFactors): boolean {
  return methods.totp || methods.passkeys > 0;
}

/**
 * Must this sign-in use a second factor even when the user has none yet (then they add one)?
 * IDP_REQUIRE_2FA=all, IDP_REQUIRE_2FA=group:NAME for the members of that group (names compare
 * without case, as groups do), or the client's operator-set `require_2fa` metadata.
 */
export async function second_factor_required(idp: Provider, client: ClientRow | null, user: UserRow): Promise<boolean> {
  const rule = idp.config.require_2fa;
  if (rule === "all" || client?.metadata.require_2fa === true) return true;
  if (!rule.startsWith("group:")) return false;
  const group = rule.slice("group:".length).toLowerCase();
  return (await idp.store.list_user_groups(user.id)).some((name) => name.toLowerCase() === group);
}

export function two_factor_url(idp: Provider, id: string): string {
  return `${idp.config.issuer}/interaction/${encodeURIComponent(id)}/two-factor`;
}

/** Records the password step in an application's interaction; returns the two-factor page. */
export async function begin_for_interaction(idp: Provider, interaction_id: string, user: UserRow, enrol = false, first_amr: string[] | null = null): Promise<string> {
  const row = await idp.store.get_interaction(interaction_id);
  if (row === null) throw expired_interaction();
  const second_factor: PendingSecondFactor = { user_id: user.id, password_at: idp.now(), ...(enrol ? { enrol } : {}), ...(first_amr === null ? {} : { first_amr }) };
  await idp.store.update_interaction(interaction_id, { params: { ...row.params, second_factor } as unknown as JsonObject });
  return two_factor_url(idp, interaction_id);
}

/**
 * After a correct password at an application's sign-in: the two-factor page when the user has an
 * authenticator app or a passkey, or must add one (second_factor_required); null when the password
 * is enough. A request that requires two factors (methods.ts) from a user without any, or a passkey
 * (acr phr) from a user without one, stops here, with a page that says what to do.
 */
export async function after_password(idp: Provider, interaction: Interaction, user: UserRow): Promise<string | null> {
  return after_first_step(idp, interaction, user, null);
}

/**
 * After a sign-in through an upstream identity provider (`amr` ["fed", …]): the same second step
 * as after a password, unless the upstream asserted a multi-factor sign-in the operator trusts
 * (`upstream_mfa`, federation/profile.ts upstream_methods) and that meets what the request asks (acr_values:
 * a passkey here is still asked for `phr`). Null: the upstream's sign-in is enough. For the
 * account page's own sign-in (no interaction): the step of begin_for_account, or null.
 */
export async function after_upstream(
  idp: Provider,
  interaction: Interaction | null,
  user: UserRow,
  amr: string[],
  upstream_mfa: boolean,
  cookies: CookieReader,
): Promise<{ url: string; cookie: CookieToSet | null } | null> {
  if (upstream_mfa && (interaction === null || !needs_second_factor(interaction.request.acr_values, amr))) return null;
  if (interaction !== null) {
    const url = await after_first_step(idp, interaction, user, amr);
    return url === null ? null : { url, cookie: null };
  }
  const methods = await second_factors(idp, user);
  if (has_any(methods)) return begin_for_account(idp, user, cookies, false, amr);
  if (await second_factor_required(idp, null, user)) return begin_for_account(idp, user, cookies, true, amr);
  return null;
}

async function after_first_step(idp: Provider, interaction: Interaction, user: UserRow, first_amr: string[] | null): Promise<string | null> {
  const methods = await second_factors(idp, user);
  const acr_values = interaction.request.acr_values;
  if (requires_passkey(acr_values) && methods.passkeys === 0) {
    throw new PageError(
      "This application requires a passkey",
      idp.config.passkeys
        ? `Your account does not have one yet. Add one on your account page (${idp.config.issuer}/account), then go back to the application and sign in again.`
        : "Passkeys are not available on this sign-in service. Ask the application's administrator.",
      "access_denied",
    );
  }
  if (has_any(methods)) return begin_for_interaction(idp, interaction.id, user, false, first_amr);
  const client = await idp.store.get_client(interaction.request.client_id);
  if (await second_factor_required(idp, client, user)) return begin_for_interaction(idp, interaction.id, user, true, first_amr);
  if (requires_two_factors(acr_values)) {
    throw new PageError(
      "This application requires two-step verification",
      `Your account does not have it yet. Set it up on your account page (${idp.config.issuer}/account), then go back to the application and sign in again.`,
      "access_denied",
    );
  }
  return null;
}

/** Starts the code step of the account page's own sign-in. */
export async function begin_for_account(
  idp: Provider,
  user: UserRow,
  cookies: CookieReader,
  enrol = false,
  first_amr: string[] | null = null,
): Promise<{ url: string; cookie: CookieToSet }> {
  const binding = read_cookie(cookies, interaction_cookie_name(idp)) ?? random_token(32);
  const id = random_token(32);
  const now = idp.now();
  const ttl = idp.config.tokens.interaction_ttl;
  const second_factor: PendingSecondFactor = { user_id: user.id, password_at: now, ...(enrol ? { enrol } : {}), ...(first_amr === null ? {} : { first_amr }) };
  await idp.store.create_interaction({
    id,
    params: { account: true, binding_hash: sha256(binding), second_factor } as unknown as JsonObject,
    created_at: now,
    expires_at: now + ttl,
  });
  return { url: two_factor_url(idp, id), cookie: { name: interaction_cookie_name(idp), value: binding, options: cookie_options(idp, ttl) } };
}

/** The code step of interaction `id` in this browser (user null when no password step waits). */
export async function load_pending(idp: Provider, id: string, cookies: CookieReader): Promise<Pending> {
  const row = await idp.store.get_interaction(id);
  if (row === null || row.expires_at <= idp.now()) throw expired_interaction();
  const params = row.params as { account?: boolean; binding_hash?: string; second_factor?: PendingSecondFactor };
  let interaction: Interaction | null = null;
  let csrf: string;
  if (params.account === true) {
    const binding = read_cookie(cookies, interaction_cookie_name(idp));
    if (binding === null || !constant_time_equal(sha256(binding), params.binding_hash ?? "")) throw expired_interaction();
    csrf = csrf_token(binding, id);
  } else {
    interaction = await load_interaction(idp, id, cookies);
    if (interaction === null) throw expired_interaction();
    csrf = interaction.csrf;
  }
  const user = params.second_factor === undefined ? null : await idp.store.get_user_by_id(params.second_factor.user_id);
  const methods = user === null ? { totp: false, passkeys: 0 } : await second_factors(idp, user);
  const enrol = !has_any(methods) && params.second_factor?.enrol === true;
  const verified_amr = params.second_factor?.verified_amr ?? null;
  return {
    id,
    csrf,
    user: user !== null && (has_any(methods) || enrol) ? user : null,
    methods,
    enrol,
    verified_amr,
    interaction,
    first_amr: params.second_factor?.first_amr ?? null,
  };
}

/**
 * The session's methods once the second step is done: its own methods after a password, or with
 * "pwd" replaced by the first step's methods after an upstream's sign-in (RFC 8176 §2: "fed"
 * and a local "otp" or passkey; two factors, so "mfa").
 */
export function with_first_step(pending: Pick<Pending, "first_amr">, amr: string[]): string[] {
  if (pending.first_amr === null) return amr;
  return [...new Set([...pending.first_amr, ...amr.filter((method) => method !== "pwd"), "mfa"])];
}

/** The methods recorded by record_enrolment, once: they are cleared as they are taken. */
export async function take_enrolment(idp: Provider, id: string): Promise<string[] | null> {
  const row = await idp.store.get_interaction(id);
  const params = (row?.params ?? {}) as { second_factor?: PendingSecondFactor };
  const amr = params.second_factor?.verified_amr;
  if (row === null || params.second_factor === undefined || amr === undefined) return null;
  const { verified_amr: _taken, ...second_factor } = params.second_factor;
  await idp.store.update_interaction(id, { params: { ...row.params, second_factor } as unknown as JsonObject });
  return amr;
}

/** Records that the user added an authenticator app at this sign-in and proved it with a code. */
export async function record_enrolment(idp: Provider, id: string, amr: string[]): Promise<void> {
  const row = await idp.store.get_interaction(id);
  if (row === null) throw expired_interaction();
  const params = row.params as { second_factor?: PendingSecondFactor };
  if (params.second_factor === undefined) throw expired_interaction();
  const second_factor: PendingSecondFactor = { ...params.second_factor, verified_amr: amr };
  await idp.store.update_interaction(id, { params: { ...row.params, second_factor } as unknown as JsonObject });
}

export type CodeInput = { code?: string | undefined; recovery_code?: string | undefined };

/**
 * Checks a code from the authenticator app or a recovery code, throttled like passwords (the
 * login throttle's address limits, plus a per-user limit). Records the audit event. Returns null
 * on success, or the message to show.
 */
export async function check_second_factor(idp: Provider, user: UserRow, input: CodeInput, ip: string, client_id: string | null): Promise<string | null> {
  // Reserve before verifying (limits/login.ts): concurrent codes cannot all pass the check
  // before one is counted; at most `second_factor_failures_per_user` codes are checked per window,
  // from any address (RFC 4226 §7.3, which RFC 6238 builds on: a short code needs throttling
  // against brute force; an attacker who has the password cannot try 10^6 codes).
  const attempt = await reserve_login_attempt(idp, ip, user.username);
  const now = idp.now();
  const code = await reserve(idp, COUNTERS.second_factor_failures_per_user, { user_id: user.id }, now);
  if (!code.allowed) {
    await release_login_attempt(idp, attempt);
    throw new Throttled("Too many wrong codes. Wait a few minutes and try again.", code.reset_at - now);
  }
  const recovery = (input.recovery_code ?? "").trim();
  const method = recovery !== "" ? "recovery_code" : "totp";
  let failure: string | null = null;
  if (method === "recovery_code") {
    if (!(await use_recovery_code(idp, user.id, recovery))) failure = "That recovery code is not valid or was already used.";
  } else {
    const result = await verify_totp(idp, user.id, user.totp_secret ?? "", input.code ?? "");
    if (result === "wrong") failure = "That code is not right. Check the time on your phone and enter the newest code.";
    if (result === "reused") failure = "That code was already used. Wait for the next code in your app.";
  }
  const audit = { type: "two_factor", user_id: user.id, client_id, ip, at: now, details: { method } };
  if (failure !== null) {
    // Both reservations stay counted: they are this failure.
    await login_attempt_failed(idp, attempt);
    await record_event(idp, { ...audit, outcome: "failure" });
    return failure;
  }
  await release_login_attempt(idp, attempt);
  await clear(idp, COUNTERS.second_factor_failures_per_user, { user_id: user.id });
  await record_event(idp, { ...audit, outcome: "success" });
  return null;
}
