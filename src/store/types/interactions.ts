/** Store types: Interactions (a pending authorization request between /authorize and login/consent). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds, JsonObject } from "./common.ts";

export type InteractionRow = {
  id: string;
  /** The validated authorization request parameters. */
  params: JsonObject;
  session_id_hash: string | null;
  /** What login/consent decided so far (user, amr, granted scopes...); null until then. */
  result: JsonObject | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
};

export type NewInteraction = Pick<InteractionRow, "id" | "params" | "expires_at"> & Partial<Pick<InteractionRow, "session_id_hash" | "result" | "created_at">>;

export type InteractionPatch = Partial<Pick<InteractionRow, "params" | "session_id_hash" | "result" | "expires_at">>;

export interface InteractionStore {
  create_interaction(interaction: NewInteraction): Promise<InteractionRow>;
  get_interaction(id: string): Promise<InteractionRow | null>;
  update_interaction(id: string, patch: InteractionPatch): Promise<InteractionRow | null>;
  delete_interaction(id: string): Promise<boolean>;
}
