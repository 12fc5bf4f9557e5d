/**
 * The bind operation (RFC 4511 §4.2) with simple authentication (RFC 4513 §5.1):
 *
 * - anonymous (no name, no password): refused, inappropriateAuthentication (§5.1.1 lets a
 *   server refuse it); the root DSE stays readable without a bind;
 * - a name without a password ("unauthenticated", §5.1.2): refused, unwillingToPerform, so an
 *   application that takes a successful bind as a checked password is never fooled;
 * - a password over a connection without TLS from another host: confidentialityRequired
 *   (§5.1.2, §6.3.3), before any password work;
 * - a user (`uid=<username>,ou=people,<base>`): the sign-in page's own check
 *   (signin/password.ts `check_credentials`: its throttles, its argon2id work for unknown
 *   names, its audit), then what a sign-in page would also refuse: an account that is not
 *   active, and under IDP_LDAP_USER_BINDS a user whose sign-in needs a second factor;
 * - a service account (`cn=<name>,ou=services,<base>`): its 256-bit password by SHA-256 and a
 *   constant-time compare, counted against the address (limits/login.ts reserve_address_attempt);
 * - any other name: a wrong password for an account that does not exist, counted the same way.
 *
 * Every bind that names an account is audited (`ldap_bind`, or the sign-in's `login` failure
 * with `details.via` "ldap"); a throttled one only once, as `login_locked`.
 */
import { record_event } from "../audit.ts";
import { sign_in_refusal } from "../accounts/account_status.ts";
import { constant_time_equal, sha256 } from "../crypto/secrets.ts";
import { Throttled } from "../errors.ts";
import { address_attempt_failed, clear_login_failures, release_address_attempt, reserve_address_attempt } from "../limits/login.ts";
import type { Provider } from "../provider.ts";
import { check_credentials } from "../signin/password.ts";
import { has_any, second_factor_required, second_factors } from "../signin/second_factor.ts";
import type { Viewer } from "./directory.ts";
import { dn_text_key } from "./dn.ts";
import { RESULT, result, type LdapResult, type Request } from "./protocol.ts";
import { locate, service_dn, user_dn, type Tree } from "./tree.ts";

export type BindRequest = Extract<Request, { op: "bind" }>;

/** What the rules know of the connection a bind came on. */
export type BindConnection = { ip: string; secure: boolean; loopback: boolean };

export type BindOutcome = { result: LdapResult; viewer: Viewer };

const ANONYMOUS: Viewer = { kind: "anonymous" };
/** The hash a missing service account is compared with, so both answers take the same work. */
const NO_SECRET = sha256("no such service account");
const WRONG = "invalid credentials";

const refused = (code: number, message: string): BindOutcome => ({ result: result(code, message), viewer: ANONYMOUS });

export async function bind(idp: Provider, tree: Tree, request: BindRequest, connection: BindConnection): Promise<BindOutcome> {
  // §4.2: only version 3 is served.
  if (request.version !== 3) return refused(RESULT.protocol_error, "only LDAP version 3 is supported");
  if (request.auth.kind !== "simple") return refused(RESULT.auth_method_not_supported, "only simple binds are supported (RFC 4513 §5.1)");
  const { name } = request;
  const password = request.auth.password;
  if (name === "" && password === "") return refused(RESULT.inappropriate_authentication, "anonymous binds are refused: bind as a service account");
  if (password === "") return refused(RESULT.unwilling_to_perform, "unauthenticated binds (a name without a password) are refused (RFC 4513 §5.1.2)");
  if (!connection.secure && !connection.loopback) return refused(RESULT.confidentiality_required, "start TLS first (StartTLS or LDAPS): passwords are not accepted in clear");
  const place = locate(tree, name);
  if (place.kind === "invalid") return refused(RESULT.invalid_dn_syntax, "the bind name is not a distinguished name (RFC 4514)");
  try {
    if (place.kind === "user") return await user_bind(idp, tree, place.username, password, connection.ip);
    return await service_bind(idp, tree, place.kind === "service" ? place.name : null, name, password, connection.ip);
  } catch (error) {
    if (error instanceof Throttled) return refused(RESULT.unwilling_to_perform, error.message);
    throw error;
  }
}

async function user_bind(idp: Provider, tree: Tree, username: string, password: string, ip: string): Promise<BindOutcome> {
  const user = await check_credentials(idp, username, password, ip, null, { via: "ldap" });
  if (user === null) return refused(RESULT.invalid_credentials, WRONG);
  const failure = async (code: number, reason: string, message: string) => {
    await record_event(idp, { type: "ldap_bind", outcome: "failure", user_id: user.id, ip, details: { reason } });
    return refused(code, message);
  };
  // The password was right: what the sign-in page would refuse next is refused here.
  const status = sign_in_refusal(user);
  if (status !== null) return failure(RESULT.invalid_credentials, status.status, status.title);
  const policy = idp.config.ldap.user_binds;
  if (policy === "off") return failure(RESULT.inappropriate_authentication, "user_binds_off", "users do not bind here (IDP_LDAP_USER_BINDS=off)");
  if (policy === "single_factor" && (has_any(await second_factors(idp, user)) || (await second_factor_required(idp, null, user)))) {
    return failure(RESULT.inappropriate_authentication, "second_factor", "this account signs in with a second factor, which LDAP cannot ask for");
  }
  await clear_login_failures(idp, ip, user.username);
  const dn = user_dn(tree, user.username);
  await record_event(idp, { type: "ldap_bind", outcome: "success", user_id: user.id, ip, details: { kind: "user" } });
  return { result: result(RESULT.success), viewer: { kind: "user", user_id: user.id, username: user.username, dn } };
}

/** A service account's bind; `name` null for a bind name that is no account of the tree at all. */
async function service_bind(idp: Provider, tree: Tree, name: string | null, bind_name: string, password: string, ip: string): Promise<BindOutcome> {
  const attempt = await reserve_address_attempt(idp, ip);
  const account = name === null ? null : await idp.store.get_ldap_service_account(name);
  const ok = constant_time_equal(sha256(password), account?.secret_hash ?? NO_SECRET) && account !== null;
  if (!ok) {
    await address_attempt_failed(idp, ip, attempt);
    const target = account?.name ?? name ?? (dn_text_key(bind_name) ?? "").slice(0, 200);
    await record_event(idp, { type: "ldap_bind", outcome: "failure", ip, details: { reason: "wrong_credentials", ...(name === null ? { dn: target } : { service: target }) } });
    return refused(RESULT.invalid_credentials, WRONG);
  }
  await release_address_attempt(idp, attempt);
  await record_event(idp, { type: "ldap_bind", outcome: "success", ip, details: { kind: "service", service: account.name } });
  return { result: result(RESULT.success), viewer: { kind: "service", name: account.name, dn: service_dn(tree, account.name) } };
}
