/**
 * Clients that registered anonymously and were never used expire.
 *
 * With IDP_REGISTRATION=open anyone may register a client (RFC 7591 §3: "the authorization server
 * MAY allow" registration without an initial access token), and each is a row kept forever.
 * Besides the daily quota per address (access.ts `count_anonymous_registration`), such clients
 * (marked `anonymous` when registered, store migration 19) are deleted by the background purge
 * (app/purge.ts) when they were never issued a token `registration_unused_client_days` days after
 * they registered (RFC 7591 §3.2.1 lets a server expire registrations; OWASP API Security Top 10
 * 2023, API4 "Unrestricted Resource Consumption"). A client's first use is recorded once, at its
 * first successful token issuance (`record_first_use`): one write per client ever. Clients an
 * operator made (CLI, admin API) or an initial access token registered are never deleted here,
 * nor those registered before migration 19. Each deletion is audited (`client_deleted`, reason
 * `never_used`). IDP_REGISTRATION_UNUSED_CLIENT_DAYS=0 keeps them.
 */
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

const DAY_SECONDS = 24 * 3600;

/**
 * Records that `client` was just issued a token, unless a use is already recorded (the row in
 * hand says so: no write at all after the first).
 */
export async function record_first_use(idp: Provider, client: ClientRow, now = idp.now()): Promise<void> {
  if (client.first_used_at !== null) return;
  await idp.store.mark_client_used(client.client_id, now);
}

/** Deletes the anonymous clients never used past their days, in batches of `batch`; returns how many went. */
export async function delete_unused_clients(idp: Provider, batch: number): Promise<number> {
  const days = idp.config.registration_unused_client_days;
  if (days === 0) return 0;
  const before = idp.now() - days * DAY_SECONDS;
  let total = 0;
  for (;;) {
    const deleted = await idp.store.delete_unused_clients(before, batch);
    for (const client of deleted) {
      await record_event(idp, {
        type: "client_deleted",
        outcome: "success",
        client_id: client.client_id,
        details: { client_name: client.metadata.client_name ?? null, reason: "never_used", registered_at: client.created_at, days, via: "purge" },
      });
    }
    total += deleted.length;
    if (deleted.length < batch) return total;
  }
}
