/**
 * Rows of `groups`: the column spec (codec.ts decodes by it) and the builder that completes a
 * new row, shared by both adapters; a name that breaks the rule (../group_names.ts) is refused
 * here. `name_key`, the unique lookup key, is the adapters' own and never reaches a row.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { group_name_problem } from "../group_names.ts";
import type { GroupRow, NewGroup } from "../types.ts";
import { StoreError } from "../types/errors.ts";

/** The columns of `groups`. */
export const group_spec: TableSpec<GroupRow> = {
  id: "text",
  name: "text",
  description: "text",
  created_at: "int",
};

/** The complete row of a new group: a random id, a blank description stored as none. */
export function group_row(input: NewGroup): GroupRow {
  const problem = group_name_problem(input.name);
  if (problem !== null) throw new StoreError(problem);
  const description = input.description?.trim() ?? "";
  return {
    id: input.id ?? crypto.randomUUID(),
    name: input.name,
    description: description === "" ? null : description,
    created_at: input.created_at ?? now_seconds(),
  };
}
