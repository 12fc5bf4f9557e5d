/**
 * What a signed-in user changes of their own account on the account page: their names (name,
 * given_name, family_name: OIDC Core §5.1 profile claims) and the custom attributes the operator
 * made user-editable (attributes/), and, when IDP_ACCOUNT_SELF_DELETE is on, the account itself.
 *
 * - Names are trimmed, at most MAX_NAME characters, without control characters; empty clears.
 * - Attributes other than the user-editable ones are never changed here, whatever the form sends.
 * - A required user-editable attribute may not be cleared.
 * - Every problem is reported at once, each naming its field, and nothing is written then.
 * - Deleting the account ends its sessions (with back-channel logout to the applications),
 *   revokes its tokens, consents and passkeys (the store deletes them with the user), and is
 *   audited; the last active administrator cannot delete themselves (admin/lockout.ts).
 */
import { record_event } from "../audit.ts";
import { lockout_problem } from "../admin/lockout.ts";
import { parse_attribute_text } from "../attributes/values.ts";
import { with_backchannel_logout } from "../logout/bulk.ts";
import type { Provider } from "../provider.ts";
import type { AttributeDefinitionRow, JsonValue, UserPatch, UserRow } from "../../store/types.ts";

export const MAX_NAME = 200;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
export const PROFILE_FIELDS = ["name", "given_name", "family_name"] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** One refused field: its name (a profile field or an attribute's) and the English message (a catalog value). */
export type ProfileProblem = { field: string; message: string };

export type ProfileInput = { names: Partial<Record<ProfileField, string>>; attributes: Readonly<Record<string, string>> };

/** The attributes the user edits, in name order. */
export async function editable_attributes(idp: Pick<Provider, "store">): Promise<AttributeDefinitionRow[]> {
  return (await idp.store.list_attribute_definitions()).filter((d) => d.user_editable);
}

/** Checks the form; the patch and the attribute values to write, or every problem. */
export function check_profile(
  definitions: readonly AttributeDefinitionRow[],
  input: ProfileInput,
): { ok: true; patch: UserPatch; values: Record<string, JsonValue | null> } | { ok: false; problems: ProfileProblem[] } {
  const problems: ProfileProblem[] = [];
  const patch: UserPatch = {};
  for (const field of PROFILE_FIELDS) {
    const typed = input.names[field];
    if (typed === undefined) continue;
    const value = typed.trim();
    if (value.length > MAX_NAME) problems.push({ field, message: `longer than ${MAX_NAME} characters` });
    else if (CONTROL.test(value)) problems.push({ field, message: "contains control characters" });
    else patch[field] = value === "" ? null : value;
  }
  const values: Record<string, JsonValue | null> = {};
  for (const definition of definitions) {
    const typed = input.attributes[definition.name];
    if (typed === undefined) continue;
    const parsed = parse_attribute_text(definition, typed.trim());
    if (!parsed.ok) problems.push({ field: definition.name, message: parsed.problem });
    else if (parsed.value === null && definition.required) problems.push({ field: definition.name, message: "is required" });
    else values[definition.name] = parsed.value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, patch, values };
}

/** Writes a checked profile and audits it (`profile_updated`, naming the fields, never their values). */
export async function save_profile(idp: Provider, user: UserRow, patch: UserPatch, values: Record<string, JsonValue | null>, ip: string | null): Promise<void> {
  const changed = Object.keys(patch).filter((field) => patch[field as ProfileField] !== user[field as ProfileField]);
  if (changed.length > 0) await idp.store.update_user(user.id, Object.fromEntries(changed.map((field) => [field, patch[field as ProfileField]])) as UserPatch);
  if (Object.keys(values).length > 0) await idp.store.set_user_attribute_values(user.id, values, idp.now());
  await record_event(idp, { type: "profile_updated", outcome: "success", user_id: user.id, ip, details: { fields: changed, attributes: Object.keys(values) } });
}

/** Why the user may not delete their own account now, or null. */
export async function self_delete_problem(idp: Provider, user: UserRow): Promise<string | null> {
  if (!idp.config.account_self_delete) return "Deleting your own account is turned off on this server. Ask an administrator.";
  const lockout = await lockout_problem(idp.store, idp.config.admin_console.group, user, "delete", null);
  return lockout === null ? null : "You are the last administrator: make someone else an administrator before you delete your account.";
}

/** Deletes the account: sessions end (with back-channel logout), the store deletes everything of it. */
export async function delete_own_account(idp: Provider, user: UserRow, ip: string | null): Promise<boolean> {
  const deleted = await with_backchannel_logout(idp, user.id, () => idp.store.delete_user(user.id));
  if (deleted) await record_event(idp, { type: "account_deleted", outcome: "success", user_id: null, ip, details: { user_id: user.id, username: user.username } });
  return deleted;
}
