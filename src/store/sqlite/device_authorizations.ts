/** SQLite: device authorizations (RFC 8628), decided by the user once and redeemed once. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode_or_null, encode_sqlite } from "../codec.ts";
import { device_authorization_row, device_authorization_spec } from "../rows/device_authorizations.ts";
import { decide_poll } from "../device_poll.ts";
import type { DeviceAuthorizationRow, DeviceAuthorizationStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_device_authorizations(db: SqliteDatabase): Sync<DeviceAuthorizationStore> {
  const insert = db.prepare(insert_sql("device_authorizations", columns(device_authorization_spec)));
  const find = db.prepare("SELECT * FROM device_authorizations WHERE user_code_hash = $user_code_hash AND expires_at > $now");
  // Only a pending, unexpired authorization is decided, in one statement: a second decision finds nothing.
  const approve = db.prepare(
    `UPDATE device_authorizations SET status = 'approved', user_id = $user_id, session_id_hash = $session_id_hash, auth_time = $auth_time, amr = $amr, acr = $acr
     WHERE device_code_hash = $device_code_hash AND status = 'pending' AND expires_at > $now`,
  );
  const deny = db.prepare("UPDATE device_authorizations SET status = 'denied' WHERE device_code_hash = $device_code_hash AND status = 'pending' AND expires_at > $now");
  const get = db.prepare("SELECT * FROM device_authorizations WHERE device_code_hash = $device_code_hash AND client_id = $client_id");
  const update = db.prepare(
    "UPDATE device_authorizations SET status = $status, poll_interval = $poll_interval, last_polled_at = $last_polled_at WHERE device_code_hash = $device_code_hash",
  );
  // Read and write in one transaction (a savepoint inside group commit): the poll that redeems
  // an approval is the only one that sees it approved.
  const poll = db.transaction((device_code_hash: string, client_id: string, now: number) => {
    const row = decode_or_null(device_authorization_spec, get.get({ device_code_hash, client_id }));
    if (row === null) return { status: "not_found" as const };
    const { result, update: changes } = decide_poll(row, now);
    if (changes !== null) {
      const next: DeviceAuthorizationRow = { ...row, ...changes };
      update.run({ device_code_hash, status: next.status, poll_interval: next.poll_interval, last_polled_at: next.last_polled_at });
    }
    return result;
  });
  return {
    insert_device_authorization(input) {
      const row = device_authorization_row(input);
      insert.run(encode_sqlite(device_authorization_spec, row));
      return row;
    },
    find_device_authorization(user_code_hash, now) {
      return decode_or_null(device_authorization_spec, find.get({ user_code_hash, now }));
    },
    decide_device_authorization(device_code_hash, decision, now) {
      if (decision.status === "denied") return deny.run({ device_code_hash, now }).changes === 1;
      const a = decision.approval;
      return (
        approve.run({ device_code_hash, now, user_id: a.user_id, session_id_hash: a.session_id_hash, auth_time: a.auth_time, amr: JSON.stringify(a.amr), acr: a.acr }).changes === 1
      );
    },
    poll_device_authorization(device_code_hash, client_id, now) {
      return poll(device_code_hash, client_id, now);
    },
  };
}
