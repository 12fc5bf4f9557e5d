/**
 * Version 22: `revoked_grants`, the grants and token families that were revoked as a whole
 * (store/types/tokens.ts `revoke_by_grant`, `revoke_family`): a replayed code (RFC 6749 §4.1.2),
 * a rotated refresh token presented again (RFC 9700 §4.14.2), a refresh token revoked with its
 * family (RFC 7009 §2.1). Revoking only the token rows that exist would miss the tokens a
 * concurrent request inserts just after: the winner of a code redeemed twice, or of a refresh
 * token spent twice, stores its tokens after the loser revoked "all" of them. With the grant
 * recorded, a token inserted later is stored revoked, and every read of a token
 * (get_token, rotate_refresh_token) treats a token of a recorded grant or family as revoked,
 * whatever the order in which the two requests' statements ran or committed, on any instance.
 *
 * `grant_id` holds a grant id or a family id (tokens of one authorization share both). A row is
 * purged once no token of its grant is left and a day has passed (store/purge.ts).
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
CREATE TABLE revoked_grants (
  grant_id TEXT PRIMARY KEY,
  revoked_at ${int} NOT NULL
)${strict};
CREATE INDEX revoked_grants_revoked_at ON revoked_grants (revoked_at);
`;
}

export const revoked_grants: Migration = {
  version: 22,
  name: "revoked grants",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
