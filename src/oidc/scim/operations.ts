/**
 * The operations on one resource, shared by the endpoints (http/endpoints/scim/) and Bulk
 * (bulk.ts): read, create (RFC 7644 §3.3), replace (§3.5.1), patch (§3.5.2) and delete (§3.6),
 * each with If-Match (§3.14) where it changes something. Each answers its status, the new
 * representation and what to audit.
 */
import type { JsonObject } from "../../store/types.ts";
import type { Provider } from "../provider.ts";
import { attribute_enterprise } from "./enterprise.ts";
import { invalid_syntax, scim_not_found } from "./errors.ts";
import { create_group, delete_group, group_resource, read_group_document, replace_group } from "./groups.ts";
import { apply_patch } from "./patch.ts";
import { check_if_match, type Scim } from "./resource.ts";
import { field, GROUP_SCHEMA, USER_SCHEMA, type ResourceKind } from "./schema.ts";
import { create_user, delete_user, read_user_document, replace_user, user_resource } from "./users.ts";

export type Outcome = { status: number; resource: JsonObject | null; action: string; user_id: string | null; details: JsonObject };

/** The SCIM context of a provider: the enterprise values in the custom attributes of the same name, or scim_users (enterprise.ts). */
export function scim_of(idp: Provider): Scim {
  return { idp, enterprise: attribute_enterprise(idp.store, () => idp.now()) };
}

async function user_row(scim: Scim, id: string) {
  const user = await scim.idp.store.get_user_by_id(id);
  if (user === null) throw scim_not_found("User", id);
  return user;
}

async function group_row(scim: Scim, id: string) {
  const group = await scim.idp.store.get_group_by_id(id);
  if (group === null) throw scim_not_found("Group", id);
  return group;
}

export async function read_resource(scim: Scim, kind: ResourceKind, id: string, members = true): Promise<JsonObject> {
  return kind === "User" ? user_resource(scim, await user_row(scim, id)) : group_resource(scim, await group_row(scim, id), members);
}

function check_schemas(kind: ResourceKind, body: Record<string, unknown>): void {
  const schemas = field(body, "schemas");
  const core = kind === "User" ? USER_SCHEMA : GROUP_SCHEMA;
  // RFC 7643 §3: a resource names its schemas; the core one must be among them.
  if (!Array.isArray(schemas) || !schemas.some((schema) => typeof schema === "string" && schema.toLowerCase() === core.toLowerCase()))
    throw invalid_syntax(`the body's schemas must include "${core}"`);
}

export async function create_resource(scim: Scim, kind: ResourceKind, body: Record<string, unknown>): Promise<Outcome> {
  check_schemas(kind, body);
  if (kind === "User") {
    const user = await create_user(scim, read_user_document(body));
    return { status: 201, resource: await user_resource(scim, user), action: "user_created", user_id: user.id, details: { username: user.username } };
  }
  const group = await create_group(scim, read_group_document(body));
  return { status: 201, resource: await group_resource(scim, group), action: "group_created", user_id: null, details: { group: group.name } };
}

export async function replace_resource(scim: Scim, kind: ResourceKind, id: string, body: Record<string, unknown>, if_match: string | null): Promise<Outcome> {
  check_schemas(kind, body);
  return write(scim, kind, id, if_match, () => body);
}

export async function patch_resource(scim: Scim, kind: ResourceKind, id: string, body: Record<string, unknown>, if_match: string | null): Promise<Outcome> {
  return write(scim, kind, id, if_match, (current) => apply_patch(kind, current, body));
}

async function write(scim: Scim, kind: ResourceKind, id: string, if_match: string | null, document: (current: JsonObject) => Record<string, unknown>): Promise<Outcome> {
  if (kind === "User") {
    const user = await user_row(scim, id);
    const current = await user_resource(scim, user);
    check_if_match(if_match, current);
    const { user: changed, action, details } = await replace_user(scim, user, read_user_document(document(current)));
    return { status: 200, resource: await user_resource(scim, changed), action, user_id: changed.id, details };
  }
  const group = await group_row(scim, id);
  const current = await group_resource(scim, group);
  check_if_match(if_match, current);
  const { group: changed, details } = await replace_group(scim, group, read_group_document(document(current)));
  return { status: 200, resource: await group_resource(scim, changed), action: "group_updated", user_id: null, details };
}

export async function delete_resource(scim: Scim, kind: ResourceKind, id: string, if_match: string | null): Promise<Outcome> {
  if (kind === "User") {
    const user = await user_row(scim, id);
    check_if_match(if_match, await user_resource(scim, user));
    await delete_user(scim, user);
    return { status: 204, resource: null, action: "user_deleted", user_id: user.id, details: { username: user.username } };
  }
  const group = await group_row(scim, id);
  check_if_match(if_match, await group_resource(scim, group));
  await delete_group(scim, group);
  return { status: 204, resource: null, action: "group_deleted", user_id: null, details: { group: group.name } };
}
