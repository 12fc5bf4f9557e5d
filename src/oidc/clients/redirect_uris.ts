/**
 * Redirect URI rules, shared by `idp clients add` and the registration endpoint (POST /register).
 *
 * - Absolute URI, no fragment (RFC 6749 §3.1.2), no user credentials.
 * - No wildcard: redirect URIs are compared as exact strings (OIDC Core §3.1.2.1, RFC 9700
 *   §4.1.3), so a `*` is never a pattern; it is refused rather than stored as a literal.
 * - https anywhere; http only on loopback hosts (localhost, 127.0.0.1, [::1]) — RFC 8252 §7.3
 *   and OAuth 2.0 Security BCP (RFC 9700 §4.1.1: no cleartext redirects off the machine).
 * - A private-use ("custom") scheme only for native applications (RFC 8252 §7.1), and never a
 *   scheme that runs code or reads local data in a browser (javascript:, data:, file:, ...).
 */

export type ApplicationType = "web" | "native";

/** Hostnames (as `URL.hostname` spells them) that only reach the local machine. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Schemes a browser would run or resolve locally instead of handing to an application. */
export const FORBIDDEN_SCHEMES: ReadonlySet<string> = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:", "filesystem:"]);

export function is_loopback_host(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/**
 * Why `uri` is not an acceptable redirect URI for a client of `application_type`, or null when
 * it is. The message completes the sentence "redirect URI <uri> ...".
 */
export function redirect_uri_problem(uri: string, application_type: ApplicationType = "web"): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (uri.includes("#")) return "must not contain a fragment (#...)";
  if (uri.includes("*")) return "must not contain a wildcard (*): redirect URIs are compared exactly (RFC 9700 §4.1.3)";
  if (url.username || url.password) return "must not contain user credentials";
  const scheme = url.protocol.toLowerCase();
  if (scheme === "https:") {
    if (!url.hostname) return "must have a host";
    return null;
  }
  if (scheme === "http:") {
    if (is_loopback_host(url.hostname)) return null;
    return "uses http on a host that is not loopback; use https (http is allowed only for localhost, 127.0.0.1 and [::1])";
  }
  if (FORBIDDEN_SCHEMES.has(scheme)) return `uses the forbidden scheme "${scheme}"`;
  if (application_type !== "native") {
    return `uses the custom scheme "${scheme}"; only native applications (application_type native) may use custom schemes`;
  }
  return null;
}

/** Every problem of a list of redirect URIs, each as a full sentence; empty when all are fine. */
export function redirect_uri_problems(uris: readonly string[], application_type: ApplicationType = "web", label = "redirect URI"): string[] {
  const problems: string[] = [];
  for (const uri of uris) {
    const problem = redirect_uri_problem(uri, application_type);
    if (problem) problems.push(`${label} "${uri}" ${problem}`);
  }
  return problems;
}

/** A refusal of a client's redirect URIs, in the words and error code of registration (RFC 7591 §3.2.2). */
export type RedirectUrisProblem = { error: "invalid_redirect_uri" | "invalid_client_metadata"; description: string };

/**
 * The first problem of a client's redirect_uris and post_logout_redirect_uris, or null. The one
 * check of both registration (registration/validate.ts) and `idp clients add`
 * (cli/client_metadata.ts), so the two refuse the same URIs with the same message.
 */
export function redirect_uris_problem(
  redirect_uris: readonly string[],
  post_logout_redirect_uris: readonly string[],
  application_type: ApplicationType,
): RedirectUrisProblem | null {
  for (const uri of redirect_uris) {
    // RFC 6749 §3.1.2: absolute, no fragment. OIDC Registration §2: web clients https (http only
    // on loopback: RFC 8252 §7.3); native clients a private-use scheme or loopback http — and
    // claimed https URIs (RFC 8252 §7.2).
    const problem = redirect_uri_problem(uri, application_type);
    if (problem !== null) return { error: "invalid_redirect_uri", description: `redirect URI "${uri}" ${problem}` };
  }
  for (const uri of post_logout_redirect_uris) {
    // OIDC RP-Initiated Logout §3.1: the same rules as redirect_uris.
    const problem = redirect_uri_problem(uri, application_type);
    if (problem !== null) return { error: "invalid_client_metadata", description: `post_logout_redirect_uris: "${uri}" ${problem}` };
  }
  return null;
}

/** Why `value` is not an absolute http(s) URL (for picture, jwks_uri, ...), or null. */
export function web_url_problem(value: string, options: { https_only?: boolean } = {}): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && !options.https_only) return null;
  if (url.protocol === "http:" && is_loopback_host(url.hostname)) return null;
  return options.https_only ? "must be an https URL" : "must be an http(s) URL";
}

/** An http redirect URI on a loopback IP literal: host, optional port, and the rest as written. */
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?].*)?$/;

/**
 * Does the `requested` redirect URI match the `registered` one? Exact string comparison (OIDC
 * Core §3.1.2.1, RFC 9700 §4.1.3), except for native apps on a loopback IP literal, where any
 * port matches (RFC 8252 §7.3: the port is picked by the OS at the time of the request).
 * `localhost` gets no such exception (RFC 8252 §8.3 recommends the IP literals).
 */
export function redirect_uri_matches(registered: string, requested: string, application_type: ApplicationType = "web"): boolean {
  if (registered === requested) return true;
  if (application_type !== "native") return false;
  const want = LOOPBACK_IP_URI.exec(registered);
  const got = LOOPBACK_IP_URI.exec(requested);
  if (want === null || got === null) return false;
  if (got[2] !== undefined && Number(got[2]) > 65535) return false;
  return want[1] === got[1] && (want[3] ?? "") === (got[3] ?? "");
}
