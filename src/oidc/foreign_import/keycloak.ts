/**
 * Keycloak realm export (`kc.sh export --realm NAME`, or a realm's "Partial export" in the admin
 * console; also the `<realm>-users-<n>.json` files of `--users different_files`): its users with
 * their password credentials, its groups, and its OpenID Connect clients.
 *
 * - Users: username, email, emailVerified, firstName, lastName, enabled (false: disabled),
 *   groups (paths). The password credential (secretData {value, salt}, credentialData
 *   {hashIterations, algorithm}) becomes one stored hash (keycloak_credential_hash);
 *   realm and client roles, required actions, TOTP and other credentials are reported as ignored.
 * - Groups: the tree is flattened, each group named by its path without the leading `/`
 *   (`/engineering/backend` is `engineering/backend`), any character a group name does not take
 *   (store/group_names.ts) replaced by `-`.
 * - Clients: OpenID Connect clients with the standard flow, by their clientId; Keycloak's own
 *   (account, admin-cli, broker, ...), bearer-only, disabled and SAML clients are reported as
 *   ignored. Redirect URIs with a wildcard are dropped (we match redirect URIs exactly, RFC 9700
 *   §4.1.3); a client left with none is ignored. A confidential client keeps its secret when the
 *   export has it in clear (`kc.sh export` does; the console's partial export masks it, and a new
 *   one is made). Web origins are reported as ignored.
 */
import { add_group, add_user, empty_plan, unreadable, type ImportPlan } from "./plan.ts";

/** Keycloak's own clients in every realm: never imported. */
const BUILT_IN_CLIENTS = new Set(["account", "account-console", "admin-cli", "broker", "realm-management", "security-admin-console"]);
/** Keycloak's default realm roles: not worth reporting. */
const DEFAULT_ROLE = /^(default-roles-.*|offline_access|uma_authorization)$/;
/** The console's partial export writes this instead of a secret. */
const MASKED = /^\*+$/;

type Json = Record<string, unknown>;

function object(value: unknown): Json | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : null;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** secretData and credentialData are JSON in a string in the export; objects are taken too. */
function nested(value: unknown): Json | null {
  if (typeof value !== "string") return object(value);
  try {
    return object(JSON.parse(value));
  } catch {
    return null;
  }
}

/** The first value of a Keycloak additionalParameters entry (a list of strings). */
function parameter(parameters: Json | null, name: string): string | undefined {
  const value = parameters?.[name];
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" || typeof first === "number" ? String(first) : undefined;
}

function unpadded(base64: string): string {
  return base64.replace(/=+$/, "");
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Keycloak's stored password credential as one PHC string: pbkdf2-sha256 and pbkdf2-sha512 as
 * `$pbkdf2-sha256$i=N$salt$hash` (the derived key is as long as the stored value: 512 bits in
 * Keycloak), argon2 (Keycloak 24+) as `$argon2id$v=19$m=..,t=..,p=..$salt$hash`. Other
 * algorithms (plain `pbkdf2`, SHA-1) give a problem.
 */
export function keycloak_credential_hash(secret_data: unknown, credential_data: unknown): { hash: string } | { problem: string } {
  const secret = nested(secret_data);
  const credential = nested(credential_data);
  const value = secret?.value;
  const salt = secret?.salt;
  if (typeof value !== "string" || typeof salt !== "string" || !BASE64.test(value) || !BASE64.test(salt)) {
    return { problem: "the credential's secretData has no base64 value and salt" };
  }
  const algorithm = credential?.algorithm;
  const iterations = credential?.hashIterations;
  if (typeof iterations !== "number" || !Number.isInteger(iterations)) return { problem: "the credential's credentialData has no hashIterations" };
  if (algorithm === "pbkdf2-sha256" || algorithm === "pbkdf2-sha512") {
    return { hash: `$${algorithm}$i=${iterations}$${unpadded(salt)}$${unpadded(value)}` };
  }
  if (algorithm === "argon2") {
    const parameters = object(credential?.additionalParameters);
    const type = parameter(parameters, "type") ?? "id";
    const version = parameter(parameters, "version") ?? "1.3";
    const memory = parameter(parameters, "memory");
    const parallelism = parameter(parameters, "parallelism") ?? "1";
    if (!/^(id|i|d)$/.test(type) || version !== "1.3" || memory === undefined || !/^\d+$/.test(memory) || !/^\d+$/.test(parallelism)) {
      return { problem: "the argon2 credential's parameters are not type id/i/d, version 1.3, with memory" };
    }
    return { hash: `$argon2${type}$v=19$m=${memory},t=${iterations},p=${parallelism}$${unpadded(salt)}$${unpadded(value)}` };
  }
  return { problem: `password algorithm ${JSON.stringify(algorithm)} is not read (pbkdf2-sha256, pbkdf2-sha512 and argon2 are)` };
}

/** A group path as a group name (see above); leading `/` removed. */
export function keycloak_group_name(path: string): string {
  return path.replace(/^\/+/, "").replace(/[^A-Za-z0-9._:/-]/g, "-");
}

function add_groups(plan: ImportPlan, groups: unknown[], parent: string): void {
  for (const entry of groups) {
    const group = object(entry);
    if (group === null || typeof group.name !== "string") continue;
    const path = typeof group.path === "string" ? group.path : `${parent}/${group.name}`;
    add_group(plan, keycloak_group_name(path));
    add_groups(plan, list(group.subGroups), path);
  }
}

function add_keycloak_user(plan: ImportPlan, seen: Set<string>, at: string, user: Json): void {
  let password_hash: string | undefined;
  for (const entry of list(user.credentials)) {
    const credential = object(entry);
    if (credential?.type !== "password") {
      plan.ignored.push({ at, message: `credential of type ${JSON.stringify(credential?.type)} (set up again after the import)` });
      continue;
    }
    const converted = keycloak_credential_hash(credential.secretData, credential.credentialData);
    if ("problem" in converted) plan.ignored.push({ at, message: `password not imported: ${converted.problem} (the user resets it)` });
    else password_hash = converted.hash;
  }
  const roles = list(user.realmRoles).filter((role) => typeof role === "string" && !DEFAULT_ROLE.test(role));
  if (roles.length > 0) plan.ignored.push({ at, message: `realm roles ${roles.join(", ")} (map them to groups)` });
  if (object(user.clientRoles) !== null && Object.keys(object(user.clientRoles)!).length > 0) plan.ignored.push({ at, message: "client roles (map them to groups)" });
  const actions = list(user.requiredActions);
  if (actions.length > 0) plan.ignored.push({ at, message: `required actions ${actions.join(", ")}` });
  add_user(plan, seen, at, {
    username: user.username,
    email: user.email,
    email_verified: user.emailVerified === true,
    given_name: user.firstName,
    family_name: user.lastName,
    name: [user.firstName, user.lastName].filter((part) => typeof part === "string" && part !== "").join(" ") || undefined,
    password_hash,
    disabled: user.enabled === false,
    groups: list(user.groups)
      .filter((path): path is string => typeof path === "string")
      .map(keycloak_group_name),
  });
}

/** Adds an OpenID Connect client to the plan; false (reported as ignored) when it is not one to import. */
function add_client(plan: ImportPlan, at: string, client: Json): boolean {
  const client_id = client.clientId;
  if (typeof client_id !== "string" || !/^[\x21-\x7E]{1,255}$/.test(client_id)) {
    plan.ignored.push({ at, message: "client without a clientId of printable ASCII" });
    return false;
  }
  const skip = (why: string): false => {
    plan.ignored.push({ at, message: `client ${client_id}: ${why}` });
    return false;
  };
  if (BUILT_IN_CLIENTS.has(client_id)) return skip("Keycloak's own");
  if ((client.protocol ?? "openid-connect") !== "openid-connect") return skip(`protocol ${String(client.protocol)} (register it again: idp saml)`);
  if (client.bearerOnly === true) return skip("bearer-only (register it as a resource: idp resources)");
  if (client.enabled === false) return skip("disabled");
  if (client.standardFlowEnabled === false) return skip("no standard (authorization code) flow");
  const uris = list(client.redirectUris).filter((uri): uri is string => typeof uri === "string");
  const exact = uris.filter((uri) => !uri.includes("*") && /^[a-z][a-z0-9+.-]*:/i.test(uri));
  for (const uri of uris) if (!exact.includes(uri)) skip(`redirect URI ${uri} dropped (wildcard or relative: redirect URIs match exactly)`);
  if (exact.length === 0) return skip("no exact redirect URI left");
  const attributes = object(client.attributes);
  const logout = typeof attributes?.["post.logout.redirect.uris"] === "string" ? (attributes["post.logout.redirect.uris"] as string).split("##") : [];
  const post_logout = logout.filter((uri) => uri !== "" && uri !== "+" && !uri.includes("*"));
  const origins = list(client.webOrigins);
  if (origins.length > 0) skip(`web origins ${origins.join(", ")} (not a client setting here)`);
  const is_public = client.publicClient === true;
  const secret = !is_public && typeof client.secret === "string" && client.secret.length >= 16 && !MASKED.test(client.secret) ? client.secret : null;
  const name = typeof client.name === "string" && client.name !== "" && !client.name.startsWith("${") ? client.name : client_id;
  plan.clients.push({ at, client_id, client_name: name, redirect_uris: exact, post_logout_redirect_uris: post_logout, public: is_public, secret });
  return true;
}

/** Reads a realm export (JSON text, already within MAX_IMPORT_BYTES). */
export function read_keycloak(text: string): ImportPlan {
  let realm: Json | null;
  try {
    realm = object(JSON.parse(text));
  } catch (error) {
    return unreadable("keycloak", `not JSON: ${(error as Error).message}`);
  }
  if (realm === null || (!Array.isArray(realm.users) && !Array.isArray(realm.clients) && !Array.isArray(realm.groups))) {
    return unreadable("keycloak", "not a Keycloak realm export: no users, groups or clients");
  }
  const plan = empty_plan("keycloak");
  add_groups(plan, list(realm.groups), "");
  const seen = new Set<string>();
  list(realm.users).forEach((entry, i) => {
    const user = object(entry);
    if (user === null) plan.errors.push({ at: `users[${i}]`, message: "not an object" });
    else add_keycloak_user(plan, seen, `users[${i}] (${String(user.username)})`, user);
  });
  list(realm.clients).forEach((entry, i) => {
    const client = object(entry);
    if (client !== null) add_client(plan, `clients[${i}]`, client);
  });
  if (list(realm.roles ? object(realm.roles)?.realm : []).length > 0) plan.ignored.push({ at: "roles", message: "realm roles (map them to groups)" });
  if (list(realm.identityProviders).length > 0) plan.ignored.push({ at: "identityProviders", message: "identity providers (add them again: idp upstreams add)" });
  return plan;
}
