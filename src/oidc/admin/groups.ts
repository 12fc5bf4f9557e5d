/**
 * Administering groups: the rules `idp groups` (src/cli/groups.ts) and the admin API share. A
 * name follows store/group_names.ts and is unique case-insensitively.
 */
import { group_name_problem } from "../../store/group_names.ts";
import { StoreConflictError, type GroupRow, type Store } from "../../store/types.ts";
import { AdminError, invalid_field } from "./errors.ts";

export const MAX_DESCRIPTION = 500;

export async function create_group(store: Store, name: string, description: string | null): Promise<GroupRow> {
  const problem = group_name_problem(name);
  if (problem !== null) throw invalid_field("name", problem);
  if (description !== null && description.length > MAX_DESCRIPTION) throw invalid_field("description", `must have at most ${MAX_DESCRIPTION} characters`);
  const taken = (spelled: string) => new AdminError("conflict", `group "${spelled}" already exists (group names are case-insensitive)`, [{ field: "name", message: "is taken" }]);
  const existing = await store.get_group_by_name(name);
  if (existing !== null) throw taken(existing.name);
  try {
    return await store.create_group({ name, description });
  } catch (error) {
    if (error instanceof StoreConflictError) throw taken(name);
    throw error;
  }
}
