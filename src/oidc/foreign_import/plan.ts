/**
 * What an import from another provider will create, read from its file before anything is
 * written (keycloak.ts, auth0.ts, table.ts build it; apply.ts writes it). Every reader checks
 * the same fields the same way here, and says where a bad row is: `at` is a line number (CSV,
 * NDJSON) or a JSON path (`users[3]`).
 */
import { checked_imported_hash } from "../crypto/foreign_hashes.ts";
import { EMAIL, checked_username } from "../admin/users.ts";
import { group_name_problem } from "../../store/group_names.ts";

export type ImportSource = "keycloak" | "auth0" | "csv";
export const IMPORT_SOURCES: readonly ImportSource[] = ["keycloak", "auth0", "csv"];

/** The largest file read (checked before it is read), and the most users in one. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
export const MAX_IMPORT_USERS = 200_000;
/** Profile fields longer than this are refused (no provider writes longer names). */
const MAX_FIELD = 256;

export type PlannedUser = {
  at: string;
  username: string;
  email: string | null;
  email_verified: boolean;
  name: string | null;
  given_name: string | null;
  family_name: string | null;
  /** Canonical (crypto/foreign_hashes.ts), or "": no password (the user resets it, or signs in another way). */
  password_hash: string;
  status: "active" | "disabled";
  groups: string[];
};

export type PlannedClient = {
  at: string;
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  public: boolean;
  /** The provider's secret, kept (stored hashed); null: a new one is made (a public client has none). */
  secret: string | null;
};

export type RowError = { at: string; message: string };

export type ImportPlan = {
  source: ImportSource;
  users: PlannedUser[];
  /** Every group to exist afterwards, in the order found. */
  groups: string[];
  clients: PlannedClient[];
  /** Rows that cannot be imported: while there is one, nothing is written. */
  errors: RowError[];
  /** What the file holds that is not imported (roles, unsupported hashes, wildcard redirect URIs...). */
  ignored: RowError[];
};

export function empty_plan(source: ImportSource): ImportPlan {
  return { source, users: [], groups: [], clients: [], errors: [], ignored: [] };
}

/** The fields of one user as a reader found them (strings unchecked; undefined: absent). */
export type UserFields = {
  username: unknown;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  given_name?: unknown;
  family_name?: unknown;
  password_hash?: unknown;
  disabled?: boolean;
  groups?: string[];
};

function text(value: unknown, field: string, problems: string[]): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") {
    problems.push(`${field} must be text`);
    return null;
  }
  if (value.length > MAX_FIELD) problems.push(`${field} is longer than ${MAX_FIELD} characters`);
  return value;
}

function flag(value: unknown, field: string, problems: string[]): boolean {
  if (value === undefined || value === null || value === "") return false;
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|1|yes)$/i.test(value)) return true;
  if (typeof value === "string" && /^(false|0|no)$/i.test(value)) return false;
  problems.push(`${field} must be true or false`);
  return false;
}

/**
 * Checks one user and adds it to the plan, or adds an error naming `at` and every problem. A
 * username already in the file is an error; a password hash of a kind this provider does not
 * read is an error too (the file is wrong, or needs converting): never silently dropped.
 */
export function add_user(plan: ImportPlan, seen: Set<string>, at: string, fields: UserFields): void {
  const problems: string[] = [];
  let username = "";
  if (typeof fields.username !== "string" || fields.username === "") problems.push("username is missing");
  else {
    const checked = checked_username(fields.username);
    if ("problem" in checked) problems.push(checked.problem);
    else username = checked.username;
  }
  const email = text(fields.email, "email", problems);
  if (email !== null && !EMAIL.test(email)) problems.push(`email "${email}" is not an e-mail address`);
  const email_verified = flag(fields.email_verified, "email_verified", problems);
  const name = text(fields.name, "name", problems);
  const given_name = text(fields.given_name, "given_name", problems);
  const family_name = text(fields.family_name, "family_name", problems);
  let password_hash = "";
  const hash = text(fields.password_hash, "password_hash", problems);
  if (hash !== null) {
    const checked = checked_imported_hash(hash);
    if ("problem" in checked) problems.push(`password_hash: ${checked.problem}`);
    else password_hash = checked.hash;
  }
  const groups = fields.groups ?? [];
  for (const group of groups) {
    const problem = group_name_problem(group);
    if (problem !== null) problems.push(problem);
  }
  const key = username.toLowerCase();
  if (username !== "" && seen.has(key)) problems.push(`username "${username}" appears twice in the file`);
  if (problems.length > 0) {
    plan.errors.push({ at, message: problems.join("; ") });
    return;
  }
  seen.add(key);
  for (const group of groups) add_group(plan, group);
  plan.users.push({ at, username, email, email_verified, name, given_name, family_name, password_hash, status: fields.disabled ? "disabled" : "active", groups });
}

export function add_group(plan: ImportPlan, name: string): void {
  const key = name.toLowerCase();
  if (!plan.groups.some((group) => group.toLowerCase() === key)) plan.groups.push(name);
}

/** A plan with one error: a file that cannot be read at all. */
export function unreadable(source: ImportSource, message: string): ImportPlan {
  const plan = empty_plan(source);
  plan.errors.push({ at: "file", message });
  return plan;
}
