/**
 * Will the provider be able to call the URLs an operator registers? A client's
 * `backchannel_logout_uri`, `jwks_uri`, `request_uris` and `sector_identifier_uri`, and an
 * upstream's issuer (its discovery document) and token, userinfo and emails endpoints are only
 * called through the outbound fence (fetch.ts), which refuses http unless
 * `IDP_OUTBOUND_ALLOW_HTTP` and non-public addresses unless `IDP_OUTBOUND_ALLOW`: registered
 * unchecked, such a URL fails silently, at logout time or at the first sign-in.
 *
 * `outbound_warnings` judges them when they are registered (`idp clients add|update`, `idp
 * upstreams add`, the admin API), with the fence's own rules: the scheme (`target_of`), a literal
 * address without DNS (`literal_host_problem`), a name by resolving it now (`check_destination`).
 * They are warnings, not refusals: a name may resolve differently where the server runs or later,
 * and the operator may widen the allow-list afterwards; a name that does not resolve (here, now)
 * is a warning that it could not be checked, never a refusal, and the lookup is bounded in time.
 * An upstream's authorization endpoint is left out: the browser goes there, not the provider.
 */
import type { ClientMetadata, UpstreamRow } from "../../store/types.ts";
import { literal_host_problem, parse_ip, type OutboundSettings } from "./addresses.ts";
import { OutboundError, check_destination, target_of, type Resolver } from "./fetch.ts";

/** A URL the provider will call, and the metadata member or field it was registered as. */
export type CalledUrl = { field: string; uri: string };

const ALLOW_HTTP = "set IDP_OUTBOUND_ALLOW_HTTP=true to let the provider call http URLs, or register an https one";
const ALLOW = "add the host or its address range to IDP_OUTBOUND_ALLOW if the provider should call it";

/** The URLs of a client's metadata that the provider calls. */
export function client_called_urls(metadata: ClientMetadata): CalledUrl[] {
  const urls: CalledUrl[] = [];
  for (const field of ["jwks_uri", "backchannel_logout_uri", "sector_identifier_uri"] as const) {
    const uri = metadata[field];
    if (typeof uri === "string") urls.push({ field, uri });
  }
  for (const uri of metadata.request_uris ?? []) urls.push({ field: "request_uris", uri });
  return urls;
}

/** The URLs of an upstream that the provider calls (not the authorization endpoint: the browser goes there). */
export function upstream_called_urls(row: Pick<UpstreamRow, "issuer" | "token_endpoint" | "userinfo_endpoint" | "emails_endpoint">): CalledUrl[] {
  const urls: CalledUrl[] = [];
  for (const field of ["issuer", "token_endpoint", "userinfo_endpoint", "emails_endpoint"] as const) {
    const uri = row[field];
    if (uri !== null) urls.push({ field, uri });
  }
  return urls;
}

/** Rejects with a DNS-style failure when `promise` takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("DNS lookup timed out"), { code: "ETIMEOUT" })), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Why the fence would refuse `uri`, in words naming the setting that lets it through; null when it would call it. */
export async function outbound_warning(called: CalledUrl, settings: OutboundSettings, resolve?: Resolver): Promise<string | null> {
  const { field, uri } = called;
  const refused = (reason: string, hint: string) => `${field} "${uri}": the provider will not call it: ${reason}; ${hint}`;
  let url: URL;
  try {
    url = target_of(uri, settings);
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    const http = URL.canParse(uri) && new URL(uri).protocol === "http:";
    return refused(error.reason, http ? ALLOW_HTTP : error.reason.includes("credentials") ? "register it without user or password" : "register an https URL");
  }
  if (parse_ip(url.hostname) !== null) {
    const problem = literal_host_problem(url.hostname, settings.allow);
    return problem === null ? null : refused(`the host ${problem}`, ALLOW);
  }
  try {
    await within(check_destination(url, settings.allow, resolve), settings.connect_timeout_ms);
    return null;
  } catch (error) {
    if (error instanceof OutboundError && error.kind === "refused") return refused(error.reason, ALLOW);
    const reason = error instanceof OutboundError ? error.reason : `the host name did not resolve (${String((error as { code?: unknown }).code ?? "error")})`;
    return `${field} "${uri}": could not be checked now (${reason}); the provider calls it only if it resolves to public addresses, or to ones IDP_OUTBOUND_ALLOW covers`;
  }
}

/** One warning per URL the fence would refuse (or could not judge); none when every one will be called. */
export async function outbound_warnings(urls: readonly CalledUrl[], settings: OutboundSettings, resolve?: Resolver): Promise<string[]> {
  const verdicts = await Promise.all(urls.map((called) => outbound_warning(called, settings, resolve)));
  return verdicts.filter((warning): warning is string => warning !== null);
}
