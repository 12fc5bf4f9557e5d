/** The user of the route's `:id` (a user id or a username), or not_found. */
import { not_found } from "../../../../oidc/admin/errors.ts";
import { public_user } from "../../../../oidc/admin/users.ts";
import { read_user_attributes } from "../../../../oidc/attributes/values.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import type { UserRow } from "../../../../store/types.ts";

export async function user_of(idp: Provider, id: string): Promise<UserRow> {
  const user = (await idp.store.get_user_by_id(id)) ?? (await idp.store.get_user_by_username(id));
  if (user === null) throw not_found("user", id);
  return user;
}

/** A user's representation: the public fields, the names of their groups and their custom attributes. */
export async function user_view(idp: Provider, user: UserRow) {
  return { ...public_user(user), groups: await idp.store.list_user_groups(user.id), attributes: await read_user_attributes(idp.store, user.id) };
}
