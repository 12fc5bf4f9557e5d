/** PostgreSQL: device authorizations (RFC 8628), decided by the user once and redeemed once. */
import type { PgSql } from "./driver.ts";
import { decode_or_null, encode_postgres } from "../codec.ts";
import { device_authorization_row, device_authorization_spec } from "../rows/device_authorizations.ts";
import { decide_poll } from "../device_poll.ts";
import type { DeviceAuthorizationStore } from "../types.ts";

export function pg_device_authorizations(sql: PgSql): DeviceAuthorizationStore {
  return {
    async insert_device_authorization(input) {
      const row = device_authorization_row(input);
      await sql`INSERT INTO device_authorizations ${sql(encode_postgres(device_authorization_spec, row))}`;
      return row;
    },
    async find_device_authorization(user_code_hash, now) {
      const [raw] = await sql`SELECT * FROM device_authorizations WHERE user_code_hash = ${user_code_hash} AND expires_at > ${now}`;
      return decode_or_null(device_authorization_spec, raw);
    },
    async decide_device_authorization(device_code_hash, decision, now) {
      // Only a pending, unexpired authorization is decided, in one statement: a concurrent
      // decision waits for this one and then no longer finds it pending (READ COMMITTED).
      if (decision.status === "denied") {
        const rows =
          await sql`UPDATE device_authorizations SET status = 'denied' WHERE device_code_hash = ${device_code_hash} AND status = 'pending' AND expires_at > ${now} RETURNING device_code_hash`;
        return rows.length === 1;
      }
      const changes = encode_postgres(device_authorization_spec, { status: "approved", ...decision.approval });
      const rows = await sql`
        UPDATE device_authorizations SET ${sql(changes)}
        WHERE device_code_hash = ${device_code_hash} AND status = 'pending' AND expires_at > ${now} RETURNING device_code_hash`;
      return rows.length === 1;
    },
    async poll_device_authorization(device_code_hash, client_id, now) {
      // The row is locked for the poll: of concurrent polls of an approved authorization, the
      // first redeems it and the others then read it used.
      return sql.begin(async (tx) => {
        const [raw] = await tx`SELECT * FROM device_authorizations WHERE device_code_hash = ${device_code_hash} AND client_id = ${client_id} FOR UPDATE`;
        const row = decode_or_null(device_authorization_spec, raw);
        if (row === null) return { status: "not_found" as const };
        const { result, update } = decide_poll(row, now);
        if (update !== null) await tx`UPDATE device_authorizations SET ${tx(encode_postgres(device_authorization_spec, update))} WHERE device_code_hash = ${device_code_hash}`;
        return result;
      });
    },
  };
}
