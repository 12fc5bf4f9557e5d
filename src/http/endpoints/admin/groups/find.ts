/** The group of the route's `:name` (case-insensitive), or not_found. */
import { not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import type { GroupRow } from "../../../../store/types.ts";

export async function group_of(idp: Provider, name: string): Promise<GroupRow> {
  const group = await idp.store.get_group_by_name(name);
  if (group === null) throw not_found("group", name);
  return group;
}
