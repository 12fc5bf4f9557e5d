/**
 * Rows of `device_authorizations` (RFC 8628): the column spec (codec.ts encodes and decodes by
 * it) and the builder that completes a new row, shared by both adapters. What a poll decides is
 * in ../device_poll.ts.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { DeviceAuthorizationRow, NewDeviceAuthorization } from "../types.ts";

/** The columns of `device_authorizations`. */
export const device_authorization_spec: TableSpec<DeviceAuthorizationRow> = {
  device_code_hash: "text",
  user_code_hash: "text",
  client_id: "text",
  scope: "text",
  claims: "json",
  status: "text",
  user_id: "text",
  session_id_hash: "text",
  auth_time: "int",
  amr: "json",
  acr: "text",
  grant_id: "text",
  poll_interval: "int",
  last_polled_at: "int",
  created_at: "int",
  expires_at: "int",
};

/** The stored row of a new authorization: pending, nobody has approved it yet. */
export function device_authorization_row(input: NewDeviceAuthorization): DeviceAuthorizationRow {
  return {
    device_code_hash: input.device_code_hash,
    user_code_hash: input.user_code_hash,
    client_id: input.client_id,
    scope: input.scope,
    claims: input.claims ?? null,
    status: "pending",
    user_id: null,
    session_id_hash: null,
    auth_time: null,
    amr: null,
    acr: null,
    grant_id: input.grant_id,
    poll_interval: input.poll_interval,
    last_polled_at: null,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
  };
}
