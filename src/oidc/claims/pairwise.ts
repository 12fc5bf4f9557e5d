/**
 * Subject identifiers (OIDC Core §8): `public` (the default) gives every client the user's id;
 * `pairwise` (§8.1) gives each sector its own, so clients of different sectors cannot correlate
 * a user by sub.
 *
 * - The sector identifier is the host of the client's `sector_identifier_uri` when it registered
 *   one, else the host of its redirect URIs (§8.1; several hosts need a sector_identifier_uri).
 * - sub = base64url(SHA-256(sector ‖ local id ‖ salt)) (§8.1's suggested calculation), with the
 *   operator's secret salt (`pairwise.salt`), never a signing key: keys rotate, subs must not.
 * - OIDC Registration §5: the sector_identifier_uri is fetched at registration (through
 *   outbound/fetch.ts), must be https and answer a JSON array that holds every redirect URI.
 */
import { createHash } from "node:crypto";
import { invalid_metadata } from "../registration/errors.ts";
import { OutboundError, outbound_fetch } from "../outbound/fetch.ts";
import type { Provider } from "../provider.ts";
import type { ClientMetadata, ClientRow } from "../../store/types.ts";

/** The sector identifier of a client (OIDC Core §8.1); null when its redirect URIs span several hosts. */
export function sector_of(metadata: ClientMetadata): string | null {
  if (typeof metadata.sector_identifier_uri === "string") return new URL(metadata.sector_identifier_uri).host;
  const hosts = new Set((metadata.redirect_uris ?? []).map((uri) => new URL(uri).host));
  return hosts.size === 1 ? [...hosts][0]! : null;
}

export function is_pairwise(client: Pick<ClientRow, "metadata">): boolean {
  return client.metadata.subject_type === "pairwise";
}

/** The pairwise sub of `user_id` in `sector` (OIDC Core §8.1). */
export function pairwise_sub(sector: string, user_id: string, salt: string): string {
  // Lengths first: "a" ‖ "bc" and "ab" ‖ "c" must not hash alike.
  return createHash("sha256").update(`${sector.length}:${sector}|${user_id.length}:${user_id}|${salt}`, "utf8").digest("base64url");
}

/** The `sub` this client is given for the user (OIDC Core §8): the user id, or its pairwise form. */
export function subject_for(idp: Provider, client: Pick<ClientRow, "metadata">, user_id: string): string {
  if (!is_pairwise(client)) return user_id;
  const salt = idp.config.pairwise.salt;
  const sector = sector_of(client.metadata);
  // Registration refuses both; a client left behind by a config change must not get the local id.
  if (salt === undefined) throw new Error("a pairwise client exists but pairwise.salt (IDP_PAIRWISE_SALT) is not set");
  if (sector === null) throw new Error("a pairwise client has no sector identifier");
  return pairwise_sub(sector, user_id, salt);
}

/** Whether `sub` (from an id_token_hint or a claims request) names `user_id` for this client. */
export function names_user(idp: Provider, client: Pick<ClientRow, "metadata">, sub: string, user_id: string): boolean {
  return subject_for(idp, client, user_id) === sub;
}

/**
 * Registration rules of subject_type and sector_identifier_uri (OIDC Registration §2, §5),
 * after validate.ts: the salt must be configured, the sector known, and the sector document must
 * list every redirect URI. Raises invalid_client_metadata.
 */
export async function check_subject_type(idp: Provider, metadata: ClientMetadata, client_id: string | null): Promise<void> {
  const uri = metadata.sector_identifier_uri;
  if (metadata.subject_type === "pairwise") {
    if (idp.config.pairwise.salt === undefined) throw invalid_metadata('subject_type "pairwise" is not available on this provider (no pairwise salt is configured); use public');
    if (uri === undefined && sector_of(metadata) === null) {
      throw invalid_metadata("redirect_uris span several hosts: a pairwise client must register a sector_identifier_uri (OIDC Core §8.1)");
    }
  }
  if (uri === undefined) return;
  // OIDC Registration §5: "The value of the sector_identifier_uri MUST be a URL using the https
  // scheme" (http only where the operator allows outbound http: tests, intranets).
  if (!uri.startsWith("https://") && !(idp.config.outbound.allow_http && uri.startsWith("http://"))) throw invalid_metadata(`sector_identifier_uri "${uri}" must be an https URL`);
  let listed: unknown;
  try {
    const response = await outbound_fetch(idp, uri, { purpose: "sector_identifier_uri", client_id, headers: { accept: "application/json" }, max_bytes: 64 * 1024 });
    listed = JSON.parse(new TextDecoder().decode(response.body));
  } catch (error) {
    if (error instanceof OutboundError) throw invalid_metadata(`sector_identifier_uri "${uri}" could not be fetched`);
    throw invalid_metadata(`sector_identifier_uri "${uri}" did not answer a JSON array of redirect URIs`);
  }
  if (!Array.isArray(listed) || !listed.every((value) => typeof value === "string")) {
    throw invalid_metadata(`sector_identifier_uri "${uri}" did not answer a JSON array of redirect URIs`);
  }
  // OIDC Registration §5: the provider "MUST verify that all of the redirect_uri values are included".
  const missing = (metadata.redirect_uris ?? []).find((redirect) => !listed.includes(redirect));
  if (missing !== undefined) throw invalid_metadata(`sector_identifier_uri "${uri}" does not list the redirect URI "${missing}"`);
}
