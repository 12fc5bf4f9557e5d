/** The complete group row from a NewGroup, shared by both adapters; a name that breaks the rule is refused here. */
import { now_seconds } from "./defaults.ts";
import { group_name_problem } from "./group_names.ts";
import type { GroupRow, NewGroup } from "./types.ts";
import { StoreError } from "./types/errors.ts";

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
