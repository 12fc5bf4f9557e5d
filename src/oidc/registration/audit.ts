/**
 * Audit events of the registration endpoints: client_registered, client_updated, client_deleted
 * (the same types the CLI records). Names and ids only, never a secret or token.
 */
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow, JsonObject } from "../../store/types.ts";

export type RegistrationEvent = "client_registered" | "client_updated" | "client_deleted";

export async function audit(idp: Provider, type: RegistrationEvent, client: ClientRow, ip: string, details: JsonObject = {}): Promise<void> {
  await record_event(idp, {
    type,
    outcome: "success",
    client_id: client.client_id,
    ip,
    details: { client_name: client.metadata.client_name ?? null, via: "registration_endpoint", ...details },
  });
}
