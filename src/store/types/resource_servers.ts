/** Store types: Resource servers (RFC 8707, RFC 9068). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type AccessTokenFormat = "jwt" | "opaque";

export type ResourceServerRow = {
  /** RFC 8707 §2: the resource indicator, an absolute URI without fragment. */
  uri: string;
  /** The scope values this resource accepts. */
  scopes: string[];
  access_token_format: AccessTokenFormat;
  /** Seconds; null: IDP_ACCESS_TOKEN_TTL. */
  access_token_ttl: number | null;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
};

export type NewResourceServer = Pick<ResourceServerRow, "uri" | "scopes"> & Partial<Omit<ResourceServerRow, "uri" | "scopes">>;

export interface ResourceServerStore {
  /** Raises StoreConflictError when the URI is registered already. */
  create_resource_server(resource: NewResourceServer): Promise<ResourceServerRow>;
  get_resource_server(uri: string): Promise<ResourceServerRow | null>;
  /** Ordered by URI. */
  list_resource_servers(): Promise<ResourceServerRow[]>;
  /** False when unknown. */
  delete_resource_server(uri: string): Promise<boolean>;
}
