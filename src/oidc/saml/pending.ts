/**
 * A SAML request waiting for the browser: between /saml/sso, which checked it, and the Response
 * posted to the service provider. It is kept as an interaction row (`params.saml`, purged at
 * its expiry like every interaction, IDP_INTERACTION_TTL) and is single use.
 *
 * Binding: /saml/sso cannot read our cookies on the HTTP-POST binding (a cross-site POST does
 * not carry SameSite=Lax cookies), so the pending request is bound to the browser at its first
 * GET of /saml/resume/<id>, a top-level navigation that does carry them: the SHA-256 of the
 * browser's `idp_interaction` value is stored then (as for every interaction,
 * authorize/interactions.ts), and any later step must come from that browser.
 */
import { cookie_options, interaction_cookie_name, read_cookie, type CookieReader, type CookieToSet } from "../browser/cookies.ts";
import { constant_time_equal, random_token, sha256 } from "../crypto/secrets.ts";
import { PageError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject } from "../../store/types.ts";
import { SAML_PATHS } from "./metadata.ts";

export type PendingSaml = {
  entity_id: string;
  /** The AuthnRequest's ID (InResponseTo); null for a sign-in started here (IdP-initiated). */
  request_id: string | null;
  acs: string;
  relay_state: string | null;
  force_authn: boolean;
  is_passive: boolean;
  binding: "redirect" | "post" | "idp_initiated";
  /** The request was signed (and its signature verified): for the audit log. */
  signed: boolean;
  /** The NameIDPolicy Format the request asked for, when it named one. */
  nameid_format: string | null;
  created_at: number;
};

export function resume_path(id: string): string {
  return `${SAML_PATHS.resume}/${id}`;
}

export function resume_url(idp: Provider, id: string): string {
  return `${idp.config.issuer}${resume_path(id)}`;
}

/** Stores a checked request; returns its id (256 random bits, the path of its resume URL). */
export async function save_pending(idp: Provider, pending: PendingSaml): Promise<string> {
  const id = random_token(32);
  const now = idp.now();
  await idp.store.create_interaction({ id, params: { saml: pending } as unknown as JsonObject, created_at: now, expires_at: now + idp.config.tokens.interaction_ttl });
  return id;
}

export function expired_pending(): PageError {
  return new PageError("This sign-in request has expired", "The sign-in took too long or was already completed. Go back to the application and start again.", "invalid_request");
}

/**
 * The pending request `id` for this browser, binding it at the first visit (see above); the
 * binding cookie to set when the browser had none. A PageError when it is unknown, expired, or
 * bound to another browser.
 */
export async function load_pending(idp: Provider, id: string, cookies: CookieReader): Promise<{ pending: PendingSaml; cookie: CookieToSet | null }> {
  const row = await idp.store.get_interaction(id);
  const params = (row?.params ?? {}) as { saml?: PendingSaml; binding_hash?: string };
  if (row === null || row.expires_at <= idp.now() || params.saml === undefined) throw expired_pending();
  const existing = read_cookie(cookies, interaction_cookie_name(idp));
  if (params.binding_hash === undefined) {
    const binding = existing ?? random_token(32);
    await idp.store.update_interaction(id, { params: { ...row.params, binding_hash: sha256(binding) } });
    const ttl = idp.config.tokens.interaction_ttl;
    return { pending: params.saml, cookie: existing === null ? { name: interaction_cookie_name(idp), value: binding, options: cookie_options(idp, ttl) } : null };
  }
  if (existing === null || !constant_time_equal(sha256(existing), params.binding_hash)) {
    throw new PageError(
      "This sign-in was started in another browser",
      "For your security, a sign-in can only be completed in the browser where it started. Go back to the application and start again here.",
      "access_denied",
    );
  }
  return { pending: params.saml, cookie: null };
}

/**
 * The name of the service provider a pending request at `path` (a return path of the sign-in
 * page, browser/return_path.ts) is for, to say on the sign-in page whom the user signs in to;
 * null for any other path, or a request gone.
 */
export async function pending_sp_name(idp: Provider, path: string | null): Promise<string | null> {
  const prefix = `${SAML_PATHS.resume}/`;
  if (path === null || !path.startsWith(prefix)) return null;
  const row = await idp.store.get_interaction(path.slice(prefix.length));
  const pending = (row?.params as { saml?: PendingSaml } | undefined)?.saml;
  if (row === null || row.expires_at <= idp.now() || pending === undefined) return null;
  return (await idp.store.get_saml_service_provider(pending.entity_id))?.name ?? null;
}

/** Ends the pending request; false when another request ended it first (a double submit). */
export function end_pending(idp: Provider, id: string): Promise<boolean> {
  return idp.store.delete_interaction(id);
}
