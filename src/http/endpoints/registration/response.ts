/**
 * The client information response (RFC 7591 §3.2.1, RFC 7592 §3): the client's credentials and
 * its metadata as stored, defaults included. The response contract is an allow-list: only the
 * members declared here are ever serialised, so a stored hash or a server-side flag never leaks.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ClientMetadata, ClientRow } from "../../../store/types.ts";
import { REGISTRABLE } from "../../../oidc/registration/schema.ts";

const metadata_members = Object.fromEntries(REGISTRABLE.map((key) => [key, z.unknown().optional()]));

export const ClientInformationSchema = z.object({
  client_id: z.string(),
  /** Only when a secret was issued by this very response: only its hash is stored. */
  client_secret: z.string().optional(),
  client_id_issued_at: z.number().int(),
  /** RFC 7591 §3.2.1: REQUIRED when the client has a secret; 0 = it does not expire. */
  client_secret_expires_at: z.number().int().optional(),
  registration_access_token: z.string(),
  registration_client_uri: z.string(),
  ...metadata_members,
});

export type ClientInformation = { [K in (typeof REGISTRABLE)[number]]?: ClientMetadata[K] } & {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  registration_access_token: string;
  registration_client_uri: string;
};

/** The response contract of POST /register and GET|PUT /register/:client_id. */
export const ClientInformationResponse = Fw.Response.Json.of(ClientInformationSchema);

/** RFC 7591 §3.2.1: the client configuration endpoint of a client (RFC 7592 §1). */
export function registration_client_uri(idp: Provider, client_id: string): string {
  return `${idp.config.issuer}${PATHS.register}/${encodeURIComponent(client_id)}`;
}

/** Only the members a client may register (never server-side ones such as skip_consent). */
export function registrable_metadata(metadata: ClientMetadata): ClientMetadata {
  const out: ClientMetadata = {};
  for (const key of REGISTRABLE) if (metadata[key] !== undefined) out[key] = metadata[key] as never;
  return out;
}

export function client_information(idp: Provider, client: ClientRow, credentials: { client_secret: string | null; registration_access_token: string }): ClientInformation {
  return {
    client_id: client.client_id,
    ...(credentials.client_secret === null ? {} : { client_secret: credentials.client_secret }),
    client_id_issued_at: client.client_id_issued_at,
    ...(client.client_secret_hash === null ? {} : { client_secret_expires_at: client.client_secret_expires_at }),
    // RFC 7592 §3: the response carries the registration access token; it is the one the client
    // just presented (only its hash is stored), or the one issued with this response.
    registration_access_token: credentials.registration_access_token,
    registration_client_uri: registration_client_uri(idp, client.client_id),
    ...registrable_metadata(client.metadata),
  };
}

/** RFC 7591 §3.2.1, RFC 7592 §3: responses with credentials are never cached. */
export function no_store(headers: Headers): void {
  headers.set("cache-control", "no-store");
  headers.set("pragma", "no-cache");
}
