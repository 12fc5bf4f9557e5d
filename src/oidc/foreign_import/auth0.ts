/**
 * Auth0's users as newline-delimited JSON, one user a line: the bulk user export job's file
 * (`user_id`, `email`, `email_verified`, `username`, `name`, `given_name`, `family_name`,
 * `blocked`), and the password hash export Auth0 support hands out (`_id.$oid`, `email`,
 * `email_verified`, `passwordHash`: bcrypt `$2b$10$...`). Lines of both files can be concatenated:
 * a user is named by `username`, else by `email`. Blank lines are skipped; `blocked: true`
 * imports the user disabled. Fields other than these are reported once as ignored.
 */
import { add_user, empty_plan, type ImportPlan } from "./plan.ts";

const READ = new Set(["user_id", "_id", "email", "email_verified", "username", "name", "given_name", "family_name", "blocked", "passwordHash", "password_hash"]);

/** Reads an Auth0 NDJSON export (already within MAX_IMPORT_BYTES). */
export function read_auth0(text: string): ImportPlan {
  const plan = empty_plan("auth0");
  const seen = new Set<string>();
  const others = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const at = `line ${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      plan.errors.push({ at, message: `not JSON: ${(error as Error).message}` });
      continue;
    }
    if (row === null || typeof row !== "object" || Array.isArray(row)) {
      plan.errors.push({ at, message: "not a JSON object" });
      continue;
    }
    const user = row as Record<string, unknown>;
    for (const key of Object.keys(user)) if (!READ.has(key)) others.add(key);
    add_user(plan, seen, at, {
      username: typeof user.username === "string" && user.username !== "" ? user.username : user.email,
      email: user.email,
      email_verified: user.email_verified,
      name: user.name,
      given_name: user.given_name,
      family_name: user.family_name,
      password_hash: user.passwordHash ?? user.password_hash,
      disabled: user.blocked === true,
    });
  }
  if (others.size > 0) plan.ignored.push({ at: "file", message: `fields ${[...others].sort().join(", ")}` });
  return plan;
}
