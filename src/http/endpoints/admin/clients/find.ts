/** The client of the route's `:client_id`, or not_found. */
import { not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import type { ClientRow } from "../../../../store/types.ts";

export async function client_of(idp: Provider, client_id: string): Promise<ClientRow> {
  const client = await idp.store.get_client(client_id);
  if (client === null) throw not_found("client", client_id);
  return client;
}
