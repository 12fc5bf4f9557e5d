/**
 * Version 17: group membership from an upstream identity provider only where the operator said so.
 *
 * - `upstreams.group_map`: upstream group → local group name (a JSON object), set per upstream by
 *   the operator (`idp upstreams add --group-map`, the config file's `group_map`). Empty by
 *   default: an upstream's `groups` claim then changes no membership here. Before this version
 *   every upstream's groups were matched to local groups by name; those memberships stay (they
 *   cannot be told from an administrator's) and are for the operator to review.
 * - `group_members.upstream`: the upstream whose mapping added the membership (NULL: added by an
 *   administrator). A sign-in through that upstream removes the memberships it added and no
 *   longer asserts; an administrator's membership is never removed by a sign-in.
 */
import type { Migration } from "./migration.ts";

function sql(empty_json: string): string {
  return `
ALTER TABLE upstreams ADD COLUMN group_map ${empty_json};
ALTER TABLE group_members ADD COLUMN upstream TEXT;
CREATE INDEX group_members_user_upstream ON group_members (user_id, upstream);
`;
}

export const upstream_group_map: Migration = {
  version: 17,
  name: "upstream group map",
  sqlite: sql("TEXT NOT NULL DEFAULT '{}'"),
  postgres: sql("JSONB NOT NULL DEFAULT '{}'::jsonb"),
};
