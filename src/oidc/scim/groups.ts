/**
 * SCIM Groups (RFC 7643 §4.2) over our groups, with the admin rules (admin/groups.ts,
 * lasting_power.ts): a group's name follows store/group_names.ts (it travels in ID Tokens), so
 * the `displayName` sent ("Sales Team") is kept as sent and the group is named from it
 * (`Sales-Team`: every run of other characters becomes "-"). Members are users, by id; the
 * console's role groups (the admin, auditor and helpdesk groups) do not change through SCIM,
 * as through the admin API.
 */
import { StoreConflictError, StoreError, type GroupRow, type JsonObject } from "../../store/types.ts";
import { create_group as admin_create_group } from "../admin/groups.ts";
import { check_admin_group_membership, check_group_deletion } from "../admin/lasting_power.ts";
import { invalid_value, ScimError } from "./errors.ts";
import { base_url, with_meta, type Scim } from "./resource.ts";
import { field, GROUP_SCHEMA } from "./schema.ts";

const MAX_DISPLAY = 256;
/** The most members one group document may name. */
export const MAX_MEMBERS = 10_000;

/** The group name made from a display name (store/group_names.ts: 1 to 64 ASCII letters, digits or - _ . : /). */
export function group_name_of(display: string): string {
  const ascii = display
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9._:/-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return ascii === "" ? "group" : ascii;
}

export async function group_resource(scim: Scim, group: GroupRow, with_members = true): Promise<JsonObject> {
  const { store } = scim.idp;
  const row = await store.get_scim_group(group.id);
  const members = with_members ? await store.list_group_members(group.id) : [];
  const resource: JsonObject = {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    ...(row?.external_id != null && { externalId: row.external_id }),
    displayName: row?.display_name ?? group.name,
    ...(with_members && {
      members: members.map((member) => ({ value: member.user_id, display: member.username, type: "User", $ref: `${base_url(scim)}/Users/${member.user_id}` })),
    }),
  };
  return with_meta(scim, "Group", resource, group.created_at, row?.updated_at ?? group.created_at);
}

export type GroupDocument = { display_name: string; external_id: string | null; members: string[] };

export function read_group_document(doc: Record<string, unknown>): GroupDocument {
  const display = field(doc, "displayName");
  if (typeof display !== "string" || display.trim() === "") throw invalid_value("displayName is required");
  if (display.length > MAX_DISPLAY) throw invalid_value(`displayName must have at most ${MAX_DISPLAY} characters`);
  const external = field(doc, "externalId");
  if (external !== undefined && external !== null && (typeof external !== "string" || external.length > MAX_DISPLAY)) throw invalid_value("externalId must be a string");
  const members = field(doc, "members") ?? [];
  if (!Array.isArray(members)) throw invalid_value("members must be an array");
  if (members.length > MAX_MEMBERS) throw invalid_value(`a group document may name at most ${MAX_MEMBERS} members`);
  const ids = members.map((member) => {
    const value = member !== null && typeof member === "object" ? field(member as Record<string, unknown>, "value") : undefined;
    if (typeof value !== "string" || value === "") throw invalid_value("each member needs a value (a user's id)");
    return value;
  });
  return { display_name: display, external_id: typeof external === "string" && external !== "" ? external : null, members: [...new Set(ids)] };
}

function taken(name: string): ScimError {
  return new ScimError(409, "uniqueness", `a group named "${name}" already exists (group names are case-insensitive)`);
}

/** Makes the group's members exactly `wanted`; each must be a user. Returns how many were added and removed. */
async function set_members(scim: Scim, group: GroupRow, wanted: readonly string[]): Promise<{ added: number; removed: number }> {
  const { store } = scim.idp;
  const current = new Set((await store.list_group_members(group.id)).map((member) => member.user_id));
  const target = new Set(wanted);
  const to_add = wanted.filter((id) => !current.has(id));
  const to_remove = [...current].filter((id) => !target.has(id));
  if (to_add.length + to_remove.length === 0) return { added: 0, removed: 0 };
  // The console's role groups are lasting power: not through a token (lasting_power.ts).
  check_admin_group_membership(scim.idp, group);
  for (const id of to_add) if ((await store.get_user_by_id(id)) === null) throw invalid_value(`member "${id.slice(0, 64)}" is not a user`);
  const now = scim.idp.now();
  for (const id of to_add) await store.add_group_member(group.id, id, now);
  for (const id of to_remove) await store.remove_group_member(group.id, id);
  return { added: to_add.length, removed: to_remove.length };
}

export async function create_group(scim: Scim, doc: GroupDocument): Promise<GroupRow> {
  const { store } = scim.idp;
  const name = group_name_of(doc.display_name);
  // A taken name is the admin rule's conflict, answered 409 uniqueness (errors.ts scim_error_of).
  const group = await admin_create_group(store, name, null);
  await store.put_scim_group({ group_id: group.id, external_id: doc.external_id, display_name: doc.display_name, updated_at: scim.idp.now() });
  try {
    await set_members(scim, group, doc.members);
  } catch (error) {
    // Nothing half-made: a refused member removes the new group again.
    await store.delete_group(group.id);
    throw error;
  }
  return group;
}

export type GroupReplaced = { group: GroupRow; details: JsonObject };

/** RFC 7644 §3.5.1: the group becomes `doc` (its name, externalId and members). */
export async function replace_group(scim: Scim, current: GroupRow, doc: GroupDocument): Promise<GroupReplaced> {
  const { store } = scim.idp;
  const name = group_name_of(doc.display_name);
  let group = current;
  if (name !== current.name) {
    check_admin_group_membership(scim.idp, current);
    try {
      group = (await store.rename_group(current.id, name)) ?? current;
    } catch (error) {
      if (error instanceof StoreConflictError) throw taken(name);
      if (error instanceof StoreError) throw invalid_value(error.message);
      throw error;
    }
  }
  const members = await set_members(scim, group, doc.members);
  await store.put_scim_group({ group_id: group.id, external_id: doc.external_id, display_name: doc.display_name, updated_at: scim.idp.now() });
  return { group, details: { group: group.name, ...(name !== current.name && { renamed_from: current.name }), members_added: members.added, members_removed: members.removed } };
}

/** RFC 7644 §3.6: the group and its memberships; never the console's admin group. */
export async function delete_group(scim: Scim, group: GroupRow): Promise<void> {
  check_group_deletion(scim.idp, group);
  await scim.idp.store.delete_group(group.id);
}
