/**
 * Listing and searching (RFC 7644 §3.4.2): the candidates (one index lookup for the filters
 * provisioning clients send, `userName eq`, `externalId eq`, `emails.value eq`, `displayName eq`,
 * `id eq`; otherwise every user or group, at most LIMITS.max_scan of them, else `tooMany`), the
 * filter evaluated over their representations, sorting (§3.4.2.3), and the 1-based
 * `startIndex`/`count` page (§3.4.2.4), `count` cut to LIMITS.max_results.
 */
import type { GroupRow, JsonObject, UserRow } from "../../store/types.ts";
import { invalid_value, ScimError } from "./errors.ts";
import { indexed_equality, matches, parse_filter, raw_values, type CompiledFilter } from "./filter.ts";
import { group_name_of, group_resource } from "./groups.ts";
import { excludes, project, projection_of } from "./projection.ts";
import type { Scim } from "./resource.ts";
import { attribute_path, CASE_EXACT, LIMITS, LIST_SCHEMA, type ResourceKind } from "./schema.ts";
import { user_resource } from "./users.ts";

export type ListQuery = {
  filter?: string | undefined;
  sort_by?: string | undefined;
  sort_order?: string | undefined;
  start_index?: number | undefined;
  count?: number | undefined;
};

export type ListPage = { total: number; start: number; resources: JsonObject[] };

async function user_candidates(scim: Scim, filter: CompiledFilter | null): Promise<UserRow[]> {
  const { store } = scim.idp;
  const indexed = filter === null ? null : indexed_equality(filter);
  if (indexed?.key === "username") return [await store.get_user_by_username(indexed.value)].filter((user) => user !== null);
  if (indexed?.key === "id") return [await store.get_user_by_id(indexed.value)].filter((user) => user !== null);
  if (indexed?.key === "externalid") {
    const ids = await store.find_scim_users_by_external_id(indexed.value);
    return (await Promise.all(ids.map((id) => store.get_user_by_id(id)))).filter((user) => user !== null);
  }
  if (indexed?.key === "emails.value" || indexed?.key === "emails") return store.find_users_by_email(indexed.value);
  const users = await store.list_users({ limit: LIMITS.max_scan + 1 });
  if (users.length > LIMITS.max_scan) throw new ScimError(400, "tooMany", `more than ${LIMITS.max_scan} users: narrow the filter to userName, externalId or emails.value eq`);
  return users;
}

async function group_candidates(scim: Scim, filter: CompiledFilter | null): Promise<GroupRow[]> {
  const { store } = scim.idp;
  const indexed = filter === null ? null : indexed_equality(filter);
  if (indexed?.key === "id") return [await store.get_group_by_id(indexed.value)].filter((group) => group !== null);
  if (indexed?.key === "externalid") {
    const ids = await store.find_scim_groups_by_external_id(indexed.value);
    return (await Promise.all(ids.map((id) => store.get_group_by_id(id)))).filter((group) => group !== null);
  }
  // A display name finds its group by the name made from it; the filter below compares the display name itself.
  if (indexed?.key === "displayname") return [await store.get_group_by_name(group_name_of(indexed.value))].filter((group) => group !== null);
  const groups = await store.list_groups();
  if (groups.length > LIMITS.max_scan) throw new ScimError(400, "tooMany", `more than ${LIMITS.max_scan} groups: narrow the filter to displayName or externalId eq`);
  return groups;
}

function sort_key(value: unknown, exact: boolean): string | number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  const text = value === undefined || value === null ? "" : String(value);
  return exact ? text : text.toLowerCase();
}

/** One page of users or groups; `members`: whether group representations need their members (not when excluded). */
async function list_resources(scim: Scim, kind: ResourceKind, query: ListQuery, members = true): Promise<ListPage> {
  const filter = query.filter === undefined ? null : parse_filter(kind, query.filter);
  const resources =
    kind === "User"
      ? await Promise.all((await user_candidates(scim, filter)).map((user) => user_resource(scim, user)))
      : await Promise.all((await group_candidates(scim, filter)).map((group) => group_resource(scim, group, members || filter !== null)));
  let found = filter === null ? resources : resources.filter((resource) => matches(filter, resource));
  if (query.sort_by !== undefined) {
    const path = attribute_path(kind, query.sort_by);
    if (path === null) throw invalid_value(`cannot sort by unknown attribute "${query.sort_by.slice(0, 100)}"`);
    // §3.4.2.3: a multi-valued attribute sorts by its primary (here: first) value.
    const exact = CASE_EXACT.has(path.key);
    const keyed = found.map((resource) => {
      const first = raw_values(resource, path.steps)[0];
      return { resource, key: sort_key(first !== null && typeof first === "object" && "value" in first ? first.value : first, exact) };
    });
    const direction = query.sort_order?.toLowerCase() === "descending" ? -1 : 1;
    keyed.sort((a, b) => (a.key < b.key ? -direction : a.key > b.key ? direction : 0));
    found = keyed.map((item) => item.resource);
  }
  // §3.4.2.4: startIndex below 1 is 1; count below 0 is 0; above the maximum is the maximum.
  const start = Math.max(1, Math.trunc(query.start_index ?? 1));
  const count = Math.min(LIMITS.max_results, Math.max(0, Math.trunc(query.count ?? LIMITS.max_results)));
  const page = found.slice(start - 1, start - 1 + count);
  if (kind === "Group" && !members) for (const resource of page) delete resource.members;
  return { total: found.length, start, resources: page };
}

function list_response(page: ListPage, resources: JsonObject[]): JsonObject {
  return { schemas: [LIST_SCHEMA], totalResults: page.total, startIndex: page.start, itemsPerPage: resources.length, Resources: resources };
}

/** A list answer as the query asks: its page, each resource projected (`attributes`/`excludedAttributes`, RFC 7644 §3.4.2.5). */
export async function projected_list(
  scim: Scim,
  kind: ResourceKind,
  query: ListQuery & { attributes?: string | undefined; excluded_attributes?: string | undefined },
): Promise<{ body: JsonObject; results: number }> {
  const projection = projection_of(kind, query.attributes, query.excluded_attributes);
  const page = await list_resources(scim, kind, query, !excludes(projection, "members"));
  return {
    body: list_response(
      page,
      page.resources.map((resource) => project(resource, projection)),
    ),
    results: page.resources.length,
  };
}
