import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { UpstreamRow, UserRow } from "../../store/types.ts";
import type { UpstreamProfile } from "./profile.ts";

/**
 * The upstream's groups into local groups through the operator's mapping only (`group_map`): a
 * group name the upstream asserts is the upstream's vocabulary (anyone may create a gitlab.com
 * group named like a local one), so nothing unmapped counts. Mapped groups must exist here (an
 * upstream never creates one); the memberships this upstream's mapping added and it no longer
 * asserts are removed. Changes are audited.
 */
export async function map_groups(idp: Provider, upstream: UpstreamRow, user: UserRow, profile: UpstreamProfile, ip: string): Promise<void> {
  const mapping = upstream.group_map;
  const group_ids: string[] = [];
  for (const upstream_group of new Set(profile.groups)) {
    const local = Object.hasOwn(mapping, upstream_group) ? mapping[upstream_group] : undefined;
    if (local === undefined) continue;
    const group = await idp.store.get_group_by_name(local);
    if (group !== null) group_ids.push(group.id);
  }
  const changed = await idp.store.sync_upstream_group_members(upstream.name, user.id, group_ids, idp.now());
  for (const name of changed.added)
    await record_event(idp, { type: "group_member_added", outcome: "success", user_id: user.id, ip, details: { group: name, upstream: upstream.name } });
  for (const name of changed.removed)
    await record_event(idp, { type: "group_member_removed", outcome: "success", user_id: user.id, ip, details: { group: name, upstream: upstream.name } });
}
