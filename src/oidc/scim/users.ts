/**
 * SCIM Users (RFC 7643 §4.1) over our users, with the admin rules (admin/users.ts,
 * lockout.ts, lasting_power.ts) so a provisioning client meets the same validation as the admin
 * API: userName ↔ username, displayName ↔ name, name.givenName/familyName, the primary (or
 * first) of emails and phoneNumbers, active ↔ status (false disables: sessions and tokens end,
 * their clients told by back-channel logout), externalId, the enterprise extension
 * (enterprise.ts), groups read-only, password write-only (the password policy, argon2id).
 */
import { hash_password } from "../../platform/passwords.ts";
import { StoreConflictError, type JsonObject, type UserRow } from "../../store/types.ts";
import { void_reset_links } from "../accounts/password_reset.ts";
import { check_password_policy } from "../accounts/password_policy.ts";
import { check_admin_member_recovery } from "../admin/lasting_power.ts";
import { check_lockout } from "../admin/lockout.ts";
import { change_user, checked_username, create_user_with_password, EMAIL, PHONE, type UserChange } from "../admin/users.ts";
import { with_backchannel_logout } from "../logout/bulk.ts";
import { end_user_sessions } from "../signin/sessions.ts";
import { checked_enterprise } from "./enterprise.ts";
import { invalid_value, mutability, ScimError } from "./errors.ts";
import { base_url, with_meta, type Scim } from "./resource.ts";
import { ENTERPRISE_SCHEMA, field, USER_SCHEMA } from "./schema.ts";

const MAX_TEXT = 256;

export async function user_resource(scim: Scim, user: UserRow): Promise<JsonObject> {
  const { store } = scim.idp;
  const row = await store.get_scim_user(user.id);
  const enterprise = await scim.enterprise.read(user.id);
  const groups = await store.list_user_groups(user.id);
  const group_rows = await Promise.all(groups.map((name) => store.get_group_by_name(name)));
  const resource: JsonObject = {
    schemas: Object.keys(enterprise).length > 0 ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: user.id,
    ...(row?.external_id != null && { externalId: row.external_id }),
    userName: user.username,
    name: {
      ...(user.given_name !== null && { givenName: user.given_name }),
      ...(user.family_name !== null && { familyName: user.family_name }),
      ...(user.name !== null && { formatted: user.name }),
    },
    ...(user.name !== null && { displayName: user.name }),
    active: user.status === "active",
    ...(user.email !== null && { emails: [{ value: user.email, type: "work", primary: true }] }),
    ...(user.phone_number !== null && { phoneNumbers: [{ value: user.phone_number, type: "work", primary: true }] }),
    groups: group_rows.flatMap((group) => (group === null ? [] : [{ value: group.id, display: group.name, $ref: `${base_url(scim)}/Groups/${group.id}` }])),
    ...(Object.keys(enterprise).length > 0 && { [ENTERPRISE_SCHEMA]: enterprise }),
  };
  return with_meta(scim, "User", resource, user.created_at, Math.max(user.updated_at, row?.updated_at ?? 0));
}

/** What a User document asks for, checked. `undefined`: not sent. */
export type UserDocument = {
  username: string;
  name: string | null;
  given_name: string | null;
  family_name: string | null;
  email: string | null;
  phone_number: string | null;
  active: boolean | undefined;
  password: string | undefined;
  external_id: string | null;
  enterprise: JsonObject;
};

function text(value: unknown, name: string): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") throw invalid_value(`${name} must be a string`);
  if (value.length > MAX_TEXT) throw invalid_value(`${name} must have at most ${MAX_TEXT} characters`);
  return value;
}

/** Entra ID sends `"True"`/`"False"` for active in a PATCH: read as booleans. */
export function boolean_of(value: unknown, name: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  throw invalid_value(`${name} must be a boolean`);
}

/** The primary element's value of a multi-valued attribute, or the first's (we keep one). */
function primary(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalid_value(`${name} must be an array`);
  const items = value.filter((item): item is Record<string, unknown> => item !== null && typeof item === "object" && !Array.isArray(item));
  if (items.length !== value.length) throw invalid_value(`${name} must hold objects`);
  const chosen = items.find((item) => boolean_of(field(item, "primary"), `${name}.primary`) === true) ?? items[0];
  return chosen === undefined ? null : text(field(chosen, "value"), `${name}.value`);
}

export function read_user_document(doc: Record<string, unknown>): UserDocument {
  const typed = field(doc, "userName");
  if (typeof typed !== "string" || typed === "") throw invalid_value("userName is required");
  const checked = checked_username(typed);
  if ("problem" in checked) throw invalid_value(checked.problem);
  const name = field(doc, "name");
  if (name !== undefined && name !== null && (typeof name !== "object" || Array.isArray(name))) throw invalid_value("name must be an object");
  const parts = (name ?? {}) as Record<string, unknown>;
  const given_name = text(field(parts, "givenName"), "name.givenName");
  const family_name = text(field(parts, "familyName"), "name.familyName");
  const display = text(field(doc, "displayName"), "displayName") ?? text(field(parts, "formatted"), "name.formatted");
  const joined = [given_name, family_name].filter((part) => part !== null).join(" ");
  const email = primary(field(doc, "emails"), "emails");
  if (email !== null && !EMAIL.test(email)) throw invalid_value(`emails: "${email}" is not an e-mail address`);
  const phone_number = primary(field(doc, "phoneNumbers"), "phoneNumbers");
  if (phone_number !== null && !PHONE.test(phone_number)) throw invalid_value(`phoneNumbers: "${phone_number}" is not a phone number`);
  const password = field(doc, "password");
  if (password !== undefined && password !== null && typeof password !== "string") throw invalid_value("password must be a string");
  const enterprise = checked_enterprise(field(doc, ENTERPRISE_SCHEMA));
  return {
    username: checked.username,
    name: display ?? (joined === "" ? null : joined),
    given_name,
    family_name,
    email,
    phone_number,
    active: boolean_of(field(doc, "active"), "active"),
    password: typeof password === "string" && password !== "" ? password : undefined,
    external_id: text(field(doc, "externalId"), "externalId"),
    enterprise,
  };
}

function taken(username: string): ScimError {
  return new ScimError(409, "uniqueness", `userName "${username}" is already taken`);
}

/** RFC 7644 §3.3: a new user; its password (when sent) meets the password policy. */
export async function create_user(scim: Scim, doc: UserDocument): Promise<UserRow> {
  const { idp } = scim;
  const fields = {
    username: doc.username,
    name: doc.name,
    given_name: doc.given_name,
    family_name: doc.family_name,
    // The provisioning directory is the authority on its users' addresses (SECURITY.md "Provisioning").
    email: doc.email,
    email_verified: doc.email !== null,
    phone_number: doc.phone_number,
    status: doc.active === false ? ("disabled" as const) : ("active" as const),
  };
  let user: UserRow;
  if (doc.password !== undefined) user = await create_user_with_password(idp.store, idp.config, fields, doc.password);
  else {
    if (await idp.store.get_user_by_username(doc.username)) throw taken(doc.username);
    try {
      // No password: the user signs in another way (an upstream, a passkey) or sets one through a reset link.
      user = await idp.store.create_user({ ...fields, password_hash: "" });
    } catch (error) {
      if (error instanceof StoreConflictError) throw taken(doc.username);
      throw error;
    }
  }
  await idp.store.put_scim_user({ user_id: user.id, external_id: doc.external_id, enterprise: {}, updated_at: idp.now() });
  if (Object.keys(doc.enterprise).length > 0) await scim.enterprise.write(user.id, doc.enterprise);
  return user;
}

export type UserReplaced = { user: UserRow; action: string; details: JsonObject };

/**
 * RFC 7644 §3.5.1: the user becomes `doc` (what it leaves out is cleared; the password and
 * `active` only change when sent). Through change_user: disabling ends the sessions and tokens
 * now; the last active administrator is not disabled (lockout.ts); an admin-group member's
 * e-mail does not change through a token (lasting_power.ts).
 */
export async function replace_user(scim: Scim, current: UserRow, doc: UserDocument): Promise<UserReplaced> {
  const { idp } = scim;
  const wanted: UserChange = { name: doc.name, given_name: doc.given_name, family_name: doc.family_name, email: doc.email, phone_number: doc.phone_number };
  if (doc.email !== null && doc.email !== current.email) wanted.email_verified = true;
  const change: UserChange = {};
  for (const [key, value] of Object.entries(wanted) as [keyof UserChange, never][]) if (value !== current[key as keyof UserRow]) change[key] = value;
  if (doc.active === false && current.status !== "disabled") change.status = "disabled";
  if (doc.active === true && current.status === "disabled") change.status = "active";
  await check_admin_member_recovery(idp, current.id, change);
  if (change.status === "disabled") await check_lockout(idp.store, idp.config.admin_console.group, current, "disable");
  let user = current;
  if (doc.username !== current.username) {
    try {
      user = (await idp.store.update_user(current.id, { username: doc.username }, { if_version: current.version })) ?? current;
    } catch (error) {
      if (error instanceof StoreConflictError) throw taken(doc.username);
      throw error;
    }
    if (user === current) throw new ScimError(412, null, "the user changed while this change was made: GET it again and retry");
  }
  const {
    user: changed,
    action,
    ended,
  } = await (change.status === "disabled"
    ? with_backchannel_logout(idp, user.id, () => change_user(idp.store, user, change, idp.now()))
    : change_user(idp.store, user, change, idp.now()));
  const details: JsonObject = { changed: Object.keys(change), ...(ended ?? {}) };
  let result = changed;
  if (doc.password !== undefined) {
    const refused = check_password_policy(doc.password, { username: changed.username, email: changed.email }, idp.config.passwords);
    if (refused !== null) throw invalid_value(`password: ${refused}`);
    result = (await idp.store.update_user(changed.id, { password_hash: await hash_password(doc.password, idp.config.argon2) })) ?? changed;
    // As `idp users set-password`: the old password's holder loses access now.
    await void_reset_links(idp.store, changed.id);
    const password_ended = await with_backchannel_logout(idp, changed.id, () => end_user_sessions(idp.store, changed.id, idp.now()));
    details.password_changed = true;
    details.sessions_ended = password_ended.sessions_ended;
  }
  const row = await idp.store.get_scim_user(current.id);
  await idp.store.put_scim_user({ user_id: current.id, external_id: doc.external_id, enterprise: row?.enterprise ?? {}, updated_at: idp.now() });
  await scim.enterprise.write(current.id, doc.enterprise);
  return { user: result, action, details };
}

/** RFC 7644 §3.6: the user and their sessions, grants and tokens; never the last active administrator. */
export async function delete_user(scim: Scim, user: UserRow): Promise<void> {
  const { idp } = scim;
  await check_lockout(idp.store, idp.config.admin_console.group, user, "delete");
  if (!(await with_backchannel_logout(idp, user.id, () => idp.store.delete_user(user.id, { if_version: user.version }))))
    throw new ScimError(412, null, "the user changed while it was being deleted: GET it again and retry");
}

/** Attributes a client may not set (RFC 7643 §7 mutability readOnly): refused when they differ from the current ones. */
export function check_read_only(doc: Record<string, unknown>, current: JsonObject | null): void {
  const id = field(doc, "id");
  if (id !== undefined && current !== null && id !== current.id) throw mutability("id is read-only");
}
