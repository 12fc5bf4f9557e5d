/**
 * Rows of `users`: the column spec (codec.ts encodes and decodes by it) and the builder that
 * completes a new row, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { NewUser, UserRow, UserStatus } from "../types.ts";
import { USER_STATUSES } from "../types/users.ts";
import { StoreError } from "../types/errors.ts";
import { stored_username, username_form_problem } from "../usernames.ts";

/** The columns of `users`; `username_key` (usernames.ts) is the adapters' own and never reaches a row. */
export const user_spec: TableSpec<UserRow> = {
  id: "text",
  username: "text",
  password_hash: "text",
  name: "text",
  given_name: "text",
  family_name: "text",
  picture: "text",
  email: "text",
  email_verified: "bool",
  phone_number: "text",
  phone_number_verified: "bool",
  address: "json",
  totp_secret: "text",
  totp_enabled_at: "int",
  status: "text",
  locale: "text",
  created_at: "int",
  updated_at: "int",
  version: "int",
};

/** The complete row of a new user; a username not in its normal form, or an unknown status, is refused. */
export function user_row(input: NewUser): UserRow {
  // One spelling per account (usernames.ts): a name that normalisation would change is refused
  // here, whatever path creates it, so the stored name is the one that signs in.
  if (stored_username(input.username) !== input.username) {
    throw new StoreError(username_form_problem(input.username) ?? `username "${input.username}" is not in Unicode NFC: store "${input.username.normalize("NFC")}"`);
  }
  const now = now_seconds();
  return {
    id: input.id ?? crypto.randomUUID(),
    username: input.username,
    password_hash: input.password_hash,
    name: input.name ?? null,
    given_name: input.given_name ?? null,
    family_name: input.family_name ?? null,
    picture: input.picture ?? null,
    email: input.email ?? null,
    email_verified: input.email_verified ?? false,
    phone_number: input.phone_number ?? null,
    phone_number_verified: input.phone_number_verified ?? false,
    address: input.address ?? null,
    totp_secret: input.totp_secret ?? null,
    totp_enabled_at: input.totp_enabled_at ?? null,
    status: checked_status(input.status ?? "active"),
    locale: input.locale ?? null,
    created_at: input.created_at ?? now,
    updated_at: input.updated_at ?? input.created_at ?? now,
    version: 0,
  };
}

/** A status the schema does not know is refused before it reaches the row (the column has no CHECK). */
export function checked_status<S extends UserStatus | undefined>(status: S): S {
  if (status !== undefined && !USER_STATUSES.includes(status)) {
    throw new StoreError(`user status "${status}" is not one of ${USER_STATUSES.join(", ")}`);
  }
  return status;
}
