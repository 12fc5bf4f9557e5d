/**
 * Reading registered client metadata, with the defaults of RFC 7591 §2 / OIDC Registration §2.
 */
import { redirect_uri_matches } from "./redirect_uris.ts";
import type { ClientMetadata, ClientRow } from "../../store/types.ts";

/** RFC 7591 §2: "If unspecified or omitted, the default is client_secret_basic". */
export function auth_method(client: ClientRow): string {
  return client.metadata.token_endpoint_auth_method ?? "client_secret_basic";
}

/** A public client cannot keep a secret (RFC 6749 §2.1); it must use PKCE (RFC 9700 §2.1.1). */
export function is_public(client: ClientRow): boolean {
  return auth_method(client) === "none";
}

/** RFC 7591 §2: grant_types defaults to ["authorization_code"]. */
export function allows_grant(client: ClientRow, grant_type: string): boolean {
  return (client.metadata.grant_types ?? ["authorization_code"]).includes(grant_type);
}

/** RFC 7591 §2: response_types defaults to ["code"]. */
export function allows_response_type(client: ClientRow, response_type: string): boolean {
  return (client.metadata.response_types ?? ["code"]).includes(response_type);
}

/**
 * OIDC Core §3.1.2.1: the redirect_uri "MUST exactly match one of the Redirection URI values for
 * the Client pre-registered at the OpenID Provider" (simple string comparison, RFC 9700 §4.1.3);
 * native apps' loopback IP redirect URIs match on any port (RFC 8252 §7.3).
 */
export function has_redirect_uri(client: ClientRow, redirect_uri: string): boolean {
  const type = client.metadata.application_type === "native" ? "native" : "web";
  return (client.metadata.redirect_uris ?? []).some((registered) => redirect_uri_matches(registered, redirect_uri, type));
}

/** A readable name for pages. */
export function display_name(client: ClientRow): string {
  const name = client.metadata.client_name;
  return typeof name === "string" && name.trim() !== "" ? name : client.client_id;
}

/** The metadata members the consent page shows as links or an image (OIDC Registration §2). */
export const DISPLAY_LINKS = ["logo_uri", "policy_uri", "tos_uri", "client_uri"] as const;

/**
 * Why `value` is not a link the consent page shows (`safe_link`); null when it is. An operator's
 * client (the CLI, the admin API, the console) is held to it when registered, so a link that
 * would never be shown is said then (a self-registered client is not: it may name loopback http
 * outside production, registration/validate.ts).
 */
export function display_link_problem(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol === "https:" && url.username === "" && url.password === "") return null;
  } catch {
    // Not a URL: the same words.
  }
  return "must be an https URL without user or password (the consent page shows nothing else)";
}

/**
 * An https URL from client metadata (OIDC Registration §2 logo_uri, policy_uri, tos_uri,
 * client_uri), safe to put in an href/src; null otherwise. Only https is shown: no mixed content,
 * no javascript:/data: links, and the logo is fetched by the user's browser, never by the server.
 */
export function safe_link(metadata: ClientMetadata, key: (typeof DISPLAY_LINKS)[number]): string | null {
  const value = metadata[key];
  if (typeof value !== "string" || display_link_problem(value) !== null) return null;
  return new URL(value).href;
}

/**
 * The CSP source that lets a form submission be redirected to this redirect URI (browsers apply
 * form-action to the redirects that follow a form POST): the origin for http(s), the scheme for
 * private-use schemes of native apps (RFC 8252 §7.1).
 */
export function csp_source(redirect_uri: string): string | null {
  try {
    const url = new URL(redirect_uri);
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : null;
  } catch {
    return null;
  }
}
